"""What the reports show, read from an :class:`~proagents_bench.pipeline.Evaluation` once.

The HTML, Markdown and JUnit reports are three renderings of the same facts: the decision, the
metric table (baseline beside candidate, the candidate's gate and whether it held), the tasks
with their trials and failing checks, the slices. This module derives those facts from the
decision document (JSON-ready values), the decision's findings and the spec's gates (exact
values, shown as written), so a report cannot disagree with the document. The metric rows are
the gates table's rows of the spec's version (:mod:`proagents_bench.contract.gates`).

Whether a gate held is read from the findings, not recomputed from the rounded numbers: the
decision compared exact values, and a double can sit on the wrong side of a gate written as a
decimal (7/10 is below 0.7 as a double).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple, Union

from ..contract.gates import CRITICAL_GATE, GATE_BY_KEY, Gate
from ..contract.vocabulary import (BLOCK, BLOCKING, CHECKS, HARDNESS, INCOMPARABLE,
                                   INFORMATIONAL, PASS, REVIEW, REVIEWING)
from .words import clean, counted, named, shorten, show_any, show_gate

if TYPE_CHECKING:  # for annotations only
    from ..evaluation.decision import Decision, Finding
    from ..jsonio import JSON, JSONObject
    from ..render.evaluation import Evaluation, Place
    from ..render.trialrows import TrialRows

    # A system's trial_results: kept as the graded records, or a list of entries.
    TrialSource = Union[TrialRows, List[JSONObject]]

ACTION_WORDS = {
    PASS: "every gate held: ship",
    REVIEW: "a soft gate failed or the evidence cannot settle one: a person must review "
            "before shipping",
    BLOCK: "a hard gate failed: do not ship",
    INCOMPARABLE: "the systems did not both run under the spec's protocol: no comparison is "
                  "possible",
}

# An INCOMPARABLE run that is not evidence (beyond its spec's validity bounds): the systems
# ran under the protocol, and the infrastructure lost too many of their trials.
NOT_EVIDENCE_WORDS = ("the infrastructure lost more trials than the spec's validity bounds "
                      "accept: the run is not evidence of either system")


def action_words(document: JSONObject) -> str:
    """What the document's action means, in words (its own words for a run that is not
    evidence)."""
    if document["comparison"].get("not_evidence"):
        return NOT_EVIDENCE_WORDS
    return ACTION_WORDS.get(document["action"], "")


CHECK_NAMES = CHECKS

# A failed check, in a few words; the status check names the status itself (timeout, ...).
CHECK_LABELS = {
    "final_state_correct": "wrong final state",
    "side_effects_safe": "forbidden side effect",
    "tools_allowed": "unapproved tool",
}
# The same in a word or two, as narrow as a cell of the task grid takes them (no word wider
# than a status's: a grid of five trials a system fits a laptop's window); the grid's legend
# gives the whole words.
CHECK_WORDS = {
    "final_state_correct": "final state",
    "side_effects_safe": "side effect",
    "tools_allowed": "tool",
}


class MetricRow:
    """One row of the metric table: a gate's (``gate``) or a metric without a gate."""

    def __init__(self, label: str, metric: str, gate: Optional[Gate] = None,
                 kind: str = "rate") -> None:
        self.label = label
        self.metric = metric
        self.gate = gate
        self.gate_key = gate.key if gate is not None else None
        self.kind = kind


def metric_rows(gate_rows: Sequence[Gate]) -> Tuple[MetricRow, ...]:
    """Every deciding gate (of the spec's version: ``gate_rows``) whose metric a system has,
    in the gates table's order, then the metrics shown without a gate. The gates on an
    interval's low end are the comparison's: :func:`interval_rows`."""
    return tuple(
        MetricRow(gate.label, "critical_failures" if gate is CRITICAL_GATE else gate.metric,
                  gate, "critical" if gate is CRITICAL_GATE else "rate")
        for gate in gate_rows if gate.interval is None) + (
        MetricRow("Unknown-status trials", "unknown_trial_count", kind="count"),)


def hardness(code: str) -> str:
    """What the reports call a failed gate (of any spec version): ``hard`` for a gate that
    blocks, ``soft`` for any other (a gate that asks for review, a package finding)."""
    gate = GATE_BY_KEY.get(code)
    return HARDNESS[gate.severity if gate is not None and gate.severity else REVIEWING]


class IntervalRow:
    """A gate on a bootstrap interval's low end, with that interval from the document."""

    def __init__(self, gate: Gate, low: float, high: float) -> None:
        self.gate = gate
        self.low = low
        self.high = high


def interval_rows(gate_rows: Sequence[Gate], document: JSONObject) -> List[IntervalRow]:
    """The interval gates of the spec's version, each with its interval: the paired task
    success difference's (``task``), the trial-level difference's (``trial``)."""
    comparison = document["comparison"]
    intervals = {"task": comparison["paired_bootstrap_interval"],
                 "trial": comparison["trial_level"]["bootstrap_interval"]}
    return [IntervalRow(gate, *intervals[gate.interval]) for gate in gate_rows
            if gate.interval is not None]


def tagged_reasons(decision: Decision) -> List[Tuple[str, Optional[str]]]:
    """(reason, severity or None) for every reason of the decision, in order: each reason of a
    failed gate carries its finding's severity (never guessed from the text)."""
    severity_of = {finding.reason: finding.severity for finding in decision.findings}
    return [(reason, severity_of.get(reason)) for reason in decision.reasons]


class PlacedReason:
    """A reason of the decision (its ``finding``) and what it concerns in the input files:
    ``where``, a case ("case", its id) or a gate ("gate", its key), and ``place``, that
    object's (file, line, column); None when it concerns no object of a file, or its file is
    none (standard input) or was not read again."""

    __slots__ = ("finding", "where", "place")

    def __init__(self, finding: Finding, where: Optional[Tuple[str, str]],
                 place: Optional[Place]) -> None:
        self.finding = finding
        self.where = where
        self.place = place


def placed_reasons(evaluation: Evaluation) -> List[PlacedReason]:
    """Each reason of a REVIEW or BLOCK (a finding that reviews or blocks, in the decision's
    order; a note is never one) and where it points: a failed critical task at its case in
    the cases file, any other failed gate at its line in the spec (``evaluation.locate``
    finds them); a finding that is no gate points nowhere. The one lookup of the reports that
    put a reason on its line (--format github, the GitLab report)."""
    placed = []
    for finding in evaluation.decision.findings:
        if finding.severity not in (BLOCKING, REVIEWING):
            continue
        where: Optional[Tuple[str, str]] = None
        if finding.code == CRITICAL_GATE.key and finding.case_ids:
            where = ("case", finding.case_ids[0])
        elif finding.code in evaluation.gates:
            where = ("gate", finding.code)
        place = None if where is None or evaluation.locate is None else \
            evaluation.locate(*where)
        placed.append(PlacedReason(finding, where, place))
    return placed


class ReasonGroup:
    """Reasons of one gate: ``headline`` says them in one line (a count and the first few
    names when there are several), ``severity`` is their findings' (None for a reason that is
    no failed gate: a PASS's, a protocol mismatch), ``reasons`` are the decision's own."""

    __slots__ = ("key", "severity", "reasons", "case_ids", "headline")

    def __init__(self, key: Tuple[str, str], severity: Optional[str]) -> None:
        self.key = key
        self.severity = severity
        self.reasons: List[str] = []
        self.case_ids: List[str] = []
        self.headline = ""


def reason_groups(decision: "Decision", ellipsis: str = "\u2026") -> List[ReasonGroup]:
    """The decision's reasons grouped by gate, in the decision's order (so a BLOCK's hard
    gates still lead), for people: the document's ``reasons`` list every one.

    - The critical gate's findings (one per failing critical task) become one group: ``88
      critical tasks failed: t0, t1, t2 \u2026 (85 more)``; a single one keeps its reason.
    - Any other gate has one finding: its reason, then how many tasks are behind it and the
      first few (``(120 tasks: a, b, c \u2026 (117 more))``).
    - Reasons without a finding that share their words before ``": "`` (the protocol
      mismatches of INCOMPARABLE) are one group: ``protocol mismatch (2): a; b``.
    """
    findings = {finding.reason: finding for finding in decision.findings
                if finding.severity != INFORMATIONAL}
    groups: List[ReasonGroup] = []
    by_key: Dict[Tuple[str, str], ReasonGroup] = {}
    for reason in decision.reasons:
        finding = findings.get(reason)
        key = ("gate", finding.code) if finding is not None else ("text", reason.partition(
            ": ")[0] if ": " in reason else reason)
        group = by_key.get(key)
        if group is None:
            group = by_key[key] = ReasonGroup(key, finding.severity if finding else None)
            groups.append(group)
        group.reasons.append(reason)
        if finding is not None:
            group.case_ids.extend(finding.case_ids)
    for group in groups:
        kind, name = group.key
        count = len(group.reasons)
        if count > 1 and kind == "gate" and name == CRITICAL_GATE.key:
            group.headline = "%d critical tasks failed: %s" % (
                count, named(group.case_ids, ellipsis=ellipsis))
        elif count > 1 and kind == "gate":
            group.headline = "gate %s failed %d times: %s" % (name, count, named(
                group.reasons, ellipsis=ellipsis, separator="; "))
        elif count > 1:
            group.headline = "%s (%d): %s" % (name, count, named(
                [reason[len(name) + 2:] for reason in group.reasons], ellipsis=ellipsis,
                separator="; "))
        elif kind == "gate" and name != CRITICAL_GATE.key and group.case_ids:
            group.headline = "%s (%d task%s: %s)" % (
                group.reasons[0], len(group.case_ids), "" if len(group.case_ids) == 1 else "s",
                named(group.case_ids, ellipsis=ellipsis))
        else:
            group.headline = group.reasons[0]
    return groups


def notes(decision: Decision) -> List[Finding]:
    """The decision's informational findings, in its order: notes that are never a gate
    (below the minimum detectable effect, ...), which every report shows beside the decision
    so that a PASS cannot hide them."""
    return [finding for finding in decision.findings if finding.severity == INFORMATIONAL]


NOTE_CASE_IDS = 10  # the case ids a note names; then a count of the rest


def note_facts(finding: Finding) -> str:
    """What a finding carries besides its reason, in words, for any code (so a new kind of
    note needs no report change): ``code below_minimum_detectable_effect;
    paired_task_success_delta 0.4; threshold 0.686245; tasks: a, b (and 3 more)``. Its
    threshold and observed value are left out when it has none."""
    parts = ["code %s" % clean(finding.code)]
    if finding.observed is not None:
        parts.append("%s %s" % (clean(finding.metric), show_any(finding.observed)))
    elif finding.metric:
        parts.append("metric %s" % clean(finding.metric))
    if finding.threshold is not None:
        parts.append("threshold %s" % show_any(finding.threshold))
    if finding.case_ids:
        shown, rest = counted(finding.case_ids, NOTE_CASE_IDS)
        parts.append("tasks: %s%s" % (", ".join(shorten(case_id, 80) for case_id in shown),
                                      " (and %d more)" % rest if rest else ""))
    return "; ".join(parts)


# What a report says of a gate in the metric table's "Held?" column.
HELD = "held"
FAILED = "failed"
NOT_JUDGED = "not judged"
# The interval gate a sequential design's boundary decides in place of (spec v5).
REPLACED = "replaced by the sequential boundary"


def gate_states(document: JSONObject) -> Dict[str, str]:
    """:data:`FAILED` or :data:`NOT_JUDGED` for each gate the candidate did not hold (read
    from the findings; an informational finding is no gate). A gate is not judged when none
    of its findings has an observed value (a latency or cost that a results v3 record left
    unmeasured, null): the run is a REVIEW, but nothing measured failed. The interval gate a
    sequential design's boundary replaces is :data:`REPLACED`. A gate not in the mapping
    held. Every report reads this, so that none calls an unjudged gate failed."""
    findings: Dict[str, List[JSONObject]] = {}
    for finding in document.get("findings", ()):
        if finding["severity"] != INFORMATIONAL:
            findings.setdefault(finding["code"], []).append(finding)
    states = {code: NOT_JUDGED if code in GATE_BY_KEY and all(
        finding["observed"] is None for finding in found) else FAILED
        for code, found in findings.items()}
    replaces = (document.get("sequential") or {}).get("replaces")
    if replaces is not None:
        states[replaces] = REPLACED
    return states


def held_text(gate_key: Optional[str], states: Dict[str, str]) -> str:
    """The "Held?" cell of a gate, in words: ``held``, ``failed (hard)``, ``not judged
    (soft)``; "" for a row without a gate."""
    if gate_key is None:
        return ""
    state = states.get(gate_key, HELD)
    return state if state in (HELD, REPLACED) else "%s (%s)" % (state, hardness(gate_key))


class TrialView:
    __slots__ = ("trial_id", "passed", "status", "failed_checks", "latency_ms")

    def __init__(self, trial: JSONObject) -> None:
        self.trial_id: int = trial["trial_id"]
        self.passed: bool = trial["passed"]
        self.status: str = trial["status"]
        self.failed_checks = [name for name in CHECK_NAMES if not trial["checks"][name]]
        self.latency_ms: JSON = trial.get("latency_ms")

    def failure_labels(self, short: bool = False) -> List[str]:
        """The failing checks in a few words each: ``timeout``, ``wrong final state``...;
        ``short``: in a word or two (:data:`CHECK_WORDS`)."""
        words = CHECK_WORDS if short else CHECK_LABELS
        return [self.status if name == "status_success" else words[name]
                for name in self.failed_checks]


class SystemTask:
    """One task as one system did it: its result, and its trials in trial-id order, read from
    the system's ``trial_results`` only when asked for (the trials of task ``position`` are
    entries position * count .. position * count + count - 1, the document's order)."""

    __slots__ = ("result", "critical_failure", "_source", "_start", "_count", "_trials")

    def __init__(self, result: JSONObject, critical_failure: bool, source: TrialSource,
                 start: int, count: int) -> None:
        self.result = result
        self.critical_failure = critical_failure
        self._source = source
        self._start = start
        self._count = count
        self._trials: Optional[List[TrialView]] = None

    @property
    def trial_count(self) -> int:
        return self._count

    @property
    def trials(self) -> List[TrialView]:
        if self._trials is None:
            self._trials = [TrialView(self._source[index])
                            for index in range(self._start, self._start + self._count)]
        return self._trials

    def latencies(self) -> List[JSON]:
        """The trials' ``latency_ms`` values (None where a trial has none)."""
        if self._trials is None and hasattr(self._source, "latencies"):
            return self._source.latencies(self._start, self._start + self._count)
        return [trial.latency_ms for trial in self.trials]

    @property
    def misses_gate(self) -> bool:
        """The task fails its gate: the task gate, or the critical gate for a critical task."""
        return not self.result["task_pass"] or self.critical_failure

    def failed_check_summary(self) -> str:
        """``final_state_correct (trials 2, 3); tools_allowed (trial 1)``."""
        parts: List[str] = []
        for name in CHECK_NAMES:
            trial_ids = [trial.trial_id for trial in self.trials if name in trial.failed_checks]
            if trial_ids:
                parts.append("%s (trial%s %s)" % (name, "s" if len(trial_ids) > 1 else "",
                                                  ", ".join(str(tid) for tid in trial_ids)))
        return "; ".join(parts)


class TaskRow:
    """One test task, baseline beside candidate."""

    __slots__ = ("case_id", "slice", "family_id", "critical", "baseline", "candidate")

    def __init__(self, result: JSONObject, baseline: SystemTask, candidate: SystemTask) -> None:
        self.case_id = result["case_id"]
        self.slice = result["slice"]
        self.family_id = result["family_id"]
        self.critical = result["critical"]
        self.baseline = baseline
        self.candidate = candidate


def _system_tasks(metrics: JSONObject) -> List[SystemTask]:
    source = metrics["trial_results"]
    tasks = metrics["task_results"]
    count = len(source) // len(tasks) if tasks else 0  # every task has trial_count trials
    critical = set(metrics["critical_failures"])
    return [SystemTask(result, result["case_id"] in critical, source, position * count, count)
            for position, result in enumerate(tasks)]


def latencies(metrics: JSONObject) -> List[JSON]:
    """Every trial's latency of one system (from the graded records when they are kept)."""
    source: TrialSource = metrics["trial_results"]
    if hasattr(source, "latencies"):
        return source.latencies()
    return [trial["latency_ms"] for trial in source if "latency_ms" in trial]


def task_rows(document: JSONObject) -> List[TaskRow]:
    """Every test task in file order, or [] when INCOMPARABLE (nothing was graded)."""
    baseline, candidate = document["baseline_metrics"], document["candidate_metrics"]
    if not baseline or not candidate:
        return []
    pairs = zip(_system_tasks(baseline), _system_tasks(candidate))
    return [TaskRow(mine.result, theirs, mine) for theirs, mine in pairs]


def problems_first(rows: Sequence[TaskRow]) -> List[TaskRow]:
    """Tasks the candidate fails first (critical ones leading), then tasks only the baseline
    fails, then the rest; file order within each group."""
    def rank(indexed: Tuple[int, TaskRow]) -> Tuple[int, int]:
        index, row = indexed
        if row.candidate.misses_gate:
            group = 0 if row.critical else 1
        elif row.baseline.misses_gate:
            group = 2
        else:
            group = 3
        return group, index
    return [row for _index, row in sorted(enumerate(rows), key=rank)]


def metric_value(metrics: Optional[JSONObject], row: MetricRow) -> JSON:
    """The value of ``row`` in one system's metrics, as a JSON-ready number."""
    if metrics is None:
        return None
    value = metrics[row.metric]
    return len(value) if row.kind == "critical" else value


def gate_text(row: MetricRow, gates: JSONObject) -> str:
    if row.gate is None:
        return "\u2014"
    if row.kind == "critical":
        return "each critical task %s %s" % (row.gate.bound, show_gate(gates[row.gate.key]))
    return "%s %s" % (row.gate.bound, show_gate(gates[row.gate.key]))


def slices(
        document: JSONObject) -> List[Tuple[str, Optional[JSONObject], Optional[JSONObject]]]:
    """(slice, baseline group, candidate group) for every slice, in name order."""
    baseline, candidate = document["baseline_metrics"], document["candidate_metrics"]
    if not baseline or not candidate:
        return []
    names = sorted(set(baseline["by_slice"]) | set(candidate["by_slice"]))
    return [(name, baseline["by_slice"].get(name), candidate["by_slice"].get(name))
            for name in names]
