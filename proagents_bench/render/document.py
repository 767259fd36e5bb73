"""The output documents: the decision document and the CONTRACT_ERROR document.

Exact values (``Fraction``, ``Decimal``) become JSON numbers only here, as the nearest IEEE
double (``float(Fraction)`` rounds correctly), so the document is the same on every platform.
The bytes are ASCII-only JSON with sorted keys and a two-space indent, ending in a newline.
"""

from __future__ import annotations

from fractions import Fraction
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Optional,
                    SupportsFloat)

from ..contract.metrics import COUNT, MEASURE, METRICS, RATE
from ..contract.vocabulary import IMPORTED_RESULTS
from ..jsonio import JSONObject
from ..jsonio import dump as jsondump
from ..version import NAME
from .trialrows import TrialRows, number

if TYPE_CHECKING:  # for annotations only
    from ..contract.rules import Systems
    from ..errors import ContractError
    from ..evaluation.comparison import Comparison, TrialLevel
    from ..evaluation.decision import Decision, Finding
    from ..evaluation.looks import Looks
    from ..evaluation.metrics import Group, SystemMetrics

# The output is written in pieces of about this many bytes (see :func:`chunks`).
CHUNK_CHARACTERS = 1 << 20

# Below this many test tasks the document says the sample is small: about where the normal
# approximation behind the standard errors and the minimum detectable effect stops being
# trustworthy (the central limit theorem's usual rule of thumb, n >= 30).
SMALL_SAMPLE_TASKS = 30

RANKED_TASKS = "Only the declared test tasks are ranked."
SMALL_SAMPLE = ("%d test task%s %s a small sample: the bootstrap interval and the minimum "
                "detectable effect say how little it can tell.")
NOT_COMPARED = ("Nothing was graded or compared: the systems did not run under the spec's "
                "protocol.")
NOT_EVIDENCE = ("Nothing was graded or compared: the harness says the infrastructure lost "
                "more trials than the spec's validity bounds accept, so the run is not "
                "evidence of either system.")
LIMITATIONS = (
    "is_private is a contract field: it does not make a local file a real private test.",
    "Family checks find only declared cross-split contamination in the cases file, not "
    "contamination of model training data, answers found at run time (browsing, retrieval) or "
    "adaptation from repeated queries against hidden tests.",
    "Results do not estimate real users, vendor models or production performance; cost units "
    "are not bills.",
    "The evidence fingerprint identifies these inputs; it proves neither that the data is "
    "lawful nor that the machine that produced the results was trustworthy.",
)


def rate(value: SupportsFloat) -> float:
    """A rate or mean: always a JSON number with a fraction part (0.0, 1.0, 0.6)."""
    return float(value)


def measured(value: Optional[SupportsFloat]) -> Optional[float]:
    """A latency or cost mean: as :func:`rate`, or None (null) when a trial left it
    unmeasured (results v3)."""
    return None if value is None else float(value)


def system_metrics(metrics: SystemMetrics, counts_unmeasured: bool = False) -> JSONObject:
    """One system's metrics; ``counts_unmeasured`` (a results v3 package, whose latencies
    and costs may be null) adds how many trials left each unmeasured."""
    grades = metrics.grades
    by_slice = {name: dict(_group(group), pass_k=_pass_k(group.pass_k()))
                for name, group in metrics.by_slice.items()}
    by_family = {name: _group(group) for name, group in metrics.by_family.items()}
    task_results = [{
        "case_id": task.case["id"],
        "family_id": task.case["family_id"],
        "slice": task.case["slice"],
        "critical": task.case["critical"],
        # float(Fraction(p, k)) is p / k, correctly rounded either way, without a call
        "trial_success_rate": task.passing_trials / task.trial_count,
        "task_pass": task.task_pass,
        "stable_across_trials": task.stable,
    } for task in metrics.tasks]
    # Kept as the graded records until written or read (see trialrows.py and materialize).
    trial_results = TrialRows(grades.records, grades.outcomes)
    document: JSONObject = {"system_id": grades.system["system_id"]}
    for metric in METRICS:  # the optional ones: results v3 only
        if counts_unmeasured or not metric.optional:
            document[metric.name] = _WRITTEN[metric.kind](getattr(metrics, metric.name))
    document.update({
        "by_slice": by_slice,
        "by_family": by_family,
        "critical_failures": list(metrics.critical_failures),
        "pass_k": _pass_k(metrics.pass_k),
        "task_results": task_results,
        "trial_results": trial_results,
    })
    return document


# How each kind of metric (contract/metrics.py) is written: counts as they are. A metric is
# read by its name (getattr), so its value is Any here: an int for a count, a Fraction for a
# rate, a Fraction or None for a measure (evaluation/metrics.py), each its kind's writer's.
_WRITTEN: Dict[str, Callable[[Any], Optional[float]]] = {
    COUNT: int, RATE: rate, MEASURE: measured}


def _pass_k(table: Dict[str, Dict[str, Fraction]]) -> Dict[str, Dict[str, float]]:
    return {name: {k: rate(value) for k, value in values.items()}
            for name, values in table.items()}


def _group(group: Group) -> JSONObject:
    return {"task_count": group.task_count,  # the rate's double, as in system_metrics
            "task_success_rate": group.passing_tasks / group.task_count}


def finding(item: Finding) -> JSONObject:
    return {
        "code": item.code,
        "severity": item.severity,
        "metric": item.metric,
        "observed": number(item.observed),
        "threshold": None if item.threshold is None else number(item.threshold),
        "case_ids": list(item.case_ids),
    }


def decision_document(*, decision: Decision, comparable: bool, fingerprint: str,
                      spec: JSONObject, cases: JSONObject, results: JSONObject,
                      systems: Systems, baseline_metrics: Optional[SystemMetrics],
                      candidate_metrics: Optional[SystemMetrics], comparison: JSONObject,
                      inputs: JSONObject, version: str, looks: Optional[Looks] = None,
                      validity: Optional[JSONObject] = None) -> JSONObject:
    """The contract's decision document as a dict (see :func:`dumps`); ``looks`` adds what
    a sequential design and the ledger made of it (spec v5's ``sequential``, ``ledger``),
    ``validity`` (a spec or results v6: :mod:`~proagents_bench.evaluation.validity`) its
    member."""
    counts = results["schema_version"] in IMPORTED_RESULTS
    document: JSONObject = {
        "action": decision.action,
        "primary_reason": decision.reasons[0],
        "reasons": list(decision.reasons),
        "comparable": comparable,
        "evidence_fingerprint": fingerprint,
        "benchmark_id": spec["benchmark_id"],
        "benchmark_version": spec["benchmark_version"],
        "dataset_version": cases["dataset_version"],
        "result_set_version": results["result_set_version"],
        "baseline_system": systems.baseline["system_id"],
        "candidate_system": systems.candidate["system_id"],
        "baseline_metrics": (system_metrics(baseline_metrics, counts) if baseline_metrics
                             else None),
        "candidate_metrics": (system_metrics(candidate_metrics, counts) if candidate_metrics
                              else None),
        "comparison": comparison,
        "findings": [finding(item) for item in decision.findings],
        "limitations": limitations(candidate_metrics.task_count if candidate_metrics else None),
        "inputs": inputs,
        "harness": {"name": NAME, "version": version},
    }
    if looks is not None:
        document["limitations"] += looks.limitations()
        document.update(looks.document(comparable))
    if validity is not None:
        document["validity"] = validity
        if not validity["evidence"]:
            document["limitations"][1] = NOT_EVIDENCE
    return document


def limitations(task_count: Optional[int]) -> List[str]:
    """What the decision cannot tell, for this package: the small-sample sentence only when
    there are fewer than SMALL_SAMPLE_TASKS test tasks, and nothing about an interval when
    nothing was compared (``task_count`` None: INCOMPARABLE)."""
    if task_count is None:
        first = [RANKED_TASKS, NOT_COMPARED]
    elif task_count < SMALL_SAMPLE_TASKS:
        first = [RANKED_TASKS, SMALL_SAMPLE % (task_count, "" if task_count == 1 else "s",
                                               "is" if task_count == 1 else "are")]
    else:
        first = [RANKED_TASKS]
    return first + list(LIMITATIONS)


def comparison_document(spec: JSONObject, mismatches: List[str],
                        comparison: Optional[Comparison] = None) -> JSONObject:
    """``comparison``: only ``protocol_mismatches`` when INCOMPARABLE; else the
    :class:`~proagents_bench.evaluation.comparison.Comparison`'s figures."""
    if mismatches:
        return {"protocol_mismatches": list(mismatches)}
    if comparison is None:
        raise ValueError("comparable systems come with their comparison")
    bootstrap = spec["bootstrap"]
    interval = comparison.interval
    return {
        "paired_task_success_delta": rate(comparison.delta),
        "paired_bootstrap_interval": [rate(interval.low), rate(interval.high)],
        "bootstrap_unit": comparison.unit,
        "confidence": number(bootstrap["confidence"]),
        "samples": bootstrap["samples"],
        "seed": bootstrap["seed"],
        "protocol_mismatches": [],
        "paired_statistics": comparison.statistics,
        "trial_level": _trial_level(comparison.trial_level),
    }


def _trial_level(trial_level: TrialLevel) -> JSONObject:
    low, high = trial_level.interval
    document: JSONObject = {
        "mean_difference": rate(trial_level.mean),
        "standard_error": trial_level.standard_error,
        "not_estimable": trial_level.not_estimable,
        "bootstrap_interval": [rate(low), rate(high)],
        "pass_hat_k_difference": {k: rate(value) for k, value in
                                  trial_level.pass_hat_k_difference.items()},
        "flaky_tasks": list(trial_level.flaky_tasks),
    }
    if trial_level.exact_test is not None:  # spec v3 on
        document["exact_test"] = trial_level.exact_test
    return document


def contract_error_document(errors: Iterable[ContractError], omitted: int,
                            version: str) -> JSONObject:
    return {
        "action": "CONTRACT_ERROR",
        "errors": [error.as_dict() for error in errors],
        "omitted_error_count": omitted,
        "harness": {"name": NAME, "version": version},
    }


def materialize(document: JSONObject) -> JSONObject:
    """``document`` with every system's ``trial_results`` as a list of dicts (in place; the
    decision document keeps them as :class:`~proagents_bench.trialrows.TrialRows` until
    then). Returns the document."""
    for key in ("baseline_metrics", "candidate_metrics"):
        metrics = document.get(key)
        if metrics is not None and isinstance(metrics.get("trial_results"), TrialRows):
            metrics["trial_results"] = metrics["trial_results"].to_list()
    return document


def dumps(document: JSONObject) -> bytes:
    """The document's bytes: ASCII JSON, sorted keys, two-space indent, final newline:
    exactly ``json.dumps(document, ensure_ascii=True, sort_keys=True, indent=2,
    allow_nan=False) + "\\n"`` of the :func:`materialize`-d document, written by
    :mod:`proagents_bench.jsonio.dump` (which also takes the trial results as they are kept)."""
    return b"".join(chunks(document))


def chunks(document: JSONObject, size: Optional[int] = None) -> Iterator[bytes]:
    """The bytes of :func:`dumps` in pieces of about ``size`` bytes (CHUNK_CHARACTERS by
    default), made one after the other: the text never exists as one string, nor the trial
    results as dicts."""
    size = size or CHUNK_CHARACTERS
    pending: List[str] = []
    pending_size = 0
    for piece in jsondump.pieces(document):
        pending.append(piece)
        pending_size += len(piece)
        if pending_size >= size:
            yield "".join(pending).encode("ascii")
            pending = []
            pending_size = 0
    pending.append("\n")
    yield "".join(pending).encode("ascii")
