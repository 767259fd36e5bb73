"""The harnesses whose logs the import command reads, one row per harness: its log formats
(how each is told from its bytes), the mapping's final-state and cost sources it has (the
first of each its default), and the words its logs use. What its columns of the docs' tables
say (what it fills by default, what becomes each record field, the mapping keys only it
reads) is its row of :mod:`.harness_docs`, which the gate never loads.

Everything the contract says of harnesses comes from these rows: the results' provenance
(``log_format``, ``harness``; :mod:`.inputs`) and the mapping file's sources (:mod:`.mapping`)
and their docs; and so do the import command's help, the dispatch from a log to its reader
(``importers/formats.py``) and the mapping's defaults (``importers/settings.py``). Adding a
harness is one row here, its docs cells in :mod:`.harness_docs`, one module in
``importers/`` with its reader and the reader's row in ``importers/readers.py`` (the contract
imports no importer: the link from a format to its reader is made there); ``publish``
rewrites the schemas and the docs' tables. A log is one file or one folder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, NamedTuple, Optional, Sequence, Tuple

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

# How a log format is told (:class:`Recognition`), in the order the import tries them: a
# folder by being one; a file first by its first bytes, then by its first line (JSON lines,
# the first an object with the keys), then, decoded as one JSON object, by its keys.
FOLDER = "folder"
BYTES = "bytes"
LINES = "lines"
JSON = "json"
CONTAINERS = (FOLDER, BYTES, LINES, JSON)


class Recognition:
    """How a log of one format is told from its bytes, never from its name: a folder (holding
    a file of every one of ``keys``' names; a folder format without keys takes any folder,
    after those with keys), a file whose first bytes are ``magic``, a file of JSON lines whose
    first line is an object with every one of ``keys``, or a JSON object with every one of
    ``keys``."""

    def __init__(self, container: str, magic: bytes = b"", keys: Sequence[str] = (),
                 text: str = "") -> None:
        if container not in CONTAINERS:
            raise ValueError("a log is a %s, not a %s" % (" or ".join(CONTAINERS), container))
        self.container = container
        self.magic = magic
        self.keys = tuple(keys)
        self.text = text or {JSON: "an object with %s" % self.keys_text,
                             LINES: "JSON lines, the first an object with %s" % self.keys_text,
                             FOLDER: "a folder with %s" % " and ".join(self.keys)
                             if self.keys else "a folder"}.get(container, "")

    @property
    def keys_text(self) -> str:
        """The keys in words: ``"version" and "eval"``."""
        return " and ".join('"%s"' % key for key in self.keys)

    def matches_head(self, head: bytes) -> bool:
        """A file's first bytes are this format's (a :data:`BYTES` recognition)."""
        return self.container == BYTES and head.startswith(self.magic)

    def matches_value(self, value: JSONObject) -> bool:
        """A decoded JSON object is this format's (a :data:`JSON` recognition)."""
        return self.container == JSON and all(key in value for key in self.keys)

    def matches_first_line(self, value: object) -> bool:
        """A file's decoded first line is this format's (a :data:`LINES` recognition)."""
        return (self.container == LINES and isinstance(value, dict)
                and all(key in value for key in self.keys))


class LogFormat(NamedTuple):
    """One kind of log: its name (the provenance's ``log_format``), what it is in words
    (``an Inspect AI .eval log``), how it is recognised, its name in the import command's
    help (``.eval``) and, optionally, a near miss: a JSON
    object that is a part of such a log given on its own (``near_miss``), and what to do
    instead (``near_miss_fix``). A format of JSON lines with no keys of its own (any object
    on the first line) is read only when the mapping gives ``mapping_key``, which says where
    its lines hold the record's fields."""

    name: str
    what: str
    recognised: Recognition
    help_name: str
    near_miss: Optional[Recognition] = None
    near_miss_fix: str = ""
    mapping_key: str = ""

    @property
    def expected(self) -> str:
        """The format as an error names it: ``an Inspect AI .eval log (a zip)``."""
        if self.recognised.container == FOLDER:
            return self.what
        return "%s (%s)" % (self.what, self.recognised.text)


class Source:
    """A source of a trial's final state or cost the mapping may name (``final_state.source``,
    ``cost.source``): its name, and for a source that needs the mapping's ``key``, what the
    key names (``needs_key``)."""

    def __init__(self, name: str, needs_key: str = "") -> None:
        self.name = name
        self.needs_key = needs_key


class Harness:
    """One harness (see the module docstring). ``case_word`` and ``trial_word`` are what its
    logs call a case and a trial (``sample``, ``epoch``), as the import's messages name them;
    ``trace_unit`` what holds one trial in its log, as a results v5 record's trace reference
    names it (``sample``: the unit its own viewer shows); what its columns of the docs' tables
    say is its row of :mod:`.harness_docs`."""

    def __init__(self, name: str, title: str, formats: Sequence[LogFormat],
                 final_states: Sequence[Source], costs: Sequence[Source], case_word: str,
                 trial_word: str, trace_unit: str) -> None:
        self.name = name
        self.title = title
        self.formats = tuple(formats)
        self.final_states = tuple(final_states)
        self.costs = tuple(costs)
        self.case_word = case_word
        self.trial_word = trial_word
        self.trace_unit = trace_unit

    @property
    def final_state_names(self) -> Tuple[str, ...]:
        return tuple(source.name for source in self.final_states)

    @property
    def cost_names(self) -> Tuple[str, ...]:
        return tuple(source.name for source in self.costs)


# -- Inspect AI ---------------------------------------------------------------------------
INSPECT_EVAL = "inspect-eval"
INSPECT_JSON = "inspect-json"
# Where its trial's final state comes from: a scorer's answer, a scorer's value, or a key of
# the sample's store; its cost: the sample's model usage in tokens or in money.
SCORE_ANSWER = "score_answer"
SCORE_VALUE = "score_value"
STORE = "store"
TOTAL_TOKENS = "total_tokens"
TOTAL_COST = "total_cost"

# A zip's first bytes: the signature of its first local file header.
ZIP_MAGIC = b"PK\x03\x04"

INSPECT_AI = Harness(
    "inspect_ai", "Inspect AI",
    formats=[
        LogFormat(INSPECT_EVAL, "an Inspect AI .eval log",
                  Recognition(BYTES, magic=ZIP_MAGIC, text="a zip"), ".eval"),
        LogFormat(INSPECT_JSON, "an Inspect AI .json log",
                  Recognition(JSON, keys=("version", "eval")), ".json"),
    ],
    final_states=[Source(SCORE_ANSWER), Source(SCORE_VALUE),
                  Source(STORE, needs_key="the store key that holds the final state")],
    costs=[Source(TOTAL_TOKENS), Source(TOTAL_COST)],
    case_word="sample", trial_word="epoch", trace_unit="sample")

# -- tau2-bench ---------------------------------------------------------------------------
TAU2_JSON = "tau2-results-json"
TAU2_DIR = "tau2-results-dir"
# Where its trial's final state comes from: the database check (with the environment
# assertions), or the reward; its cost: the agent's cost.
DB_CHECK = "db_check"
REWARD = "reward"
AGENT_COST = "agent_cost"

TAU2_BENCH = Harness(
    "tau2-bench", "tau2-bench",
    formats=[
        LogFormat(TAU2_JSON, "a tau2-bench results.json",
                  Recognition(JSON, keys=("info", "simulations")), "results.json"),
        # Any folder: the last folder format, since it takes every folder.
        LogFormat(TAU2_DIR, "a tau2-bench results folder", Recognition(FOLDER), "results folder",
                  near_miss=Recognition(JSON, keys=("info", "simulation_index")),
                  near_miss_fix="the results.json of a tau2-bench results folder (its "
                                "simulations are files of the simulations/ folder beside "
                                "it): pass the folder itself"),
    ],
    final_states=[Source(DB_CHECK), Source(REWARD)], costs=[Source(AGENT_COST)],
    case_word="task", trial_word="trial", trace_unit="simulation")

# -- SWE-bench ----------------------------------------------------------------------------
SWEBENCH_SUMMARY = "swebench-summary"
# Where its trial's final state comes from: the evaluation's resolution of the instance; its
# cost: none (the evaluation records neither a cost nor a time).
RESOLUTION = "resolution"
NOT_RECORDED = "not_recorded"

SWE_BENCH = Harness(
    "swebench", "SWE-bench",
    formats=[
        LogFormat(SWEBENCH_SUMMARY, "a SWE-bench run summary",
                  Recognition(JSON, keys=("submitted_ids", "resolved_ids")), "run summary"),
    ],
    final_states=[Source(RESOLUTION)], costs=[Source(NOT_RECORDED)],
    case_word="instance", trial_word="run", trace_unit="instance")

# -- Harbor -------------------------------------------------------------------------------
HARBOR_JOB = "harbor-job"
# Where its trial's final state comes from: the verifier's reward (``final_state.key``
# names it: default ``reward``, or the only one); its cost: the agent's cost in US dollars,
# or its tokens (input plus output).
VERIFIER_REWARD = "verifier_reward"
COST_USD = "cost_usd"
AGENT_TOKENS = "agent_tokens"

HARBOR = Harness(
    "harbor", "Harbor",
    formats=[
        LogFormat(HARBOR_JOB, "a Harbor job folder",
                  Recognition(FOLDER, keys=("config.json", "result.json")), "job folder"),
    ],
    final_states=[Source(VERIFIER_REWARD)], costs=[Source(COST_USD), Source(AGENT_TOKENS)],
    case_word="task", trial_word="attempt", trace_unit="trial")

# -- promptfoo ----------------------------------------------------------------------------
PROMPTFOO_JSON = "promptfoo-results-json"
# Where its trial's final state comes from: whether every assertion passed, or the
# provider's output; its cost: the result's token usage, or its cost.
ASSERTIONS = "assertions"
OUTPUT = "output"
TOKEN_USAGE = "token_usage"
RESULT_COST = "cost"

PROMPTFOO = Harness(
    "promptfoo", "promptfoo",
    formats=[
        LogFormat(PROMPTFOO_JSON, "a promptfoo results.json",
                  Recognition(JSON, keys=("evalId", "results", "config")),
                  "--output results.json"),
    ],
    final_states=[Source(ASSERTIONS), Source(OUTPUT)],
    costs=[Source(TOKEN_USAGE), Source(RESULT_COST)],
    case_word="test", trial_word="repetition", trace_unit="result")

# -- JSON lines ---------------------------------------------------------------------------
JSONL = "jsonl"
# Its final state and cost come from the mapping's ``lines`` pointers.
LINES_SOURCE = "lines"

JSON_LINES = Harness(
    "jsonl", "JSON lines",
    formats=[
        LogFormat(JSONL, "a JSON-lines log",
                  Recognition(LINES, text="JSON lines: an object on each line, one line per "
                                          "trial"),
                  ".jsonl (with a v2 mapping's `lines`)", mapping_key="lines"),
    ],
    final_states=[Source(LINES_SOURCE)], costs=[Source(LINES_SOURCE)],
    case_word="case", trial_word="trial", trace_unit="line")

# -- the table ----------------------------------------------------------------------------
HARNESSES: Tuple[Harness, ...] = (INSPECT_AI, TAU2_BENCH, SWE_BENCH, HARBOR, PROMPTFOO,
                                  JSON_LINES)

HARNESS_BY_NAME: Dict[str, Harness] = {harness.name: harness for harness in HARNESSES}
# Every log format, in the order the import tries them within each container.
LOG_FORMATS_TABLE: Tuple[LogFormat, ...] = tuple(
    log_format for harness in HARNESSES for log_format in harness.formats)
LOG_FORMATS: Tuple[str, ...] = tuple(log_format.name for log_format in LOG_FORMATS_TABLE)
HARNESS_OF_FORMAT: Dict[str, Harness] = {log_format.name: harness for harness in HARNESSES
                                         for log_format in harness.formats}
FINAL_STATE_SOURCES: Tuple[str, ...] = tuple(
    name for harness in HARNESSES for name in harness.final_state_names)
# What a results v5 trace reference may name as its unit: each harness's own.
TRACE_UNITS: Tuple[str, ...] = tuple(harness.trace_unit for harness in HARNESSES)
HARNESS_OF_UNIT: Dict[str, Harness] = {harness.trace_unit: harness for harness in HARNESSES}
COST_SOURCES: Tuple[str, ...] = tuple(
    name for harness in HARNESSES for name in harness.cost_names)
# The final-state sources that need the mapping's final_state.key, and what it names.
KEYED_SOURCES: Dict[str, str] = {source.name: source.needs_key for harness in HARNESSES
                                 for source in harness.final_states if source.needs_key}
if (len(set(LOG_FORMATS)) != len(LOG_FORMATS) or len(HARNESS_BY_NAME) != len(HARNESSES)
        or len(HARNESS_OF_UNIT) != len(HARNESSES)):
    raise RuntimeError("a harness, a log format or a trace unit is declared twice")


def formats_help() -> str:
    """The log formats in the import command's help: ``Inspect AI .eval or .json, ...``."""
    return ", ".join("%s %s" % (harness.title, " or ".join(
        log_format.help_name for log_format in harness.formats)) for harness in HARNESSES)


def expected_formats() -> str:
    """Every format as an error lists what it expected: ``an Inspect AI .eval log (a zip),
    ... or a tau2-bench results folder``."""
    shown = [log_format.expected for log_format in LOG_FORMATS_TABLE]
    return ", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else shown[0]
