"""What each harness's columns of the docs' tables say, one row per harness of
:mod:`.harnesses` (the row itself, not its name): what the importer fills by default
(:data:`DEFAULT_ROWS`), what becomes each record field (:data:`RECORD_ROWS`), what holds one
trial, what its cost sources are sums of, what its side effects are when the mapping names
none, and the optional mapping keys only it reads. Data for the docs: ``publish``'s tables
and the mapping schema's descriptions (:mod:`.mapping`); the results' checks read the rows
alone (:mod:`.inputs`), never this prose.

Every harness has its row here, checked when this module is imported; a row lacking a cell
of the tables is refused when it is made.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from .harnesses import (BYTES, HARNESS_OF_FORMAT, HARNESSES, HARBOR, INSPECT_AI, JSON,
                        JSON_LINES, LINES, LOG_FORMATS_TABLE, PROMPTFOO, SWE_BENCH, TAU2_BENCH,
                        Harness)

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
               "latency_ms", "cost_units", "trace")


class HarnessDocs:
    """The docs' cells of one harness (``harness``, its row): ``unit`` what holds one of its
    trials (``sample``); ``legend`` names the placeholders of its defaults column;
    ``defaults`` and ``records`` are its cells of the docs' tables (:data:`DEFAULT_ROWS`,
    :data:`RECORD_ROWS`), each required; ``side_effects_default`` what its side effects are
    when the mapping names none; ``mapping_keys`` the optional mapping keys only it reads,
    each with what it means for it; ``cost_of`` what its cost sources are sums of."""

    def __init__(self, harness: Harness, unit: str, legend: str, defaults: Dict[str, str],
                 records: Dict[str, str], side_effects_default: str,
                 mapping_keys: Optional[Dict[str, str]] = None, cost_of: str = "") -> None:
        missing = [row for row in DEFAULT_ROWS if row not in defaults and
                   row not in SHARED_DEFAULTS] + [row for row in RECORD_ROWS
                                                  if row not in records]
        if missing:
            raise ValueError("harness %s: no docs cell for %s" % (
                harness.name, ", ".join(missing)))
        self.harness = harness
        self.unit = unit
        self.legend = legend
        self.defaults = dict(SHARED_DEFAULTS, **defaults)
        self.records = dict(records)
        self.side_effects_default = side_effects_default
        self.mapping_keys = dict(mapping_keys or {})
        self.cost_of = cost_of


# -- Inspect AI ---------------------------------------------------------------------------
INSPECT_AI_DOCS = HarnessDocs(
    INSPECT_AI, unit="sample", legend="`TASK`: `eval.task`", cost_of="of the sample's model usage",
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
        "trace": "(`--trace-refs`) the sample's id and epoch, and an .eval log's entry "
                 "`samples/ID_epoch_N.json` (its bytes' SHA-256) or a .json log's index in "
                 "`samples`; `explain` reads its `messages`, `error` and `limit`",
    },
    side_effects_default="every tool called",
    mapping_keys={
        "side_effect_store_keys": "store keys whose change is a side effect named by the key "
                                  "(default none)",
        "metadata_keys": "the sample metadata keys that hold each case's fields",
    })

# -- tau2-bench ---------------------------------------------------------------------------
TAU2_BENCH_DOCS = HarnessDocs(
    TAU2_BENCH, unit="simulation", legend="`DOMAIN`: `info.environment_info.domain_name`",
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
        "trace": "(`--trace-refs`) the simulation's `id`, and a results folder's file "
                 "`simulations/ID.json` (its bytes' SHA-256) or a results.json's index in "
                 "`simulations`; `explain` reads its `messages`",
    },
    side_effects_default="the write tools of the log's domain")

# -- SWE-bench ----------------------------------------------------------------------------
SWE_BENCH_DOCS = HarnessDocs(
    SWE_BENCH, unit="instance of a run summary", legend="`N`: the run's instances",
    cost_of="(the evaluation records no cost: `cost_units` is null)",
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
        "trace": "(`--trace-refs`) the instance id, and its evaluation folder beside the "
                 "summary, `logs/run_evaluation/RUN/MODEL/INSTANCE` (the SHA-256 of its "
                 "`report.json` and `patch.diff`), where the run left one; `explain` reads "
                 "the patch and the tests the report says failed",
    },
    side_effects_default="none (a summary records no tool call)")

# -- Harbor -------------------------------------------------------------------------------
HARBOR_DOCS = HarnessDocs(
    HARBOR, unit="trial folder",
    legend="`DATASET`: `config.json` `datasets[0]` `name`@`version` (a package dataset's "
           "`ref` when it has no version: `sha256:` and 12 hex digits of a digest); `TASKS`: "
           "12 hex digits of the SHA-256 of each task's name and checksum (`lock.json`'s "
           "digest, else its trials' `task_checksum`)",
    cost_of="of the trial's agent result",
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
        "trace": "(`--trace-refs`) the trial's folder (the SHA-256 of its `result.json`, "
                 "`agent/trajectory.json` and `verifier/test-stdout.txt`); `explain` reads "
                 "the ATIF trajectory's steps, else the exception and the verifier's output",
    },
    side_effects_default="every tool called")

# -- promptfoo ----------------------------------------------------------------------------
PROMPTFOO_DOCS = HarnessDocs(
    PROMPTFOO, unit="result", legend="`TESTS`: 12 hex digits of the SHA-256 of the tests run",
    cost_of="of the result",
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
        "trace": "(`--trace-refs`) the result's row (`testIdx`) and its index in "
                 "`results.results`; `explain` reads the prompt, the response (or the "
                 "provider's error) and the assertions that failed",
    },
    side_effects_default="none (promptfoo records no tool calls)")

# -- JSON lines ---------------------------------------------------------------------------
JSON_LINES_DOCS = HarnessDocs(
    JSON_LINES, unit="line", legend="each from the mapping", cost_of="(the `lines` pointers)",
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
        "trace": "(`--trace-refs`) the line's number (the SHA-256 of its bytes); a line "
                 "holds no trace `explain` reads: the format has none of its own",
    },
    side_effects_default="`lines.side_effects`, else none")

# -- the table ----------------------------------------------------------------------------
HARNESS_DOCS: Tuple[HarnessDocs, ...] = (INSPECT_AI_DOCS, TAU2_BENCH_DOCS, SWE_BENCH_DOCS,
                                         HARBOR_DOCS, PROMPTFOO_DOCS, JSON_LINES_DOCS)


def docs_problems(docs: Sequence[HarnessDocs], harnesses: Sequence[Harness]) -> List[str]:
    """What keeps ``docs`` from being the docs of ``harnesses``, one row each: a harness
    without a row, one with two, a row of a harness that is not one of them."""
    rows = [row.harness for row in docs]
    return (["harness %s has no docs row" % harness.name for harness in harnesses
             if harness not in rows]
            + ["harness %s has %d docs rows" % (harness.name, rows.count(harness))
               for harness in harnesses if rows.count(harness) > 1]
            + ["a docs row of harness %s, which is not in the table" % harness.name
               for harness in rows if harness not in harnesses])


DOCS_OF: Dict[str, HarnessDocs] = {row.harness.name: row for row in HARNESS_DOCS}
_PROBLEMS = docs_problems(HARNESS_DOCS, HARNESSES)
if _PROBLEMS:
    raise RuntimeError("contract/harness_docs.py: " + "; ".join(_PROBLEMS))


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
        cost_of = DOCS_OF[harness.name].cost_of
        of = " " + cost_of if kind == "cost" and cost_of else ""
        parts.append("%s: %s%s" % (harness.title, listed, of))
    return "; ".join(parts)


def harness_defaults(row: str) -> str:
    """A default of :data:`DEFAULT_ROWS` in words, per harness: ``Inspect AI `TASK`; ...``."""
    return "; ".join("%s %s" % (harness.title, DOCS_OF[harness.name].defaults[row])
                     for harness in HARNESSES)


def mapping_key_text(key: str) -> str:
    """What an optional mapping key that only some harnesses read means, per harness."""
    return "; ".join("%s: %s" % (harness.title, DOCS_OF[harness.name].mapping_keys[key])
                     for harness in HARNESSES if key in DOCS_OF[harness.name].mapping_keys)


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
    head = ["value"] + ["%s (%s)" % (harness.title, DOCS_OF[harness.name].legend)
                        for harness in HARNESSES]
    rows = []
    for row in DEFAULT_ROWS:
        cells = [DOCS_OF[harness.name].defaults[row] for harness in HARNESSES]
        if row in SHARED_DEFAULTS:
            cells = cells[:1] + ["the same"] * (len(cells) - 1)
        rows.append(["`%s`" % row if " " not in row else row] + cells)
    return _table(head, rows)


def records_table() -> str:
    """The docs' table of what becomes each record field, a column per harness."""
    head = ["record field"] + ["%s %s" % (harness.title, DOCS_OF[harness.name].unit)
                               for harness in HARNESSES]
    return _table(head, [["`%s`" % row] + [DOCS_OF[harness.name].records[row]
                                           for harness in HARNESSES] for row in RECORD_ROWS])
