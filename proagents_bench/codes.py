"""Every error code, declared once: a row per code with the status it ends in and one line
of meaning.

Three kinds of code:

- a **contract error** (:func:`contract`): one entry of a CONTRACT_ERROR document, which
  every command ends with exit status :data:`CONTRACT_ERROR_EXIT` (the gate, ``import``,
  ``plan``, the service's commands; the private-test service answers a team's with HTTP 422,
  ``service.contract_error``, carrying the same document);
- a **problem** of the private-test service (:func:`problem`): an RFC 9457 answer with its
  HTTP status and title (``service/problems.py``);
- a **trace problem** (:func:`trace_problem`): why ``explain`` cannot show a trial's trace,
  said in its explanation beside everything else; it ends no run (the decision stands
  without the trace).

The modules raise their codes as literals; a test reads the package's source and holds both
directions (every code raised is a row here; every row is raised somewhere), and the docs'
lists of codes (docs/contract.md, docs/importing.md, docs/service.md) are written from these
rows by ``python -B -m devtools publish`` (:func:`code_table`). A rule of the contract
(``contract/shapes.py``'s :class:`Rule`) takes its statement from its row here. Codes never
change meaning; new ones may be added.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, NamedTuple, Tuple

# The exit status of every contract error (cli/status.py's EXIT_CONTRACT_ERROR is this).
CONTRACT_ERROR_EXIT = 2

# The codes of a command line that cannot run as given (exit 2 as every contract error): on
# stderr they read as usage errors, ``ERROR: usage: [FILE: ]MESSAGE``, with no position
# fields, since they concern no place in a file.
USAGE_CODES = frozenset(("cli.usage", "cli.missing_input", "cli.no_example",
                         "cli.report_path", "cli.no_database"))


class Code(NamedTuple):
    """One code: its name, its exit status (a contract error; else 0) or HTTP status and
    title (a problem of the service; else 0 and ""), and one line of meaning."""

    code: str
    meaning: str
    exit_status: int = 0
    http_status: int = 0
    title: str = ""

    @property
    def family(self) -> str:
        """The part before the dot: ``json`` of ``json.syntax``."""
        return self.code.partition(".")[0]


def contract(code: str, meaning: str) -> Code:
    """A contract error's row."""
    return Code(code, meaning, exit_status=CONTRACT_ERROR_EXIT)


def trace_problem(code: str, meaning: str) -> Code:
    """A trace problem's row: said in an explanation, never an exit status of its own."""
    return Code(code, meaning)


def problem(code: str, http_status: int, title: str, meaning: str) -> Code:
    """A problem's row: its HTTP status, its title (the problem document's ``title``) and
    when it is answered."""
    return Code(code, meaning, http_status=http_status, title=title)


CODES: Tuple[Code, ...] = (
    # -- reading a file (jsonio/load.py) ---------------------------------------------------
    contract("file.unreadable", "the file cannot be read: missing, a folder, no permission, "
             "or a pipe that delivers nothing for 60 seconds"),
    contract("file.too_large", "the file is larger than 1 GiB (`MAX_FILE_BYTES`)"),
    contract("file.empty", "the file is empty, or holds only a UTF-8 byte-order mark"),
    contract("encoding.utf16", "the file is UTF-16 (a byte-order mark, or its pattern of NUL "
             "bytes): re-save it as UTF-8"),
    contract("encoding.utf32", "the file is UTF-32: re-save it as UTF-8"),
    contract("encoding.invalid_utf8", "the file is not valid UTF-8, at the first bad byte"),
    contract("json.syntax", "not JSON: trailing data, comments, a missing comma ..."),
    contract("json.non_standard_constant", "`NaN`, `Infinity` or `-Infinity`, which standard "
             "JSON does not have"),
    contract("json.duplicate_key", "a key twice in one object, at any depth"),
    contract("json.lone_surrogate", "a string escape of a lone surrogate (`\"\\ud800\"`), "
             "which is no Unicode character"),
    contract("json.number_out_of_range", "a number that is not finite as an IEEE double, or "
             "an integer beyond +/-(2^53-1) (I-JSON, RFC 7493)"),
    contract("json.exponent_too_large", "a number whose exponent is outside -400..400 "
             "(`MAX_NUMBER_EXPONENT`)"),
    contract("json.number_too_long", "a number literal of more than 100 characters "
             "(`MAX_NUMBER_LITERAL_CHARS`)"),
    contract("json.too_deep", "nesting deeper than 64 levels (`MAX_DEPTH`)"),
    contract("json.root_not_object", "the top level of the file is not an object"),
    # -- the shapes of the files (contract/shapes.py, containers.py) ------------------------
    contract("schema.missing_key", "a required key is missing (and no unknown key of its "
             "object is near its name: then `schema.unknown_key` says both)"),
    contract("schema.unknown_key", "a key the object does not have; one near the name of a "
             "key the object lacks (`final_stat`) is one error naming that key, which is not "
             "reported missing again"),
    contract("schema.type", "a value of the wrong type (an integer written `8.0` too)"),
    contract("schema.range", "a number below the minimum or above the maximum"),
    contract("schema.enum", "a string that is not one of the allowed values"),
    contract("schema.const", "a value other than the one allowed"),
    contract("schema.blank_string", "an empty or whitespace-only string"),
    contract("schema.duplicate_item", "the same item twice in a set of strings"),
    contract("schema.too_few_items", "an array with fewer items than allowed"),
    contract("schema.too_many_items", "an array with more items than allowed"),
    contract("schema.pattern", "a string that does not match its pattern"),
    contract("schema.critical_gate_below_task_gate",
             "critical_task_min_trial_success_rate >= task_min_trial_success_rate"),
    contract("version.unsupported", "a `schema_version` missing, not a string, or not one of "
             "the file kind's (the message names the kind it is of, if any)"),
    # -- the rules across objects and files (contract/inputs.py, contract/rules.py) ----------
    contract("version.mismatch", "cases and results carry the spec's `benchmark_id` and "
             "`benchmark_version`; results carry the cases' `dataset_version`"),
    contract("cases.private_flag", "`is_private` is true exactly when split is `test`"),
    contract("cases.duplicate_id", "case ids are unique"),
    contract("cases.missing_split", "all three splits (`train`, `development`, `test`) are "
             "present, but those a cases v2 file declares in `absent_splits`"),
    contract("cases.absent_split_present", "a split declared in `absent_splits` (cases v2) "
             "holds no case"),
    contract("cases.split_contamination", "a family appears in one split only"),
    contract("results.duplicate_system_id", "`system_id` is unique"),
    contract("results.infrastructure_success", "no record whose `failure_origin` is "
             "`infrastructure` has status `success` (results v6): a trial the infrastructure "
             "lost did not pass"),
    contract("results.roles", "exactly one baseline, whose id is the spec's "
             "`baseline_system_id`, and exactly one candidate"),
    contract("results.trace_log", "a record's `trace` (results v5) names a log of its "
             "system's `provenance.logs`, and the unit of that log's harness"),
    contract("cli.unknown_candidate", "`--candidate`, when given, names the results' "
             "candidate"),
    contract("coverage.missing", "every test case id times trial ids 1..`trial_count` of the "
             "system's own protocol has a record"),
    contract("coverage.duplicate", "no (case, trial) has two records"),
    contract("coverage.unknown_case", "no record names a case id that the cases file lacks"),
    contract("coverage.not_test_case", "no record names a train or development case"),
    contract("coverage.trial_out_of_range", "no trial id exceeds the system's `trial_count`"),
    # -- a sequential design (spec v5: contract/sequential.py, contract/rules.py) -----------
    contract("sequential.looks", "a sequential design's `looks` grow: each holds at least the "
             "tasks and the trials of the one before and more of one of them; the last "
             "look's `trials` is `protocol.trial_count`; with `unit` `task` every look's "
             "`trials` is `protocol.trial_count`"),
    contract("sequential.design", "a sequential design can be built: the margin of its "
             "level's interval gate above -1, `win_share` above the share of the null it "
             "implies, `power` above 0.5, and `max_discordant` large enough to reach that "
             "power at `win_share` (the message says the power it can reach)"),
    contract("sequential.pool", "the cases' test split is the sequential design's frozen "
             "pool (`pool_sha256`, the test case ids in the order of `order_seed`), with at "
             "least the last look's tasks"),
    contract("sequential.look", "a results package under a sequential design is one of its "
             "looks: its records name exactly the first `tasks` test cases of the frozen pool "
             "of a look whose `trials` is the candidate's `trial_count`"),
    # -- the ledger of looks (--ledger: contract/ledger.py, evaluation/ledger.py) -------------
    contract("ledger.damaged", "the ledger's looks are numbered 1, 2, ..., their "
             "`batch_sha256` is that of their records, their `chain_sha256` that of the "
             "ledger's head and every look up to theirs (every member), and `closed` is what "
             "the last look's `state` says (a ledger edited by hand is refused)"),
    contract("ledger.design_kind", "a ledger's `design` is an object exactly when its `kind` "
             "is `sequential` (null for `fixed`)"),
    contract("ledger.other_run", "a sequential design's ledger holds the looks of one "
             "benchmark, baseline and candidate; a fixed design's ledger those of one "
             "benchmark"),
    contract("ledger.design_changed", "the spec, the cases file, the spec's sequential "
             "design and the boundary rebuilt from it are those of the ledger's first look (or the ledger is of a "
             "fixed design and the spec has a sequential one, or the other way round)"),
    contract("ledger.closed", "no look after the one at which the sequential design decided "
             "(passed, stopped for futility, reached its last look, or blocked)"),
    contract("ledger.look_not_allowed", "the package is the look after the ledger's last "
             "(a new ledger starts at look 1), or the ledger's last look itself unchanged; the "
             "message names the tasks and trials of the look expected"),
    contract("ledger.look_unmeasured", "a package judged with a ledger carries an outcome: "
             "at least one trial it adds to the looks before (a fixed design: any trial) has "
             "a status other than `unknown`; one that carries none (init's results template) "
             "is not a look, and nothing of it is recorded"),
    contract("ledger.trial_dropped", "every trial an earlier look recorded is still in the "
             "package"),
    contract("ledger.trial_changed", "every trial an earlier look recorded is unchanged (its "
             "record's digest)"),
    contract("ledger.path_changed", "each earlier look's units, discordant units and the "
             "candidate's wins, recomputed from the package, are those the ledger recorded"),
    contract("ledger.trial_reordered", "no trial an earlier look recorded has moved to "
             "another trial id of its task and system"),
    # -- the command line --------------------------------------------------------------------
    contract("cli.usage", "the command line is wrong: an unknown or missing option, an empty "
             "path, a bad value"),
    contract("cli.missing_input", "an input not given where the shipped example may not "
             "stand in for it: a file given is not the example's, or the working folder "
             "holds a benchmark's files as `init` names them"),
    contract("cli.no_example", "no input file given, and the shipped example is not there "
             "(an installed package has none)"),
    contract("cli.report_path", "a report or output path names an input, another output, or "
             "a file inside an input folder"),
    contract("cli.report_unwritable", "a report or output file cannot be written (nothing is "
             "left half-written)"),
    contract("cli.plan", "`plan`: a package or setting it cannot plan from"),
    contract("cli.team", "`team`: an unknown team, a bad budget, a rounding step finer than "
             "the test set allows"),
    contract("cli.phase", "`phase` and `serve`: a phase already open, files other than the "
             "phase's, a split that leaves a part empty"),
    contract("cli.backup", "`backup` and `restore`: a target that exists (a "
             "symbolic link too), a data folder holding a database already (`restore`), a file that is not the service's database, a copy whose "
             "stored digests do not match; nothing is left behind"),
    contract("cli.init_exists", "`init`: a file it would write exists (it overwrites only with "
             "`--force`)"),
    contract("cli.baseline_protocol", "`serve`: the baseline ran under another protocol than "
             "the spec's, so every submission would be INCOMPARABLE"),
    contract("cli.serve_sequential", "`serve` and `phase`: a spec with a sequential design "
             "(the private-test service decides each submission once, never as a look of a "
             "design)"),
    contract("cli.no_database", "`team`, `phase` and `backup`: the `--data` folder holds no "
             "service database (a mistyped path, most likely); nothing is created there "
             "(`serve --data DIR` creates one, `restore` makes one from a backup)"),
    contract("cli.data", "`health --data`: no service database, a `service.sqlite3` that is "
             "not the service's database, or no scored submission of the cases' versions"),
    contract("cli.out_of_memory", "the command ran out of memory on inputs this large "
             "(`health`: it holds the cases file and one package at a time); the message says "
             "how much memory their size needs"),
    # -- the maintainer's commands (maintenance/) --------------------------------------------
    contract("health.partial_look", "`health`: a results package that is a look of a "
             "sequential design holding only part of the test cases (health pools packages "
             "that hold every test case)"),
    contract("health.nothing_comparable", "`health`: no system ran under the spec's protocol, "
             "so nothing can be measured"),
    contract("diff.other_benchmark", "`diff`: both files are versions of one `benchmark_id`"),
    contract("diff.same_dataset_version", "`diff`, and `serve` for a changed cases file under "
             "a version it has served: a new cases file that changes a test case's answers, "
             "grading rules or input, or which cases are test cases, has a new "
             "`dataset_version`"),
    contract("diff.same_protocol_version", "`diff`: a new spec that changes the protocol has a "
             "new `protocol_version`"),
    # -- the release command (contract/release.py, release.py) -----------------------------
    contract("release.duplicate_name", "benchmark names are unique, compared without case"),
    contract("release.no_deciding_benchmark", "at least one benchmark is `critical` or "
             "`supporting` (info benchmarks alone would decide nothing)"),
    contract("release.path", "every path is relative to the manifest's folder, with `/` "
             "between folders: no leading or trailing `/`, no colon (a drive letter), no "
             "backslash, no control character"),
    contract("release.evidence", "a benchmark gives exactly one of `results` and `import`"),
    contract("release.cases", "`cases` is required with `results`; with `import` it is "
             "optional (absent: the cases file is built from the logs, as `import "
             "--write-cases` builds it, and only then may `train_logs` and `development_logs` "
             "be given)"),
    contract("release.benchmark_contract_error", "`release`: a benchmark's own files (or "
             "logs) are not valid; its own errors follow this one"),
    # -- the private-test service's own contract error ---------------------------------------
    contract("submission.baseline_given", "a submission holds a system with role `baseline` "
             "(the service adds the maintainer's)"),
    # -- the import command (importers/) ------------------------------------------------------
    contract("import.unreadable", "the log cannot be read: missing, not a regular file (a "
             "FIFO), no permission"),
    contract("import.same_log", "the baseline's and the candidate's logs are the same bytes, "
             "or logs of the same run (its run id): a run compared with itself decides "
             "nothing"),
    contract("import.format", "not a log this importer reads; a folder without "
             "`results.json` or `simulations/`; the `results.json` of a results folder given "
             "instead of the folder; a simulation file its `simulation_index` does not list; "
             "a Harbor job folder without `config.json` or `result.json`, or a trial's folder "
             "given instead of its job's"),
    contract("import.too_large", "a JSON log or a folder's file over 1 GiB, a zip entry over "
             "512 MiB uncompressed (or declaring so), or a results or cases file that would be "
             "over the 1 GiB the gate reads"),
    contract("import.json", "an entry or log that is not JSON or not UTF-8 (at its line and "
             "column), or nested too deeply to decode (on PyPy, more than 200 deep)"),
    contract("import.zip_corrupt", "a truncated zip, a damaged entry, a CRC mismatch, an "
             "entry larger than it declares"),
    contract("import.zip_compression", "a zip entry of a compression no decoder here reads, "
             "or an encrypted one"),
    contract("import.format_version", "no log version, or one the importer does not read (an "
             "Inspect log newer than major version 2; a tau2 `format_version` other than 1)"),
    contract("import.missing_field", "a field the record or the mapping needs (a named "
             "scorer, `trial`, a listed simulation file, a protocol value neither the log nor "
             "the mapping gives)"),
    contract("import.field_type", "such a field of the wrong type; a time, token count, cost "
             "or limit that is negative, NaN, infinite or above 10^12 (an integer literal of "
             "more than 100 digits is read as the float it approximates); an integer cost "
             "beyond 2^53-1; a final state nested more than 200 deep; a string of a record "
             "with a lone surrogate such as `\\ud800`, which is no Unicode character"),
    contract("import.sample_id", "a sample id that is not a non-blank string or an integer; "
             "an instance a SWE-bench summary lists under two outcomes"),
    contract("import.sample_epoch", "an epoch (a tau2 trial plus 1) that is not an integer "
             "from 1 to 2^53-1, or beyond the protocol's `trial_count`"),
    contract("import.duplicate_sample", "a (sample, epoch) or (task, trial) pair twice, or one "
             "Harbor trial in two folders of its job, naming both places"),
    contract("import.duplicate_log", "one log (the same bytes, or the same run id) given twice "
             "for one system: its trials would count twice"),
    contract("import.logs_differ", "the logs of one system record different protocols (other "
             "than their trial counts), models or task versions, or one Harbor job's trials of "
             "a task different task checksums: they are not one system's trials"),
    contract("import.several_agents", "a Harbor job that ran several agents, or a trial of "
             "an agent other than its job's (by its own config, the name its agent gives "
             "itself, its model): a system is one agent (a job of its own each)"),
    contract("import.cases_mismatch", "a test case one log lacks, a sample of a case the "
             "cases file (or the baseline log) lacks, a case in two split logs"),
    contract("import.metadata", "a split, critical flag or tool list of the wrong kind in a "
             "sample's metadata or the mapping"),
    contract("import.protocol", "a protocol value the contract refuses (one epoch; beyond "
             "2^53-1), at its path in the log"),
    contract("import.incomplete_run", "a run that did not finish, or whose log lacks samples "
             "its header lists (`--missing-as unknown` records them instead)"),
    contract("import.no_samples", "a finished run whose log holds no sample at all"),
    contract("import.side_effect_tools", "a tau2 domain or tool whose write tools are not "
             "known: name them in the mapping's `side_effect_tools`"),
    contract("import.system_id", "a log that names no model and no `--baseline-id` or "
             "`--candidate-id`, or two systems of one name"),
    contract("import.invalid_result", "the package would break the contract (an id or a "
             "system name the contract refuses), at its path in the output"),
    contract("import.invalid_cases", "the built cases file would break the contract, at its "
             "path in the output"),
    contract("import.invalid_spec", "`init`: a file it builds (from a log's values) would "
             "break the contract, at its path in the built file"),
    # -- promptfoo results and JSON-lines logs (importers/promptfoo.py, importers/jsonl.py) ---
    contract("import.several_systems", "a promptfoo results file of more than one provider or "
             "prompt: one system per file"),
    contract("import.lines_mapping", "a JSON-lines log imported without the mapping's `lines` "
             "(a v2 mapping), which says where each line gives the record's fields"),
    contract("import.status_value", "a JSON-lines status value that the mapping's "
             "`lines.status.values` does not name, at its line"),
    contract("mapping.lines_success", "`lines` gives both `final_state` and `success`, or "
             "`success` both `equals` and `at_least`"),
    contract("mapping.final_state_source", "a `final_state.source` the log's harness does not "
             "have"),
    contract("mapping.final_state_key", "`final_state.source` `store` without `key`"),
    contract("mapping.cost_source", "a `cost.source` the log's harness does not have"),
    contract("mapping.protocol_conflict", "a protocol value of the mapping that the log "
             "records otherwise"),
    contract("mapping.unknown_case", "a case id of `cases` that no log has a sample of (nor "
             "lists in its header)"),
    contract("mapping.unknown_metadata_key", "a `metadata_keys` value that no sample's "
             "metadata holds"),
    contract("mapping.unknown_tool", "a `side_effect_tools` tool that no log calls or offers"),
    contract("mapping.unknown_store_key", "a `side_effect_store_keys` key that no sample's "
             "store holds"),
    # -- a trial's trace, as explain reads it (importers/trace_bytes.py and the trace readers)
    trace_problem("trace.log_missing", "the log (or the file of it the trace is in) is not "
                  "where `--baseline` or `--candidate` says, or cannot be read"),
    trace_problem("trace.log_changed", "the bytes the trace is read from are not the ones "
                  "the import read: their SHA-256 differs from the trace reference's, or the "
                  "unit is no longer where the reference says"),
    trace_problem("trace.log_damaged", "the log cannot be read where the trace is: a damaged "
                  "zip or entry (CRC-32), bytes that are not JSON"),
    trace_problem("trace.not_recorded", "the log records no trace of the trial: a JSON-lines "
                  "line, a SWE-bench summary whose run's evaluation folder was not beside it at "
                  "the import, a record without a trace reference"),
    # -- the private-test service's problems (service/problems.py) ---------------------------
    problem("service.bad_request", 400, "Bad request",
            "a malformed request line or `Content-Length`, a body shorter than declared, both "
            "`Content-Length` and `Transfer-Encoding`, more than one `Content-Length` value, "
            "a malformed final-board choice; the same code with 414 for a request line over "
            "64 KiB and 431 for too many headers (the HTTP layer's own checks)"),
    problem("service.unauthorized", 401, "A valid bearer token is required",
            "no token, a malformed one, an unknown one, a wrong secret (not told apart); with "
            "`WWW-Authenticate: Bearer`"),
    problem("service.token_revoked", 401, "This token was revoked",
            "the team's token was revoked"),
    problem("service.forbidden", 403, "This resource belongs to another team",
            "another team's submission"),
    problem("service.not_found", 404, "No such resource", "no such path or submission"),
    problem("service.method_not_allowed", 405, "Method not allowed",
            "a method the path does not take; `Allow` lists those it does"),
    problem("service.request_timeout", 408, "The request was not received in time",
            "the body stalled for longer than the socket timeout, or the request passed its "
            "deadline"),
    problem("service.conflict", 409, "The request conflicts with the service's state",
            "a final-board choice when no phase is open; a submission graded while a phase "
            "opened or closed, again and again (nothing stored)"),
    problem("service.length_required", 411, "Content-Length is required",
            "a body without `Content-Length` (chunked bodies are not accepted)"),
    problem("service.payload_too_large", 413, "The request body is too large",
            "`Content-Length` above the cap, answered before any of the body is read"),
    problem("service.unsupported_media_type", 415, "The body must be application/json",
            "a body whose `Content-Type` is not `application/json`"),
    problem("service.contract_error", 422, "The submission breaks the contract",
            "the submission breaks the contract: the members of the usual CONTRACT_ERROR "
            "document (`action`, `errors`, `omitted_error_count`, `harness`), each error in "
            "`submission.json`; no budget spent"),
    problem("service.over_budget", 429, "The team's submission budget is spent",
            "the budget is spent; `Retry-After`, `retry_after_seconds`, `budget`"),
    problem("service.internal_error", 500, "Internal error",
            "a bug; nothing but what the answer says was stored"),
    problem("service.unavailable", 503, "The service cannot answer as configured",
            "the open phase was opened with other files than the service serves"),
)

CODE_BY_NAME: Dict[str, Code] = {row.code: row for row in CODES}
if len(CODE_BY_NAME) != len(CODES):
    raise RuntimeError("a code is declared twice")


def meaning(code: str) -> str:
    """The one line of meaning of ``code`` (a KeyError for a code not declared here)."""
    return CODE_BY_NAME[code].meaning


def codes_of(families: Iterable[str]) -> List[Code]:
    """The rows of the given families (``import``, ``mapping``), in declaration order."""
    wanted = set(families)
    return [row for row in CODES if row.family in wanted]


def code_table(families: Iterable[str]) -> str:
    """The docs' table (Markdown) of the codes of ``families``: a problem's HTTP status and
    code, or a contract error's code and exit status (a trace problem's: none), with its
    meaning."""
    rows = codes_of(families)
    if rows and all(row.http_status for row in rows):
        lines = ["| HTTP | `code` | when |", "|---|---|---|"]
        lines += ["| %d | `%s` | %s |" % (row.http_status, row.code, row.meaning)
                  for row in rows]
    else:
        lines = ["| code | exit | meaning |", "|---|---|---|"]
        lines += ["| `%s` | %s | %s |" % (row.code, row.exit_status or "none (said in the "
                                          "explanation)", row.meaning) for row in rows]
    return "\n".join(lines) + "\n"
