"""Whose a failed trial is, as each harness says it: one row per value of a log field the
harness writes, with the origin the import gives a trial that has it (a results v6 record's
``failure_origin``). The importers classify from these rows and ``publish`` writes the docs'
table from them, so the table is what the code does.

Three origins. ``agent``: the harness says the agent stopped the trial short itself (its own
error, its timeout, a limit of its own, an empty patch). ``infrastructure``: the harness says
the trial did not measure the agent (the environment, the model provider, the verifier, the
user simulator, a person who stopped it). None: the harness says neither (a trial that ran to
its end and was graded, or a failure it does not attribute); never guessed.

An ``infrastructure`` trial stays a failed trial under every spec version (the v1 grading:
its status is not ``success``); what the origin adds is that a decision counts such trials
per system and says so, and a spec v6 bounds them (the run is not evidence beyond them). A
failure classed ``infrastructure`` that was the agent's can therefore make a run
INCOMPARABLE, never make it PASS.
"""

from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

from .harnesses import HARBOR, HARNESSES, INSPECT_AI, JSON_LINES, PROMPTFOO, SWE_BENCH
from .harnesses import TAU2_BENCH, Harness

AGENT = "agent"
INFRASTRUCTURE = "infrastructure"
ORIGINS = (AGENT, INFRASTRUCTURE)


class OriginRow:
    """One line of a harness's classification: the log field that says it (``source``, in
    the docs' words), its values of this origin (``values``; empty: ``when`` says which
    trials, a rule of the harness's phases or of what no other row holds), the ``origin``
    (None: the harness says neither), ``why``: the harness's own word for it, with where in
    its source that word is, and the ``status`` the import gives such a trial (None: another
    row's, by the rest of the log)."""

    __slots__ = ("harness", "source", "values", "when", "origin", "why", "status")

    def __init__(self, harness: Harness, source: str, values: Sequence[str],
                 origin: Optional[str], why: str, status: Optional[str],
                 when: str = "") -> None:
        if origin is not None and origin not in ORIGINS:
            raise ValueError("an origin is %s or None, not %r" % (" or ".join(ORIGINS), origin))
        if not values and not when:
            raise ValueError("a row of %s names its values or says when it holds"
                             % harness.name)
        self.harness = harness
        self.source = source
        self.values = tuple(values)
        self.when = when
        self.origin = origin
        self.why = why
        self.status = status


def origin_of(rows: Sequence[OriginRow], value: object, default: Optional[str] = None
              ) -> Optional[str]:
    """The origin of the first of ``rows`` whose values hold ``value``; ``default`` when none
    does (a value newer than the table)."""
    for row in rows:
        if value in row.values:
            return row.origin
    return default


# -- Harbor: models/trial/error_policy.py (Harbor 0.26), keyed by ExceptionInfo.exception_type.
# Harbor's error policy says per exception type whether the verifier's reward is still valid
# (``has_valid_reward``): the types whose reward is valid are the agent's own doing; every
# other group is a trial that did not measure the agent.
HARBOR_AGENT_TIMEOUTS = ("AgentTimeoutError",)
HARBOR_AGENT_FAILURES = ("NonZeroAgentExitCodeError", "ContextWindowExceededError",
                         "OutputTokenExceededError", "ContextLengthExceededError",
                         "OutputLengthExceededError", "AgentSafetyRefusalError",
                         "ContentPolicyViolationError")
HARBOR_ENVIRONMENT = ("EnvironmentStartTimeoutError", "SandboxBuildFailedError",
                      "AgentSetupTimeoutError", "HealthcheckError",
                      "SandboxLikelyOutOfMemoryError", "MemoryLimitExceededError",
                      "SSHAccessError", "GKEExecStreamClosedError", "GKEPodNotFoundError",
                      "RuntimeRequestError", "AddTestsDirError", "DownloadVerifierDirError")
HARBOR_PROVIDER = ("ApiError", "ApiRateLimitError", "ApiInternalServerError",
                   "ApiOverloadedError", "ApiConnectionClosedError", "ApiResponseStalledError",
                   "UnknownApiError", "NetworkConnectionError", "ApiConnectionError",
                   "ApiUsageLimitError", "RateLimitError", "InternalServerError",
                   "ServiceUnavailableError", "APIConnectionError", "APIError", "Timeout")
HARBOR_SETTINGS_AND_VERIFIER = ("UnsupportedModelParametersError", "BadRequestError",
                                "UnprocessableEntityError", "UnsupportedParamsError",
                                "APIResponseValidationError", "BudgetExceededError",
                                "VerifierTimeoutError", "RewardFileNotFoundError",
                                "RewardFileEmptyError", "VerifierOutputParseError")
HARBOR_ACCESS_AND_CANCEL = ("AgentAuthenticationError", "ModelNotFoundError",
                            "ApiProviderResourceNotFoundError", "AuthenticationError",
                            "PermissionDeniedError", "NotFoundError",
                            "ServiceOperationsUnsupportedError", "VercelScopeError",
                            "DspyImportError", "MissingExtraError", "RegradeError",
                            "CancelledError")
_HARBOR_TYPE = "`exception_info.exception_type` (a step's too)"
HARBOR_BEFORE_AGENT = OriginRow(
    HARBOR, "`agent_execution.started_at`", (), INFRASTRUCTURE,
    "the agent never ran: Harbor starts the environment (`environment_setup`) and sets the "
    "agent up (`agent_setup`) before it times the agent (`agent_execution`, "
    "`trial/trial.py`), so a failure before that, of any type (an environment provider's "
    "`RuntimeError` too), is not the agent's", status=None,
    when="absent (no step's either), with an exception: any type")
HARBOR_ROWS = (
    HARBOR_BEFORE_AGENT,
    OriginRow(HARBOR, _HARBOR_TYPE, HARBOR_AGENT_TIMEOUTS, AGENT,
              "the agent's timeout: Harbor's error policy keeps its reward valid "
              "(`has_valid_reward`)", status="timeout"),
    OriginRow(HARBOR, _HARBOR_TYPE, HARBOR_AGENT_FAILURES, AGENT,
              "the agent's own failure: Harbor's error policy keeps its reward valid",
              status="error"),
    OriginRow(HARBOR, _HARBOR_TYPE, HARBOR_ENVIRONMENT, INFRASTRUCTURE,
              "the environment (its sandbox, start, health, memory): Harbor's error policy "
              "retries it, does not grade it, and holds its reward invalid", status="unknown"),
    OriginRow(HARBOR, _HARBOR_TYPE, HARBOR_PROVIDER, INFRASTRUCTURE,
              "the model provider's API: Harbor retries it and holds its reward invalid",
              status="unknown"),
    OriginRow(HARBOR, _HARBOR_TYPE, HARBOR_SETTINGS_AND_VERIFIER, INFRASTRUCTURE,
              "the model's settings or budget, or the verifier: Harbor holds the reward "
              "invalid", status="unknown"),
    OriginRow(HARBOR, _HARBOR_TYPE, HARBOR_ACCESS_AND_CANCEL, INFRASTRUCTURE,
              "credentials, a model not found, a missing extra, a cancelled trial: Harbor "
              "neither retries nor grades it", status="unknown"),
    OriginRow(HARBOR, _HARBOR_TYPE, (), None,
              "Harbor's policy for a type it does not name keeps the reward valid and "
              "retries it: it does not say whose", status="unknown",
              when="any other type, once the agent started"),
)

# -- Inspect AI: log/_log.py (EvalSample.error, EvalSample.limit: EvalSampleLimitType).
INSPECT_TIMEOUT_LIMITS = ("time", "working")
INSPECT_AGENT_LIMITS = ("message", "token", "turn", "context", "cost", "custom")
INSPECT_OPERATOR_LIMITS = ("operator",)
INSPECT_ERROR = OriginRow(
    INSPECT_AI, "`error`", (), INFRASTRUCTURE,
    "Inspect does not score a sample that errored (its metrics leave it out; "
    "`retry_on_error` runs it again): the run did not measure the agent on it; the log's "
    "error has a message and a traceback, no type, so an error of the agent's own solver "
    "code is among them", status="error", when="set (an `EvalError`)")
INSPECT_ROWS = (
    INSPECT_ERROR,
    OriginRow(INSPECT_AI, "`limit.type`", INSPECT_TIMEOUT_LIMITS, AGENT,
              "the agent's time ran out", status="timeout"),
    OriginRow(INSPECT_AI, "`limit.type`", INSPECT_AGENT_LIMITS, AGENT,
              "the agent used up a budget of its own (messages, tokens, turns, context, "
              "cost, a solver's own limit)", status="error"),
    OriginRow(INSPECT_AI, "`limit.type`", INSPECT_OPERATOR_LIMITS, INFRASTRUCTURE,
              "a person interrupted the sample in Inspect's interface: not the agent's "
              "outcome", status="error"),
    OriginRow(INSPECT_AI, "`limit.type`", (), None,
              "a limit newer than the importer: not attributed", status="error",
              when="any other type"),
    OriginRow(INSPECT_AI, "`scores`", (), None,
              "an unscored sample: the log does not say why", status="unknown",
              when="absent or empty, without `error` or `limit`"),
)

# -- tau2-bench: data_model/simulation.py (TerminationReason).
TAU2_ROWS = (
    OriginRow(TAU2_BENCH, "`termination_reason`", ("user_stop", "agent_stop"), None,
              "the conversation ended as it should: graded", status="success"),
    OriginRow(TAU2_BENCH, "`termination_reason`", ("timeout",), AGENT,
              "the simulation's time ran out", status="timeout"),
    OriginRow(TAU2_BENCH, "`termination_reason`", (
        "max_steps", "too_many_errors", "agent_error", "context_window_exceeded"), AGENT,
              "the agent's steps, tool errors in a row, invalid message or context window",
              status="error"),
    OriginRow(TAU2_BENCH, "`termination_reason`", ("user_error",), INFRASTRUCTURE,
              "the user simulator (the benchmark's, not the agent) sent an invalid message",
              status="error"),
    OriginRow(TAU2_BENCH, "`termination_reason`", ("infrastructure_error",), INFRASTRUCTURE,
              "tau2's own word: an API disconnect, retries exhausted, or a worker that died "
              "(the placeholder `make_infra_failure_sim` writes)", status="unknown"),
    OriginRow(TAU2_BENCH, "`termination_reason`", ("unexpected_error",), None,
              "an exception tau2 caught without saying whose", status="error"),
    OriginRow(TAU2_BENCH, "`termination_reason`", (), None,
              "a reason newer than the importer: not attributed", status="unknown",
              when="any other reason"),
)

# -- SWE-bench: harness/reporting.py and harness/infra_failure.py (swebench 5.0.2).
SWEBENCH_ROWS = (
    OriginRow(SWE_BENCH, "the summary's list", ("infra_failure_ids",), INFRASTRUCTURE,
              "SWE-bench's own classification of the instance's logs (its environment tier: "
              "a container, the network, memory, a display)", status="unknown"),
    OriginRow(SWE_BENCH, "the summary's list", ("ambiguous_failure_ids",), None,
              "SWE-bench's own word that the logs fit a broken environment or a bad patch "
              "alike", status="unknown"),
    OriginRow(SWE_BENCH, "the summary's list", ("error_ids",), INFRASTRUCTURE,
              "the evaluation wrote no test report (`run_instance` raised: an image that did "
              "not build, a container that failed; a patch that did not apply is there too, "
              "and the summary does not tell it apart): no test ran on the patch",
              status="error"),
    OriginRow(SWE_BENCH, "the summary's list", ("empty_patch_ids",), AGENT,
              "the agent submitted no patch (final state `empty_patch`)", status="success"),
    OriginRow(SWE_BENCH, "the summary's list", ("resolved_ids", "unresolved_ids"), None,
              "the tests ran on the patch: graded", status="success"),
)

# -- promptfoo: ResultFailureReason (src/types/index.ts): NONE 0, ASSERT 1, ERROR 2.
PROMPTFOO_ROWS = (
    OriginRow(PROMPTFOO, "`failureReason`", ("2",), INFRASTRUCTURE,
              "a provider error: promptfoo counts it apart from failed assertions "
              "(`stats.errors`), the call returned no answer to grade (in files without "
              "`failureReason`, an `error` without a `gradingResult`)", status="error"),
    OriginRow(PROMPTFOO, "`failureReason`", ("0", "1"), None,
              "answered and graded (every assertion passed, or one failed)", status="success"),
)

# -- JSON lines: the mapping's status table names statuses only.
JSONL_ROWS = (
    OriginRow(JSON_LINES, "`lines.status`", (), None,
              "the mapping's `values` name statuses, never whose a failure is", status=None,
              when="any value"),
)

# -- the table ---------------------------------------------------------------------------
ORIGIN_ROWS: Tuple[OriginRow, ...] = (INSPECT_ROWS + TAU2_ROWS + SWEBENCH_ROWS + HARBOR_ROWS
                                      + PROMPTFOO_ROWS + JSONL_ROWS)
ROWS_OF: Dict[str, Tuple[OriginRow, ...]] = {
    harness.name: tuple(row for row in ORIGIN_ROWS if row.harness is harness)
    for harness in HARNESSES}
_WITHOUT = [harness.name for harness in HARNESSES if not ROWS_OF[harness.name]]
if _WITHOUT:
    raise RuntimeError("contract/origins.py: no failure-origin row for %s"
                       % ", ".join(_WITHOUT))


def origins_table() -> str:
    """The docs' table of whose a failed trial is, per harness: the log field, its values,
    the origin and why (the harness's own word)."""
    lines = ["| harness | log field | value | `status` | `failure_origin` | why |",
             "|---|---|---|---|---|---|"]
    for harness in HARNESSES:
        for row in ROWS_OF[harness.name]:
            values = ", ".join("`%s`" % value for value in row.values) or row.when
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                harness.title, row.source, values,
                "`%s`" % row.status if row.status else "by the other rows",
                "`%s`" % row.origin if row.origin else "`null`", row.why))
    return "\n".join(lines) + "\n"
