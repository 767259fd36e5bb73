"""The JUnit XML report, for CI test views (GitLab's ``artifacts:reports:junit``, Jenkins'
``junit`` step). It validates against the Jenkins xUnit plugin's ``junit-10.xsd``.

Up to three test suites, and every failure counted once, where it is judged:

- ``tasks``: one test case per test task of the candidate (``classname`` the slice, ``name``
  the case id), failed when the task misses its gate (the task gate, or the critical gate for
  a critical task), the failure naming the failing checks and their trials. The critical gate
  is judged per critical task, so these failures *are* that gate's failures.
- ``gates``: one test case per gate judged on the candidate as a whole (every deciding gate
  but the critical one, which the ``tasks`` suite carries), failed when the decision reports
  it failed. A property names the critical gate and where it is judged.
  A finding of the package that asks for review or blocks without being a gate (a baseline
  whose log lacked trials the import recorded as unknown) is one more failed case there,
  named by its code.
- ``notes``: one passing test case per informational finding (its code and reason in the
  name, every detail in ``system-out``): never a failure, and still listed by name in
  GitLab's and Jenkins' test views, which show a passing case's name but ignore suite
  properties and suite output. A note that says a check did not run (the family
  contamination check of a cases file that declares splits absent) is a *skipped* case
  instead, never a passing one.

When the systems are INCOMPARABLE nothing was graded: one ``comparability`` suite holds one
failed test case listing the protocol mismatches.

``time`` is the gate's own: the wall seconds of the run that decided, which the command line
measures and sets (:attr:`~proagents_bench.evaluation.decision.Decided.seconds`; ``0.000``
where nobody measured, so that the same inputs and the same time render the same bytes), on
the root and the first suite (``tasks``, or ``comparability``); every test case and the other
suites take none, the gate grading every task at once. The agents' recorded latency is no
test time (a CI view would show a run of 1,000 tasks as hours of tests): the ``tasks``
suite's properties ``candidate_recorded_latency_seconds`` and
``baseline_recorded_latency_seconds`` give each system's sum over its trials. XML 1.0 cannot
carry control characters, so they are removed from every text; the rest is escaped, and the
file is UTF-8.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Tuple

from ..contract.gates import CRITICAL_GATE, TASK_GATE, Gate
from ..contract.vocabulary import BLOCKING, HARDNESS, NOT_RUN_FINDINGS, REVIEWING
from ..version import NAME
from .view import NOT_JUDGED, REPLACED, gate_states, hardness, note_facts, notes, task_rows
from .words import clean, shorten, show, show_gate
from .view import latencies as latencies_of

if TYPE_CHECKING:  # for annotations only
    from ..evaluation.decision import Actioned, Decided, Decision
    from ..jsonio import JSON, JSONObject
    from ..pipeline import Evaluation
    from ..render.nodecision import NoDecision

# A suite: (its test count, its failure count, its XML).
Suite = Tuple[int, int, str]


def whole_candidate_gates(gate_rows: Sequence[Gate]) -> Tuple[str, ...]:
    """The gates judged on the candidate as a whole (of the spec's version), one test case
    each in the ``gates`` suite."""
    return tuple(gate.key for gate in gate_rows if gate is not CRITICAL_GATE)


MAX_NOTE_NAME = 200
NO_TIME = "0.000"


def _escape(value: object, keep_newlines: bool = True) -> str:
    return clean(value, keep_newlines).replace("&", "&amp;").replace("<", "&lt;").replace(
        ">", "&gt;")


def _attribute(value: object) -> str:
    # A line break in an attribute would be normalised to a space by any XML parser: it is
    # turned into one here already, so what is written is what every reader sees.
    return '"%s"' % _escape(value, keep_newlines=False).replace('"', "&quot;")


def _element(name: str, attributes: Iterable[Tuple[str, object]],
             children: Optional[List[str]] = None, text: Optional[str] = None) -> str:
    head = "<%s%s" % (name, "".join(" %s=%s" % (key, _attribute(value))
                                    for key, value in attributes))
    if children is None and text is None:
        return head + "/>"
    inner = _escape(text) if text is not None else "\n" + "\n".join(children or ()) + "\n"
    return "%s>%s</%s>" % (head, inner, name)


def _sum(milliseconds: Iterable[float]) -> float:
    """``math.fsum``, or infinity where the sum is beyond the largest double."""
    try:
        return math.fsum(milliseconds)
    except OverflowError:
        return math.inf


def _seconds(milliseconds: Sequence[JSON]) -> str:
    """The sum of ``milliseconds`` in seconds: always a finite decimal with three places (a
    sum beyond the largest double is taken exactly instead)."""
    total = _sum(milliseconds)
    if math.isfinite(total):
        return "%.3f" % (total / 1000.0)
    thousandths = round(sum(map(Fraction, milliseconds), Fraction(0)))
    return "%d.%03d" % divmod(thousandths, 1000)


class Case:
    """One test case: its XML and whether it failed."""

    __slots__ = ("xml", "failed", "skipped")

    def __init__(self, classname: str, name: str, seconds: str, failure: Optional[str] = None,
                 output: Optional[str] = None, skipped: Optional[str] = None) -> None:
        self.failed = failure is not None
        self.skipped = skipped is not None
        children = [failure] if failure is not None else []
        if skipped is not None:
            children.append(_element("skipped", (("message", skipped),)))
        if output is not None:
            children.append(_element("system-out", (), text=output))
        self.xml = _element("testcase", (("classname", classname), ("name", name),
                                         ("time", seconds)), children or None)


def _failure(message: str, kind: str, details: Sequence[str]) -> str:
    return _element("failure", (("message", message), ("type", kind)), text="\n".join(details))


def _suite(name: str, cases: Sequence[Case], properties: Sequence[Tuple[str, object]] = (),
           seconds: str = NO_TIME) -> Suite:
    """(test count, failure count, XML) of a test suite."""
    failures = sum(1 for case in cases if case.failed)
    skipped = sum(1 for case in cases if case.skipped)
    children = []
    if properties:
        children.append(_element("properties", (), [
            _element("property", (("name", key), ("value", value))) for key, value in properties
        ]))
    children.extend(case.xml for case in cases)
    return len(cases), failures, _element("testsuite", (
        ("name", name), ("tests", str(len(cases))), ("failures", str(failures)),
        ("errors", "0"), ("skipped", str(skipped)), ("time", seconds)), children)


def _task_cases(document: JSONObject, gates: JSONObject) -> List[Case]:
    """The test cases of suite tasks: one per test task of the candidate."""
    cases: List[Case] = []
    for row in task_rows(document):
        task = row.candidate
        failure = None
        if task.misses_gate:
            which = "critical gate" if task.critical_failure else "task gate"
            key = CRITICAL_GATE.key if task.critical_failure else TASK_GATE.key
            passing = sum(1 for trial in task.trials if trial.passed)
            message = "%s %s missed its %s (%s %s): %d of %d trials passed; failing checks: " \
                      "%s" % ("critical task" if row.critical else "task", row.case_id, which,
                              key, show_gate(gates[key]), passing, len(task.trials),
                              task.failed_check_summary() or "none")
            details = [message] + ["trial %d: status %s; failed %s" % (
                trial.trial_id, trial.status, ", ".join(trial.failed_checks))
                for trial in task.trials if not trial.passed]
            failure = _failure(message, which, details)
        cases.append(Case(row.slice, row.case_id, NO_TIME, failure))
    return cases


def recorded_latency(metrics: JSONObject) -> str:
    """A system's recorded latency over all its trials, in seconds (an unmeasured one counts
    nothing)."""
    return _seconds([value for value in latencies_of(metrics) if value is not None])


def run_time(decided: Decided[Actioned]) -> str:
    """The run's wall seconds as ``time`` writes them (``0.000`` when not measured)."""
    seconds = decided.seconds
    if seconds is None or not seconds > 0 or not math.isfinite(seconds):
        return NO_TIME
    return "%.3f" % seconds


def _gate_cases(document: JSONObject, gates: JSONObject, gate_rows: Sequence[Gate],
                decision: Decision) -> List[Case]:
    failed = gate_states(document)
    findings: Dict[str, List[JSONObject]] = {}
    for finding in document.get("findings", ()):
        findings.setdefault(finding["code"], []).append(finding)
    cases: List[Case] = []
    whole = whole_candidate_gates(gate_rows)
    for key in whole:
        failure = None
        if failed.get(key) == REPLACED:
            cases.append(Case("gates", key, "0.000", skipped="%s: %s" % (key, REPLACED)))
            continue
        if key in failed:
            severity = hardness(key)
            message = "%s gate %s (%s) failed" % (severity, key, show_gate(gates[key]))
            if failed[key] == NOT_JUDGED:
                message = "%s gate %s (%s) could not be judged: its metric is unmeasured" % (
                    severity, key, show_gate(gates[key]))
            details = [message] + ["%s %s against %s%s" % (
                finding["metric"], show(finding["observed"]), show_gate(gates[key]),
                "; tasks: " + ", ".join(finding["case_ids"]) if finding["case_ids"] else "")
                for finding in findings.get(key, ())]
            failure = _failure(message, severity, details)
        cases.append(Case("gates", key, NO_TIME, failure))
    for code in sorted(set(failed).difference(whole + (CRITICAL_GATE.key,))):
        reasons = [finding.reason for finding in decision.findings if finding.code == code]
        severity = HARDNESS[BLOCKING if any(finding.severity == BLOCKING for finding in
                                            decision.findings if finding.code == code)
                            else REVIEWING]
        cases.append(Case("gates", code, NO_TIME, _failure("%s: %s" % (code, reasons[0]),
                                                           severity, reasons)))
    return cases


def _note_cases(decision: Decision) -> List[Case]:
    """One passing test case per informational finding: its name says the note (GitLab and
    Jenkins list a passing case by name), ``system-out`` holds the rest."""
    cases: List[Case] = []
    names = set()
    for finding in notes(decision):
        name = shorten("%s: %s" % (finding.code, finding.reason), MAX_NOTE_NAME)
        if name in names:  # GitLab keeps only the first of equal names
            name = shorten("%s (%d): %s" % (finding.code, len(cases) + 1, finding.reason),
                           MAX_NOTE_NAME)
        names.add(name)
        cases.append(Case("notes", name, NO_TIME,
                          output="%s\n%s" % (finding.reason, note_facts(finding)),
                          skipped=finding.reason if finding.code in NOT_RUN_FINDINGS
                          else None))
    return cases


def render_no_decision(outcome: "NoDecision") -> bytes:
    """The report of a run that ended without a decision
    (:class:`~proagents_bench.render.nodecision.NoDecision`): one test case in error, its
    message the outcome and the first error, its text every error listed."""
    first = outcome.errors[0].stderr_line() if outcome.errors else outcome.detail
    message = "%s; %s" % (outcome.headline, first) if first else outcome.headline
    details = [outcome.headline] + ([outcome.detail] if outcome.detail else []) + [
        error.stderr_line() for error in outcome.shown_errors()]
    if outcome.left_out:
        details.append("%d more errors not shown" % outcome.left_out)
    case = _element("testcase", (("classname", NAME), ("name", outcome.action),
                                 ("time", NO_TIME)), [
        _element("error", (("message", message), ("type", outcome.action)),
                 text="\n".join(details))])
    suite = _element("testsuite", (("name", NAME), ("tests", "1"),
                                   ("failures", "0"), ("errors", "1"), ("skipped", "0"),
                                   ("time", NO_TIME)), [case])
    root = _element("testsuites", (("name", "%s: %s" % (NAME, outcome.action)),
                                   ("tests", "1"), ("failures", "0"), ("errors", "1"),
                                   ("time", NO_TIME)), [suite])
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + root + "\n").encode("utf-8")


def render(evaluation: Evaluation) -> bytes:
    """The report's bytes (UTF-8 XML) for an :class:`~proagents_bench.gate.Evaluation`."""
    document = evaluation.lazy_document
    properties = (("action", document["action"]),
                  ("primary_reason", document["primary_reason"]),
                  ("candidate_system", document["candidate_system"]),
                  ("baseline_system", document["baseline_system"]),
                  ("benchmark", "%s %s" % (document["benchmark_id"],
                                           document["benchmark_version"])),
                  ("evidence_fingerprint", document["evidence_fingerprint"]))
    seconds = run_time(evaluation)
    suites: List[Suite]
    if document["comparable"]:
        gates = evaluation.gates
        latency = tuple(("%s_recorded_latency_seconds" % role, recorded_latency(
            document["%s_metrics" % role])) for role in ("candidate", "baseline"))
        suites = [_suite("tasks", _task_cases(document, gates), properties + latency,
                         seconds),
                  _suite("gates", _gate_cases(document, gates, evaluation.gate_rows,
                                              evaluation.decision), (
                      (CRITICAL_GATE.key, "%s: judged per critical task, each a test case of "
                                          "suite tasks" % show_gate(gates[CRITICAL_GATE.key])),
                  ))]
        note_cases = _note_cases(evaluation.decision)
        if note_cases:
            suites.append(_suite("notes", note_cases))
    else:
        # a protocol mismatch, or a run beyond its spec's validity bounds (not evidence)
        not_evidence = document["comparison"].get("not_evidence", [])
        case = Case("comparability", "validity" if not_evidence else "protocol", NO_TIME,
                    _failure(document["primary_reason"], "INCOMPARABLE", not_evidence
                             or document["comparison"]["protocol_mismatches"]))
        suites = [_suite("comparability", [case], properties, seconds)]
    # junit-10.xsd allows only name, time, tests, failures and errors on the root.
    root = _element("testsuites", (
        ("name", "%s %s: %s" % (NAME, document["benchmark_id"], document["action"])),
        ("tests", str(sum(suite[0] for suite in suites))),
        ("failures", str(sum(suite[1] for suite in suites))), ("errors", "0"),
        ("time", seconds)), [suite[2] for suite in suites])
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + root + "\n").encode("utf-8")
