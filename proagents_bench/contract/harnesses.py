"""The harnesses whose logs the import command reads, one row per harness: its log formats
(how each is told from its bytes), the mapping's final-state and cost sources it has (the
first of each its default), the mapping keys only it reads, the words its logs use, and what its columns of the
docs' tables say (what it fills by default, what becomes each record field).

Everything the contract says of harnesses comes from these rows: the results' provenance
(``log_format``, ``harness``; :mod:`.inputs`) and the mapping file's sources (:mod:`.mapping`)
and their docs; and so do the import command's help, the dispatch from a log to its reader
(``importers/formats.py``) and the mapping's defaults (``importers/settings.py``). Adding a
harness is one row here, one module in ``importers/`` with its reader and the reader's row
in ``importers/readers.py`` (the contract imports no importer: the link from a format to its
reader is made there); ``publish`` rewrites the schemas and the docs' tables. A log is one
file or one folder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional, Sequence, Tuple

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


class LogFormat:
    """One kind of log: its name (the provenance's ``log_format``), what it is in words
    (``an Inspect AI .eval log``), how it is recognised, its name in the import command's
    help (``.eval``) and, optionally, a near miss: a JSON
    object that is a part of such a log given on its own (``near_miss``), and what to do
    instead (``near_miss_fix``). A format of JSON lines with no keys of its own (any object
    on the first line) is read only when the mapping gives ``mapping_key``, which says where
    its lines hold the record's fields."""

    def __init__(self, name: str, what: str, recognised: Recognition, help_name: str,
                 near_miss: Optional[Recognition] = None, near_miss_fix: str = "",
                 mapping_key: str = "") -> None:
        self.mapping_key = mapping_key
        self.name = name
        self.what = what
        self.recognised = recognised
        self.help_name = help_name
        self.near_miss = near_miss
        self.near_miss_fix = near_miss_fix

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


# The docs' table of what the importer fills by default: its rows, in order (the package's
# ids, the system ids, the protocol's keys).
DEFAULT_ROWS = ("benchmark_id", "benchmark_version", "dataset_version", "result_set_version",
                "system ids", "protocol_version", "environment_id", "toolset_id",
                "reset_policy", "trial_count", "max_steps", "timeout_seconds", "retry_limit")
# The one default every harness shares: the import's own, from the logs' digests.
SHARED_DEFAULTS = {"result_set_version": "`import-` and 12 hex digits of the logs' SHA-256 "
                                         "(both logs', or every log's in order)"}
# The docs' table of what becomes each record field (the results' record, in order).
RECORD_ROWS = ("case_id", "trial_id", "status", "final_state", "tools_used", "side_effects",
               "latency_ms", "cost_units")


class Harness:
    """One harness (see the module docstring). ``case_word`` and ``trial_word`` are what its
    logs call a case and a trial (``sample``, ``epoch``), ``unit`` what holds one trial
    (``sample``); ``legend`` names the placeholders of its defaults column; ``defaults`` and
    ``records`` are its cells of the docs' tables (:data:`DEFAULT_ROWS`,
    :data:`RECORD_ROWS`); ``mapping_keys`` the optional mapping keys only it reads, each
    with what it means for it; ``cost_of`` what its cost sources are sums of; and
    ``side_effects_default`` what its side effects are when the mapping names none."""

    def __init__(self, name: str, title: str, formats: Sequence[LogFormat],
                 final_states: Sequence[Source], costs: Sequence[Source], case_word: str,
                 trial_word: str, unit: str, legend: str, defaults: Dict[str, str],
                 records: Dict[str, str], side_effects_default: str,
                 mapping_keys: Optional[Dict[str, str]] = None, cost_of: str = "") -> None:
        self.name = name
        self.title = title
        self.formats = tuple(formats)
        self.final_states = tuple(final_states)
        self.costs = tuple(costs)
        self.case_word = case_word
        self.trial_word = trial_word
        self.unit = unit
        self.legend = legend
        missing = [row for row in DEFAULT_ROWS if row not in defaults and
                   row not in SHARED_DEFAULTS] + [row for row in RECORD_ROWS
                                                  if row not in records]
        if missing:
            raise ValueError("harness %s: no docs cell for %s" % (name, ", ".join(missing)))
        self.defaults = dict(SHARED_DEFAULTS, **defaults)
        self.records = dict(records)
        self.side_effects_default = side_effects_default
        self.mapping_keys = dict(mapping_keys or {})
        self.cost_of = cost_of

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
    final_states=[Source(SCORE_ANSWER), Source(SCORE_VALUE), Source(STORE, needs_key="the store key that holds the final state")],
    costs=[Source(TOTAL_TOKENS), Source(TOTAL_COST)], cost_of="of the sample's model usage",
    case_word="sample", trial_word="epoch", unit="sample", legend="`TASK`: `eval.task`",
    defaults={
        "benchmark_id": "`TASK`",
        "benchmark_version": "`eval.task_version` (`0` when absent)",
        "dataset_version": "`eval.dataset.name`, else `TASK-samples`",
        "system ids": "`eval.model`",
        "protocol_version": "`inspect-TASK-vVERSION`",
        "environment_id": "`TASK`",
        "toolset_id": "`TASK-tools`",
        "reset_policy": "`fresh-sample-state`",
        "trial_count": "`eval.config.epochs` (absent: 1, Inspect's default, which the "
                       "contract refuses: run at least 2 epochs)",
        "max_steps": "`eval.config.message_limit` (absent: set `protocol.max_steps` in the "
                     "mapping)",
        "timeout_seconds": "`eval.config.time_limit`, else `working_limit` (absent: set "
                           "`protocol.timeout_seconds`)",
        "retry_limit": "`eval.config.retry_on_error` (absent: 0)",
    },
    records={
        "case_id": "`id` (a string, or an integer written in digits)",
        "trial_id": "`epoch`",
        "status": "`error` set: `error`; `limit` of type `time` or `working`: `timeout`, any "
                  "other limit (messages, tokens, cost): `error`; no score: `unknown`; else "
                  "`success`",
        "final_state": "the first score's `answer` (or, as `final_state` says, a named "
                       "scorer's, a score's `value`, or a `store` key's value)",
        "tools_used": "the `function` of every tool event (of the assistant messages' tool "
                      "calls when the sample has no events)",
        "side_effects": "the tools called that `side_effect_tools` names (default: every tool "
                        "called), and the store keys in `side_effect_store_keys` a store "
                        "event changed (see \"Side effects: which rule made each\")",
        "latency_ms": "`working_time` (else `total_time`) \u00d7 1000, to the microsecond; "
                      "`null` (not measured) when the sample has neither",
        "cost_units": "the sum over `model_usage` of `total_tokens` (or `total_cost`) \u00d7 "
                      "`cost.scale`; `null` when a model's `total_cost` is null (Inspect knows "
                      "no price for it)",
    },
    side_effects_default="every tool called",
    mapping_keys={
        "side_effect_store_keys": "store keys whose change is a side effect named by the key "
                                  "(default none)",
        "metadata_keys": "the sample metadata keys that hold each case's fields",
    })

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
    case_word="task", trial_word="trial", unit="simulation",
    legend="`DOMAIN`: `info.environment_info.domain_name`",
    defaults={
        "benchmark_id": "`tau2-DOMAIN`",
        "benchmark_version": "the first 12 characters of `info.git_commit` (`unversioned`)",
        "dataset_version": "`tau2-DOMAIN-tasks`",
        "system ids": "`info.agent_info.llm`",
        "protocol_version": "`tau2-DOMAIN-user-USERMODEL` (`info.user_info.llm`)",
        "environment_id": "`DOMAIN`",
        "toolset_id": "`DOMAIN-tools`",
        "reset_policy": "`fresh-environment-per-simulation`",
        "trial_count": "`info.num_trials`",
        "max_steps": "`info.max_steps`",
        "timeout_seconds": "never recorded: set `protocol.timeout_seconds`",
        "retry_limit": "0 (tau2 does not record retries)",
    },
    records={
        "case_id": "`task_id`",
        "trial_id": "`trial` + 1 (tau2 counts from 0)",
        "status": "`termination_reason`: `user_stop`, `agent_stop`: `success`; `timeout`: "
                  "`timeout`; `infrastructure_error` and reasons newer than the importer: "
                  "`unknown`; every other (`max_steps` too): `error`",
        "final_state": "`reward_info.db_check`: `db_match`, `db_mismatch`, or "
                       "`env_assertion_failed` when an environment assertion is not met; "
                       "`null` without a check (or by `reward`: `full_reward`, "
                       "`partial_reward`, `no_reward`)",
        "tools_used": "the assistant messages' tool calls",
        "side_effects": "the write tools called: `side_effect_tools`, by default the write "
                        "tools of the log's domain in tau2-bench's own source",
        "latency_ms": "`duration` \u00d7 1000; `null` when the simulation has none",
        "cost_units": "`agent_cost` \u00d7 `cost.scale`; `null` when `agent_cost` is null "
                      "(tau2-bench's voice runs leave it null, and its placeholder for a run "
                      "its infrastructure lost has none)",
    },
    side_effects_default="the write tools of the log's domain")

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
    cost_of="(the evaluation records no cost: `cost_units` is null)",
    case_word="instance", trial_word="run", unit="instance of a run summary",
    legend="`N`: the run's instances",
    defaults={
        "benchmark_id": "`swe-bench`",
        "benchmark_version": "`summary-v` and the summary's `schema_version`",
        "dataset_version": "`swe-bench-N-` and 12 hex digits of the SHA-256 of the instance "
                           "ids, sorted, one per line",
        "system ids": "none recorded: `--baseline-id` and `--candidate-id`",
        "protocol_version": "`swe-bench-run-evaluation`",
        "environment_id": "`swe-bench-docker`",
        "toolset_id": "`swe-bench-patch`",
        "reset_policy": "`fresh-container-per-instance`",
        "trial_count": "1 per summary (a run is one attempt per instance): give the runs of "
                       "a system as several logs, their trials numbered on in the order given",
        "max_steps": "never recorded: set `protocol.max_steps`",
        "timeout_seconds": "never recorded (the evaluation's `--timeout`): set "
                           "`protocol.timeout_seconds`",
        "retry_limit": "0 (the evaluation does not retry)",
    },
    records={
        "case_id": "the instance id",
        "trial_id": "1 (the run's number among the system's logs, in the order given)",
        "status": "in `infra_failure_ids` or `ambiguous_failure_ids` (an environment "
                  "failure, or one SWE-bench cannot tell the environment's or the agent's: "
                  "its own classification): `unknown`; in `error_ids`: `error`; in "
                  "`resolved_ids`, `unresolved_ids` or `empty_patch_ids`: `success`; one "
                  "instance under two of these outcomes: `import.sample_id`",
        "final_state": "`resolved`, `unresolved` or `empty_patch` (a failed trial: no patch "
                       "to evaluate); `null` for an error",
        "tools_used": "none (a summary records no trajectory): `[]`",
        "side_effects": "none: `[]`",
        "latency_ms": "`null` (not recorded)",
        "cost_units": "`null` (not recorded)",
    },
    side_effects_default="none (a summary records no tool call)")

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
    cost_of="of the trial's agent result", case_word="task", trial_word="attempt",
    unit="trial folder",
    legend="`DATASET`: `config.json` `datasets[0]` `name`@`version` (a package dataset's "
           "`ref` when it has no version: `sha256:` and 12 hex digits of a digest); `TASKS`: "
           "12 hex digits of the SHA-256 of each task's name and checksum (`lock.json`'s "
           "digest, else its trials' `task_checksum`)",
    defaults={
        "benchmark_id": "`datasets[0].name` of `config.json` (`harbor-tasks` without one)",
        "benchmark_version": "`datasets[0].version`, else its `ref` (`unversioned`)",
        "dataset_version": "`DATASET-tasks-TASKS`",
        "system ids": "`AGENT:MODEL`: `agents[0].name` (a custom agent's import path, "
                      "`module:Class`; or its `import_path`) and `model_name` of "
                      "`config.json`",
        "protocol_version": "`harbor-DATASET-tasks-TASKS` (and `-timeout-xM` for a "
                            "`timeout_multiplier` M other than 1): a task of another "
                            "checksum or dataset version is another protocol",
        "environment_id": "`harbor-` and `environment.type` of `config.json` (`docker`, "
                          "...), else the one the trials' own config ran (Harbor before 0.26 "
                          "writes no default), else `docker`",
        "toolset_id": "`harbor-environment`",
        "reset_policy": "`fresh-environment-per-trial`",
        "trial_count": "`n_attempts` (`-k`; absent: Harbor's default 1, which the contract "
                       "refuses: run `-k 2` or more, or give several jobs of the agent)",
        "max_steps": "never recorded: set `protocol.max_steps`",
        "timeout_seconds": "per task, never in the job: set `protocol.timeout_seconds`",
        "retry_limit": "`retry.max_retries`",
    },
    records={
        "case_id": "`task_name`",
        "trial_id": "the attempt: the task's trial folders numbered 1 to `n_attempts` in the "
                    "order of their names (Harbor names no attempt)",
        "status": "no `exception_info`: `success`; `AgentTimeoutError`: `timeout`; the "
                  "agent's own failures (`NonZeroAgentExitCodeError`, "
                  "`ContextWindowExceededError`, ...): `error`; every other exception "
                  "(environment, provider, verifier, cancelled, unknown): `unknown`",
        "final_state": "the verifier's reward as a number in text (`1`, `0`, `0.5`): "
                       "`verifier_result.rewards[reward]` (or the one `final_state.key` "
                       "names); `null` without a verifier result",
        "tools_used": "the `function_name` of every tool call of the ATIF trajectory "
                      "(`agent/trajectory.json`); none without one",
        "side_effects": "the tools called that `side_effect_tools` names (default: every "
                        "tool called)",
        "latency_ms": "`agent_execution` from `started_at` to `finished_at`, in ms; `null` "
                      "when the agent never ran (or Harbor recorded no time)",
        "cost_units": "`agent_result.cost_usd` (or `n_input_tokens` + `n_output_tokens`) "
                      "\u00d7 `cost.scale`; `null` when not recorded",
    },
    side_effects_default="every tool called")

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
    costs=[Source(TOKEN_USAGE), Source(RESULT_COST)], cost_of="of the result",
    case_word="test", trial_word="repetition", unit="result",
    legend="`TESTS`: 12 hex digits of the SHA-256 of the tests run",
    defaults={
        "benchmark_id": "`promptfoo-eval`",
        "benchmark_version": "`TESTS`",
        "dataset_version": "`promptfoo-TESTS`",
        "system ids": "the provider's `label`, else its `id`",
        "protocol_version": "`promptfoo-TESTS`",
        "environment_id": "`promptfoo`",
        "toolset_id": "`promptfoo-no-tools`",
        "reset_policy": "`fresh-provider-call`",
        "trial_count": "`runtimeOptions.repeat`, else `config.evaluateOptions.repeat` "
                       "(absent: 1, promptfoo's default, which the contract refuses: repeat "
                       "at least 2 times)",
        "max_steps": "1 (a test is one provider call)",
        "timeout_seconds": "`config.evaluateOptions.timeoutMs` / 1000 (absent: set "
                           "`protocol.timeout_seconds`)",
        "retry_limit": "0 (promptfoo does not record retries)",
    },
    records={
        "case_id": "the test's `description` (`testCase.description`); a result without "
                   "one is `import.sample_id`",
        "trial_id": "the result's place among its test's results, in file order (1, 2, "
                    "...): `repeat` writes one result per repetition, with no repetition "
                    "index",
        "status": "a provider error (`failureReason` 2, or `error` set without a "
                  "`gradingResult`): `error`; else `success`",
        "final_state": "`passed` when `success` is true (every assertion passed), else "
                       "`failed` (or, by `output`, the provider's `response.output` when it "
                       "is a string)",
        "tools_used": "none (a results file records no tool calls)",
        "side_effects": "none",
        "latency_ms": "`latencyMs`; `null` when absent",
        "cost_units": "`response.tokenUsage.total` (or `cost`) \u00d7 `cost.scale`; `null` "
                      "when absent",
    },
    side_effects_default="none (promptfoo records no tool calls)")

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
    cost_of="(the `lines` pointers)", case_word="case", trial_word="trial", unit="line",
    legend="each from the mapping",
    defaults={
        "benchmark_id": "`jsonl`",
        "benchmark_version": "`0`",
        "dataset_version": "`jsonl-cases`",
        "system ids": "`lines.system_id`, else `--baseline-id` and `--candidate-id`",
        "protocol_version": "`protocol.protocol_version` (the log gives no protocol value)",
        "environment_id": "`protocol.environment_id`",
        "toolset_id": "`protocol.toolset_id`",
        "reset_policy": "`protocol.reset_policy`",
        "trial_count": "`protocol.trial_count`",
        "max_steps": "`protocol.max_steps`",
        "timeout_seconds": "`protocol.timeout_seconds`",
        "retry_limit": "`protocol.retry_limit`",
    },
    records={
        "case_id": "`lines.case_id`",
        "trial_id": "`lines.trial_id` (plus 1 with `first_trial` 0)",
        "status": "`lines.status` through its `values`; `success` without it",
        "final_state": "`lines.final_state`, or by `lines.success`: `passed` or `failed`",
        "tools_used": "`lines.tools_used` (none without it)",
        "side_effects": "`lines.side_effects`, else the tools called that "
                        "`side_effect_tools` names",
        "latency_ms": "`lines.latency_ms`; `null` when absent",
        "cost_units": "`lines.cost` \u00d7 `cost.scale`; `null` when absent",
    },
    side_effects_default="`lines.side_effects`, else none")

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
COST_SOURCES: Tuple[str, ...] = tuple(
    name for harness in HARNESSES for name in harness.cost_names)
# The final-state sources that need the mapping's final_state.key, and what it names.
KEYED_SOURCES: Dict[str, str] = {source.name: source.needs_key for harness in HARNESSES
                                 for source in harness.final_states if source.needs_key}
if len(set(LOG_FORMATS)) != len(LOG_FORMATS) or len(HARNESS_BY_NAME) != len(HARNESSES):
    raise RuntimeError("a harness or a log format is declared twice")


def sources_text(kind: str) -> str:
    """The mapping's ``final_state.source`` or ``cost.source`` (``kind``) in words, per
    harness: ``Inspect AI: `score_answer` (default), `score_value` or `store`; ...``."""
    parts = []
    for harness in HARNESSES:
        names = ["`%s`" % name for name in (harness.final_state_names if kind == "final_state"
                                            else harness.cost_names)]
        names[0] += " (default)"
        listed = names[0] if len(names) == 1 else "%s or %s" % (", ".join(names[:-1]),
                                                                names[-1])
        of = " " + harness.cost_of if kind == "cost" and harness.cost_of else ""
        parts.append("%s: %s%s" % (harness.title, listed, of))
    return "; ".join(parts)


def harness_defaults(row: str) -> str:
    """A default of :data:`DEFAULT_ROWS` in words, per harness: ``Inspect AI `TASK`; ...``."""
    return "; ".join("%s %s" % (harness.title, harness.defaults[row]) for harness in HARNESSES)


def mapping_key_text(key: str) -> str:
    """What an optional mapping key that only some harnesses read means, per harness."""
    return "; ".join("%s: %s" % (harness.title, harness.mapping_keys[key])
                     for harness in HARNESSES if key in harness.mapping_keys)


def formats_help() -> str:
    """The log formats in the import command's help: ``Inspect AI .eval or .json, ...``."""
    return ", ".join("%s %s" % (harness.title, " or ".join(
        log_format.help_name for log_format in harness.formats)) for harness in HARNESSES)


def expected_formats() -> str:
    """Every format as an error lists what it expected: ``an Inspect AI .eval log (a zip),
    ... or a tau2-bench results folder``."""
    shown = [log_format.expected for log_format in LOG_FORMATS_TABLE]
    return ", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else shown[0]


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| %s |" % " | ".join(head), "|%s|" % "|".join("---" for _ in head)]
    lines += ["| %s |" % " | ".join(row) for row in rows]
    return "\n".join(lines) + "\n"


def formats_table() -> str:
    """The docs' table of the log formats: each format, its harness, what it is and how it
    is told from its bytes."""
    rows = []
    for log_format in LOG_FORMATS_TABLE:
        harness = HARNESS_OF_FORMAT[log_format.name]
        told = log_format.recognised.text
        if log_format.recognised.container == BYTES:
            told = "its first bytes: %s (`%s`)" % (told, repr(log_format.recognised.magic)[2:-1])
        elif log_format.recognised.container == JSON:
            told = "a JSON object with %s" % log_format.recognised.keys_text
        elif log_format.recognised.container == LINES and log_format.recognised.keys:
            told = "its first line: a JSON object with %s (JSON lines)" % (
                log_format.recognised.keys_text)
        elif log_format.recognised.container == LINES:
            told = ("its first line: a JSON object no format above claims, when the mapping "
                    "gives `%s`" % log_format.mapping_key)
        rows.append(("`%s`" % log_format.name, "%s (`%s`)" % (harness.title, harness.name),
                     log_format.what[log_format.what.index(" ") + 1:], told))
    return _table(("`log_format`", "harness (`harness`)", "the log", "told by"), rows)


def defaults_table() -> str:
    """The docs' table of what the importer fills by default, a column per harness."""
    head = ["value"] + ["%s (%s)" % (harness.title, harness.legend) for harness in HARNESSES]
    rows = []
    for row in DEFAULT_ROWS:
        cells = [harness.defaults[row] for harness in HARNESSES]
        if row in SHARED_DEFAULTS:
            cells = cells[:1] + ["the same"] * (len(cells) - 1)
        rows.append(["`%s`" % row if " " not in row else row] + cells)
    return _table(head, rows)


def records_table() -> str:
    """The docs' table of what becomes each record field, a column per harness."""
    head = ["record field"] + ["%s %s" % (harness.title, harness.unit) for harness in HARNESSES]
    return _table(head, [["`%s`" % row] + [harness.records[row] for harness in HARNESSES]
                         for row in RECORD_ROWS])
