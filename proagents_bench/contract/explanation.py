"""The explanation document's contract, declared once: what ``explain`` writes to stdout as
JSON (and what its reports render). Open objects, as the decision document's
(:mod:`.output`): the listed keys are there, more may be added, none is renamed. Its JSON
Schema (``--schema explanation``) and the docs' table of its fields come from these shapes,
and the tests check every explanation against them."""

from __future__ import annotations

from ..codes import codes_of
from .containers import Array, Field, Mapping, Nullable, Object
from .output import HARNESS
from .shapes import Boolean, Integer, String
from .vocabulary import ACTIONS, CHECKS

EXPLAINED = "EXPLAINED"
# What a task is called (explain/choice.py): flaky first, then what the verdicts say.
VERDICTS = ("regression", "flaky", "fails_in_both", "improvement", "passes_in_both")
STEP_KINDS = ("message", "tool_call", "tool_result", "error", "check")
ALIGNMENT_OPS = ("same", "changed", "baseline_only", "candidate_only")
TRACE_PROBLEMS = tuple(row.code for row in codes_of(["trace"]))

STEP = Object("step", closed=False, fields=[
    Field("kind", String(enum=STEP_KINDS), "a message, a tool call, its result, an error, a "
          "check the harness graded"),
    Field("position", String(), "where in the unit the harness's viewer shows it "
          "(`messages[7].tool_calls[0]`, `steps[2]`, `report.json:tests_status...`)"),
    Field("role", Nullable(String()), "a message's role"),
    Field("name", Nullable(String()), "a tool call's or result's tool; a check's name"),
    Field("text", String(blank=True), "a message's text, a call's arguments as canonical "
          "JSON, a result's, an error's or a check's excerpt (cut, saying so)"),
    Field("status", Nullable(String()), "a tool result's (`ok`, `error`) or a check's "
          "(`passed`, `failed`)"),
])

PROBLEM = Object("trace problem", closed=False, fields=[
    Field("code", String(enum=TRACE_PROBLEMS)),
    Field("message", String()),
    Field("where", String(), "the log, and the file or unit inside it"),
])

TRACE = Object("trace", closed=False, fields=[
    Field("trial_id", Integer(minimum=1)),
], optional=[
    Field("where", String(), "the log and the unit the steps were read from"),
    Field("steps", Array(STEP), "the trial's steps, in order (at most 1,000)"),
    Field("cuts", Array(String()), "what was cut to keep the trace small"),
    Field("notes", Array(String()), "what the log says of the unit besides"),
    Field("problem", PROBLEM, "why there is no trace (instead of where, steps, cuts, notes)"),
])

ROW = Object("alignment row", closed=False, fields=[
    Field("op", String(enum=ALIGNMENT_OPS)),
    Field("baseline", Nullable(STEP), "the baseline's tool call; null: none there"),
    Field("candidate", Nullable(STEP), "the candidate's tool call; null: none there"),
], optional=[
    Field("note", String(), "`same tool, other arguments`"),
    Field("same_before", Integer(minimum=0), "the first divergence only: the calls alike "
          "before it"),
])

TASK = Object("explained task", closed=False, fields=[
    Field("case_id", String()),
    Field("critical", Boolean()),
    Field("slice", String()),
    Field("verdict", String(enum=VERDICTS), "`flaky` when either system's trials disagree; "
          "else `regression` (the baseline passes every trial, the candidate none), "
          "`fails_in_both`, `improvement` (the reverse of a regression) or `passes_in_both` "
          "(a task asked for)"),
    Field("why", Array(String(), min_items=1), "why the task is explained (the task rule; "
          "`asked for`: named by `--case`)"),
    Field("reasons", Array(Integer(minimum=0)), "the decision's reasons that name it, by "
          "index"),
    Field("trial_count", Integer(minimum=1)),
    Field("passing_trials", Mapping(Integer(minimum=0)), "per system"),
    Field("compared", Mapping(Integer(minimum=1)), "the trial ids compared (the trial rule)"),
    Field("failed_checks", Array(Object("failed check", closed=False, fields=[
        Field("check", String(enum=CHECKS)), Field("text", String())])),
        "the grading checks the candidate's trial failed, and what failed each"),
    Field("final_state", Array(Object("final state row", closed=False, fields=[
        Field("key", Nullable(String()), "a key of a JSON object; null: the whole value"),
        Field("expected", Nullable(String())), Field("actual", Nullable(String())),
        Field("equal", Boolean())])), "the candidate's final state against the expected one, "
        "key by key when both are JSON objects"),
    Field("rules_broken", Array(Object("rule broken", closed=False, fields=[
        Field("rule", String()), Field("step", Nullable(STEP), "the call that broke it")],
        optional=[Field("note", String())])), "forbidden side effects, tools outside the "
        "allowed set"),
    Field("first_divergence", Nullable(ROW), "the first alignment row that is not `same`; "
          "null: the same calls, or no traces to align"),
    Field("alignment", Array(ROW), "the two trials' tool calls aligned"),
    Field("harness_checks", Array(STEP), "the checks the harness graded that the candidate's "
          "trial failed"),
    Field("traces", Mapping(TRACE), "per system"),
    Field("summary", String(), "the task's explanation in one sentence"),
])

EXPLANATION = Object("explanation", closed=False, fields=[
    Field("action", String(enum=[EXPLAINED])),
    Field("decision", Object("explained decision", closed=False, fields=[
        Field("action", String(enum=ACTIONS)), Field("reasons", Array(String()))]),
        "the gate's decision on the same files"),
    Field("benchmark_id", String()),
    Field("baseline_system", String()),
    Field("candidate_system", String()),
    Field("task_rule", String(), "which tasks are explained"),
    Field("trial_rule", String(), "which trials are compared"),
    Field("tasks", Array(TASK), "in the cases file's order"),
    Field("problems", Array(PROBLEM), "every trace that could not be read, once"),
    Field("harness", HARNESS),
])
