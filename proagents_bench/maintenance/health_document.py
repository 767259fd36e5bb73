"""The ``health`` command's JSON document: the figures of :mod:`.health_figures` as plain
data, exact values as the nearest doubles, with the methods that made them in words."""

from __future__ import annotations

from fractions import Fraction
from typing import List, Optional

from ..jsonio import JSONObject
from ..stats.items import PLACES, TUKEY_K, Correlation
from ..version import NAME
from .health_figures import (DISCRIMINATING, FLAKY, HEALTH, NEGATIVE_DISCRIMINATION, Group,
                             Health, TaskHealth, describe_reason)
from .validity import validity_document

METHODS = {
    "pass_rate": "the mean over the systems of each system's passing trials over its trials",
    "discrimination": "the item-rest (corrected item-total) correlation over the systems of "
                      "their pass rate on the task and their summed pass rates on every other "
                      "task (classical test theory: Crocker & Algina 1986, ch. 14), exact, "
                      "rounded half away from zero to %d places; not estimable with fewer "
                      "than 3 systems, when every system has the same total, or when the "
                      "task's or the rest's scores do not vary" % PLACES,
    "discriminates": "a discrimination of at least 0.2 (Ebel & Frisbie 1991: below it an item "
                     "is poor)",
    "effective_size": "the number of test tasks that discriminate: those that carry "
                      "information about which system is better (cf. Polo et al. 2024, "
                      "tinyBenchmarks)",
    "flaky": "a system's trials on the task disagree (some pass, some fail), its runs pooled",
    "outliers": "a task's mean latency or cost beyond Tukey's fences Q1 - %s IQR and Q3 + %s "
                "IQR over the tasks' means (nearest-rank quartiles, at least 4 tasks "
                "measured); a task with an unmeasured trial has no mean (never read as 0)" % (
                    float(TUKEY_K), float(TUKEY_K)),
    "runs": "a system's entries that agree in every trial's checks and whether its status is "
            "unknown, and in each task's latency and cost, under the same protocol, are one "
            "run, counted once; its distinct runs are pooled",
}


def _number(value: Optional[Fraction]) -> Optional[float]:
    """An exact value as the nearest double (null for None)."""
    return None if value is None else float(value)


def _rounded(correlation: Optional[Correlation]) -> Optional[float]:
    return None if correlation is None else float(correlation.rounded())


def group_document(group: Group, health: Health) -> JSONObject:
    """A slice's or family's figures, as the JSON document gives them."""
    tasks = group.tasks
    estimable = health.analysis.estimable
    return {
        "task_count": len(tasks),
        "pass_rate": float(sum((task.pass_rate for task in tasks), Fraction(0)) / len(tasks)),
        "never_passed": sum(1 for task in tasks if task.never_passed),
        "saturated": sum(1 for task in tasks if task.saturated),
        "flaky_tasks": sum(1 for task in tasks if task.flaky_systems),
        "unknown_share": float(Fraction(sum(task.unknown_trials for task in tasks),
                                        len(tasks) * health.trials_per_task)),
        "varying_tasks": sum(1 for task in tasks if task.varies),
        "effective_size": sum(1 for task in tasks if task.discriminates) if estimable
        else None,
        "audit_count": sum(1 for task in tasks if task.reasons),
    }


def _task_document(task: TaskHealth, rates: List[List[float]]) -> JSONObject:
    """One task's figures; ``rates`` holds each system's pass rates as doubles, by count."""
    return {
        "case_id": task.case["id"],
        "family_id": task.case["family_id"],
        "slice": task.case["slice"],
        "critical": task.case["critical"],
        "pass_rate": float(task.pass_rate),
        "pass_rates": [table[passing] for table, passing in zip(rates, task.passing)],
        "passing_trials": list(task.passing),
        "flaky_systems": task.flaky_systems,
        "unknown_trials": task.unknown_trials,
        "unknown_share": float(task.unknown_share),
        "never_passed": task.never_passed,
        "saturated": task.saturated,
        "varies": task.varies,
        "discrimination": _rounded(task.discrimination),
        "discrimination_not_estimable": task.discrimination_note or None,
        "discriminates": task.discriminates,
        "mean_latency_ms": _number(task.mean_latency_ms),
        "mean_cost_units": _number(task.mean_cost_units),
        "latency_outlier": task.latency_outlier,
        "cost_outlier": task.cost_outlier,
        "audit": list(task.reasons),
    }


def system_documents(health: Health) -> List[JSONObject]:
    """Each system's figures, as the JSON document gives them."""
    tests = len(health.tasks)
    gate = Fraction(health.spec["gates"]["task_min_trial_success_rate"])
    systems = []
    for system in health.systems:
        # A task passes when passing / trials >= the gate: passing >= ceil(gate * trials).
        needed = -((-gate.numerator * system.trials) // gate.denominator)
        systems.append({
            "name": system.name,
            "runs": list(system.runs),
            "trials_per_task": system.trials,
            "mean_pass_rate": float(Fraction(sum(system.passing), tests * system.trials)),
            "task_success_rate": float(Fraction(sum(1 for passing in system.passing
                                                    if passing >= needed), tests)),
            "flaky_tasks": sum(1 for passing in system.passing
                               if 0 < passing < system.trials),
        })
    return systems


def health_document(health: Health, version: str) -> JSONObject:
    """The ``health`` command's JSON document (plain data; exact values as the nearest
    doubles)."""
    count = len(health.systems)
    analysis = health.analysis
    tests = len(health.tasks)
    systems = system_documents(health)
    audit = health.audit()
    rates = [[float(Fraction(passing, system.trials)) for passing in range(system.trials + 1)]
             for system in health.systems]
    return {
        "action": HEALTH,
        "benchmark_id": health.cases["benchmark_id"],
        "benchmark_version": health.cases["benchmark_version"],
        "dataset_version": health.cases["dataset_version"],
        "task_count": tests,
        "system_count": count,
        "trials_per_task": health.trials_per_task,
        "systems": systems,
        "summary": {
            "never_passed": sum(1 for task in health.tasks if task.never_passed),
            "saturated": sum(1 for task in health.tasks if task.saturated),
            "flaky_tasks": sum(1 for task in health.tasks if task.flaky_systems),
            "flaky_in_most_systems": sum(1 for task in health.tasks if FLAKY in task.reasons),
            "with_unknown_trials": sum(1 for task in health.tasks if task.unknown_trials),
            "negative_discrimination": sum(1 for task in health.tasks
                                           if NEGATIVE_DISCRIMINATION in task.reasons),
            "varying_tasks": sum(1 for task in health.tasks if task.varies),
            "latency_outliers": sum(1 for task in health.tasks if task.latency_outlier),
            "cost_outliers": sum(1 for task in health.tasks if task.cost_outlier),
            "audit_count": len(audit),
        },
        "effective_size": {
            "tasks": health.effective_size,
            "of": tests,
            "threshold": float(DISCRIMINATING),
            "not_estimable": analysis.reason or None,
        },
        "audit": [{"case_id": task.case_id, "reasons": list(task.reasons),
                   "why": [describe_reason(task, reason, count) for reason in task.reasons]}
                  for task in audit],
        "outliers": {
            "latency_fences_ms": None if health.latency_fences is None else [
                float(bound) for bound in health.latency_fences],
            "cost_fences": None if health.cost_fences is None else [
                float(bound) for bound in health.cost_fences],
        },
        "by_slice": {name: group_document(group, health)
                     for name, group in health.by_slice.items()},
        "by_family": {name: group_document(group, health)
                      for name, group in health.by_family.items()},
        "tasks": [_task_document(task, rates) for task in health.tasks],
        "validity": None if health.validity is None else validity_document(health.validity),
        "inputs": dict(health.inputs, packages=health.packages),
        "excluded": health.excluded,
        "methods": dict(METHODS),
        "harness": {"name": NAME, "version": version},
    }
