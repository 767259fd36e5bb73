"""The health of a benchmark's test tasks across many results packages.

:func:`measure` reads any number of results packages of one benchmark and dataset version,
each checked by the gate's own checks against one spec and one cases file
(:func:`proagents_bench.pipeline.check_results`: a package of another benchmark, version or
dataset version, or one that breaks the contract, is a contract error naming its file),
grades every trial with the gate's grader (:func:`~proagents_bench.evaluation.grading.
grade_system`), and reports per test task, per slice and per family how the systems fared,
with the tasks to audit first. One package is read at a time and dropped once graded, so
the memory is the cases file's and one package's and a few numbers per task and system:
about :data:`MEMORY_PER_INPUT_BYTE` bytes per byte of the cases file and the largest package
(:func:`memory_needed`); a run that finds less is a ``cli.out_of_memory`` error saying how
much its inputs need (:func:`out_of_memory`), never an internal error.

**Systems and runs.** A system is a ``system_id`` (a package may give its candidate another
name: the private-test service names each submission by its team). Its runs are its
systems' entries across the packages; two entries that agree in everything measured here
(every trial's checks and whether its status is ``unknown``, each task's latency and cost,
under the same protocol) are one run counted once: the baseline every package carries, or the service splices into
every submission. A system's distinct runs are pooled: its trials on a task are the trials of
all its runs. A system whose protocol differs from the spec's is left out (the gate would
find it INCOMPARABLE) and listed.

**Per task**, with S systems, system s passing c_s of its N_s trials:

- ``pass_rates``: c_s / N_s per system; ``pass_rate``: their mean over the systems (each
  system weighs the same, however many trials it ran);
- ``flaky_systems``: the systems whose trials disagree (0 < c_s < N_s), across runs too;
- ``unknown_trials`` and ``unknown_share``: trials of status ``unknown`` (the importers'
  infrastructure errors and missing trials) over all trials;
- ``never_passed``: no trial of any system passed (possibly broken or unsolvable: audit it
  first); ``saturated``: every trial of every system passed (it separates nobody);
- ``discrimination``: the item-rest correlation of the systems' pass rates
  (:mod:`proagents_bench.stats.items`); a task **discriminates** when it is at least
  :data:`DISCRIMINATING` (0.2: Ebel & Frisbie 1991 call items below it poor);
- ``mean_latency_ms`` and ``mean_cost_units`` over all its trials (null when any is
  unmeasured: never read as 0), and whether each is an outlier among the tasks (Tukey's
  fences on the nearest-rank quartiles of the tasks' means).

**The effective size** is the number of test tasks that discriminate: the tasks that carry
information about which system is better (neither never passed nor saturated, nor scored the
same by every system, and correlated with the rest of the benchmark). Polo et al. (2024,
"tinyBenchmarks: evaluating LLMs with fewer examples", ICML) find most items of large
benchmarks uninformative in this sense. It is not estimable (null, with the reason) when the
discrimination index is not: fewer than three systems, or all with the same total.

**The tasks to audit first**, in this order of their first reason (:data:`AUDIT_REASONS`),
then by how many reasons they have, then in the cases file's order: never passed; a
negative discrimination of at most -0.2 (the better systems fail it: a wrong answer key?);
unknown trials; flaky in most systems; saturated; a latency or cost outlier.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from math import gcd
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .. import pipeline
from ..contract.vocabulary import ROLES, TEST_SPLIT, UNKNOWN
from ..errors import ContractError, ContractErrors
from ..evaluation.comparison import protocol_mismatches
from ..evaluation.grading import SystemGrades, grade_system
from ..evaluation.metrics import passing_trials
from ..jsonio import JSON, JSONObject, load
from ..jsonio.gcpause import CollectorPaused
from ..stats.exact import Exact, add_exact, group_sums
from ..stats.items import PLACES, TUKEY_K, Correlation, ItemAnalysis, tukey_fences
from ..text import display_name
from ..version import NAME

HEALTH = "HEALTH"
DISCRIMINATING = Fraction(1, 5)
# The memory health needs: it holds the cases file and one package at a time (a forked
# process reads a second one, in its own memory). Measured as the peak resident set of
# ``health`` on one synthetic package of 10,000 to 100,000 tasks x 2 and 5 trials (CPython
# 3.11): 6.2 to 7.7 bytes per byte of the cases file and the package together, the
# interpreter's own 20 MB included; so 8 per byte, and 32 MB besides.
MEMORY_PER_INPUT_BYTE = 8
MEMORY_BASE = 32 << 20
# The audit reasons, most urgent first.
NEVER_PASSED = "never_passed"
NEGATIVE_DISCRIMINATION = "negative_discrimination"
UNKNOWN_TRIALS = "unknown_trials"
FLAKY = "flaky"
SATURATED = "saturated"
LATENCY_OUTLIER = "latency_outlier"
COST_OUTLIER = "cost_outlier"
AUDIT_REASONS = (NEVER_PASSED, NEGATIVE_DISCRIMINATION, UNKNOWN_TRIALS, FLAKY, SATURATED,
                 LATENCY_OUTLIER, COST_OUTLIER)
AUDIT_MEANINGS = {
    NEVER_PASSED: "no trial of any system passed: possibly broken or unsolvable",
    NEGATIVE_DISCRIMINATION: "the systems that do better elsewhere fail it more often: a "
                             "wrong answer key or an ambiguous task?",
    UNKNOWN_TRIALS: "trials of status unknown (infrastructure errors, missing trials)",
    FLAKY: "its trials disagree in most systems: a nondeterministic task or environment?",
    SATURATED: "every trial of every system passed: it separates nobody",
    LATENCY_OUTLIER: "its mean latency lies beyond Tukey's fences",
    COST_OUTLIER: "its mean cost lies beyond Tukey's fences",
}
HIGH, LOW = "high", "low"

Progress = Callable[..., None]


class Package:
    """A results package to read (a :class:`~proagents_bench.pipeline.InputFile`) and the
    name its candidate is shown under (None: its ``system_id``)."""

    def __init__(self, source: pipeline.InputFile, candidate_name: Optional[str] = None) -> None:
        self.source = source
        self.candidate_name = candidate_name


class Run:
    """One system's entry in one package, graded and summed per task (plain data, so that a
    forked process can hand it back): its passing trials, unknown trials (None: none) and
    exact latency and cost sums per task, and a ``key``: two entries with equal keys agree
    in everything measured here (the name, the protocol, every trial's checks and whether
    its status is unknown, each task's latency and cost as written), and are one run."""

    def __init__(self, name: str, grades: SystemGrades) -> None:
        self.name = name
        self.trial_count = grades.trial_count
        self.passing = passing_trials(grades)
        unknown = None
        flags = b""
        if grades.unknown_trial_count:
            flags = bytes([record["status"] == UNKNOWN for record in grades.records])
            unknown = [flags.count(1, start, start + self.trial_count)
                       for start in range(0, len(flags), self.trial_count)]
        self.unknown = unknown
        self.latency = group_sums(grades.latencies, self.trial_count)
        self.cost = group_sums(grades.costs, self.trial_count)
        digest = hashlib.sha256()
        for part in (name, repr(sorted(grades.system["protocol"].items()))):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        for data in (bytes(grades.outcomes), flags):
            digest.update(b"%d\0" % len(data) + data)
        for sums in (self.latency, self.cost):
            digest.update("\n".join(map(str, sums)).encode("ascii") + b"\0")
        self.key = digest.hexdigest()


class Reading:
    """What reading one package found: its errors, or its description and, per system, the
    system's description with its :class:`Run` (None when it ran under another protocol,
    whose mismatches ``excluded`` lists)."""

    def __init__(self) -> None:
        self.errors: List[ContractError] = []
        self.entry: JSONObject = {}
        self.runs: List[Tuple[JSONObject, Optional[Run]]] = []
        self.excluded: List[JSONObject] = []


def read_packages(spec: load.Document, cases: load.Document, packages: Sequence[Package],
                  progress: Progress, first: int = 1, total: int = 0) -> List[Reading]:
    """Check, grade and summarise each of ``packages`` in turn, one in memory at a time
    (``first`` and ``total``: their numbers, for the progress lines)."""
    tests = [case for case in cases.value["cases"] if case["split"] == TEST_SPLIT]
    readings = []
    for number, package in enumerate(packages, first):
        progress("reading package %d of %d" % (number, total or len(packages)),
                 package.source.size(), "bytes")
        reading = Reading()
        readings.append(reading)
        try:
            document = package.source.load()
            context = pipeline.check_results(spec, cases, document)
        except ContractErrors as failure:
            reading.errors = failure.errors
            continue
        if any(earlier.errors for earlier in readings):
            continue  # the run ends in a contract error: only the checks go on
        shown = display_name(package.source.shown)
        reading.entry = _describe(package.source, document)
        found = context.checked()
        baseline_records, candidate_records = found.in_order()
        for role, system, records in ((ROLES[0], found.baseline, baseline_records),
                                      (ROLES[1], found.candidate, candidate_records)):
            name = system["system_id"]
            if role == ROLES[1] and package.candidate_name is not None:
                name = package.candidate_name
            described = {"system_id": system["system_id"], "name": name, "role": role}
            mismatches = protocol_mismatches(spec.value, [system])
            if mismatches:
                described["counted"] = "excluded"
                reading.excluded.append({"file": shown, "system": name,
                                         "protocol_mismatches": mismatches})
                reading.runs.append((described, None))
            else:
                reading.runs.append((described, Run(name, grade_system(system, tests,
                                                                       records))))
        del document, context, found  # one package at a time in memory
    return readings


class SystemHealth:
    """A system's pooled runs: trials per task and passing trials per task."""

    def __init__(self, name: str, task_count: int) -> None:
        self.name = name
        self.trials = 0
        self.passing = [0] * task_count
        self.runs: List[str] = []  # the files of its counted runs

    def add(self, run: Run, shown: str) -> None:
        self.trials += run.trial_count
        self.passing = [total + count for total, count in zip(self.passing, run.passing)]
        self.runs.append(shown)


class TaskHealth:
    """One test task's health (see the module docstring)."""

    def __init__(self, case: JSONObject, position: int) -> None:
        self.case = case
        self.position = position
        self.passing: Tuple[int, ...] = ()
        self.pass_rates: List[Fraction] = []
        self.pass_rate = Fraction(0)
        self.flaky_systems = 0
        self.unknown_trials = 0
        self.unknown_share = Fraction(0)
        self.never_passed = False
        self.saturated = False
        self.varies = False
        self.discrimination: Optional[Correlation] = None
        self.discrimination_note = ""
        self.mean_latency_ms: Optional[Fraction] = None
        self.mean_cost_units: Optional[Fraction] = None
        self.latency_outlier: Optional[str] = None
        self.cost_outlier: Optional[str] = None
        self.reasons: List[str] = []

    @property
    def case_id(self) -> str:
        case_id: str = self.case["id"]
        return case_id

    @property
    def discriminates(self) -> bool:
        return self.discrimination is not None and self.discrimination.at_least(DISCRIMINATING)

    def audit_order(self) -> Tuple[int, int, int]:
        return (AUDIT_REASONS.index(self.reasons[0]), -len(self.reasons), self.position)


class Group:
    """The tasks of one slice or family."""

    def __init__(self) -> None:
        self.tasks: List[TaskHealth] = []


class Health:
    """Every test task's health, the systems, the groups and the effective size."""

    def __init__(self) -> None:
        self.spec: JSONObject = {}
        self.cases: JSONObject = {}
        self.inputs: Dict[str, JSONObject] = {}
        self.packages: List[JSONObject] = []
        self.excluded: List[JSONObject] = []
        self.systems: List[SystemHealth] = []
        self.tasks: List[TaskHealth] = []
        self.analysis = ItemAnalysis([])  # until measured: of no system, not estimable
        self.trials_per_task = 0
        self.latency_fences: Optional[Tuple[Fraction, Fraction]] = None
        self.cost_fences: Optional[Tuple[Fraction, Fraction]] = None
        self.by_slice: Dict[str, Group] = {}
        self.by_family: Dict[str, Group] = {}

    @property
    def effective_size(self) -> Optional[int]:
        if not self.analysis.estimable:
            return None
        return sum(1 for task in self.tasks if task.discriminates)

    def audit(self) -> List[TaskHealth]:
        """The tasks to audit, first first."""
        return sorted((task for task in self.tasks if task.reasons),
                      key=TaskHealth.audit_order)


def _quiet(stage: str, count: Optional[int] = None, unit: str = "") -> None:
    pass


def run_here(read: Callable[[], List[Reading]]) -> Callable[[], List[Reading]]:
    """The default way to read the second half of the packages: here, when asked for (the
    command line may pass one that reads it in a forked process meanwhile)."""
    return read


Background = Callable[[Callable[[], List[Reading]]], Callable[[], List[Reading]]]


def memory_needed(cases_bytes: int, package_bytes: int) -> int:
    """The bytes of memory health needs for a cases file and a largest package of these
    sizes (:data:`MEMORY_PER_INPUT_BYTE`)."""
    return MEMORY_BASE + MEMORY_PER_INPUT_BYTE * (cases_bytes + package_bytes)


def out_of_memory(cases: pipeline.InputFile, packages: Sequence[Package]) -> ContractError:
    """The error of a health that ran out of memory: what its inputs' sizes need."""
    cases_bytes = cases.size() or 0
    sized = [(package.source.size() or 0, package.source.shown) for package in packages]
    largest, name = max(sized) if sized else (0, None)
    return ContractError("cli.out_of_memory", (
        "health ran out of memory: it holds the cases file (%s)%s at a time, about %d bytes "
        "of memory per byte of them, so it needs about %s here; run it where the process may "
        "use that much, or on fewer tasks" % (
            _megabytes(cases_bytes),
            " and one results package (the largest, %s: %s)" % (name, _megabytes(largest))
            if name is not None else " and one results package",
            MEMORY_PER_INPUT_BYTE, _megabytes(memory_needed(cases_bytes, largest)))))


def _megabytes(size: int) -> str:
    return "%.0f MB" % (size / 1e6) if size >= 10 ** 6 else "%d bytes" % size


def measure(spec: pipeline.InputFile, cases: pipeline.InputFile, packages: Sequence[Package],
            progress: Optional[Progress] = None, background: Background = run_here) -> Health:
    """The health of the test tasks of ``cases`` over ``packages``; raise
    :class:`ContractErrors` with the errors of every file that breaks the contract (each placed
    in its file), or when no package is given. ``background`` starts the reading of the
    packages' second half (by bytes) while this process reads the first; what each half
    found is merged in the packages' order, so the result is the same either way."""
    with CollectorPaused():
        return _measure(spec, cases, packages, progress or _quiet, background)


def _halves(packages: Sequence[Package]) -> int:
    """Where the second half of the packages starts (by their sizes; at least one each)."""
    sizes = [package.source.size() or 0 for package in packages]
    total, running = sum(sizes), 0
    for index, size in enumerate(sizes):
        running += size
        if 2 * running >= total:
            return max(1, min(index + 1, len(packages) - 1))
    return len(packages) - 1


def _measure(spec_input: pipeline.InputFile, cases_input: pipeline.InputFile,
             packages: Sequence[Package], progress: Progress, background: Background) -> Health:
    if not packages:
        raise ContractErrors([ContractError(
            "cli.usage", "health reads at least one results package (or pair of logs)")])
    spec, cases = pipeline.load_benchmark(spec_input, cases_input, progress)
    health = Health()
    health.spec, health.cases = spec.value, cases.value
    health.inputs = {kind: _describe(item, document) for kind, item, document in (
        ("spec", spec_input, spec), ("cases", cases_input, cases))}
    split = _halves(packages) if len(packages) > 1 else len(packages)
    later: Callable[[], List[Reading]] = list
    if split < len(packages):
        later = background(lambda: read_packages(spec, cases, packages[split:], _quiet))
    readings = read_packages(spec, cases, packages[:split], progress, 1, len(packages))
    if split < len(packages):
        progress("reading packages %d to %d" % (split + 1, len(packages)))
    readings += later()
    errors = [error for reading in readings for error in reading.errors]
    if errors:
        raise ContractErrors.capped(errors)
    tests = [case for case in cases.value["cases"] if case["split"] == TEST_SPLIT]
    systems: Dict[str, SystemHealth] = {}
    seen: Dict[str, str] = {}
    unknown = [0] * len(tests)
    latency: List[Optional[Exact]] = [0] * len(tests)
    cost: List[Optional[Exact]] = [0] * len(tests)
    for reading in readings:
        shown = reading.entry["file"]
        health.excluded.extend(reading.excluded)
        reading.entry["systems"] = []
        for described, run in reading.runs:
            reading.entry["systems"].append(described)
            if run is None:
                continue
            if run.key in seen:
                described["counted"] = "the same run as in %s" % seen[run.key]
                continue
            seen[run.key] = shown
            described["counted"] = "counted"
            if run.name not in systems:
                systems[run.name] = SystemHealth(run.name, len(tests))
            systems[run.name].add(run, shown)
            if run.unknown is not None:
                unknown = [total + count for total, count in zip(unknown, run.unknown)]
            latency = list(map(add_exact, latency, run.latency))
            cost = list(map(add_exact, cost, run.cost))
        health.packages.append(reading.entry)
    if not systems:
        raise ContractErrors([ContractError(
            "health.nothing_comparable", "no system ran under the spec's protocol, so nothing "
            "can be measured: %s" % "; ".join(
                mismatch for item in health.excluded
                for mismatch in item["protocol_mismatches"][:3]))])
    progress("measuring", len(tests), "tasks")
    health.systems = [systems[name] for name in sorted(systems)]
    _tasks(health, tests, unknown, latency, cost)
    return health


def _describe(item: pipeline.InputFile, document: load.Document) -> JSONObject:
    return {"file": display_name(item.shown), "sha256": document.sha256,
            "bytes": document.size}


def _lcm(numbers: Sequence[int]) -> int:
    result = 1
    for number in numbers:
        result = result * number // gcd(result, number)
    return result


def _tasks(health: Health, tests: List[JSONObject], unknown: List[int],
           latency: List[Optional[Exact]], cost: List[Optional[Exact]]) -> None:
    """Every task's health from the pooled systems (see the module docstring)."""
    systems = health.systems
    trials = [system.trials for system in systems]
    health.trials_per_task = all_trials = sum(trials)
    common = _lcm(trials)
    # Integer scores on a common scale: a pass rate c/N is c (L/N) / L.
    factors = [common // count for count in trials]
    scaled = [[passing * factor for passing in system.passing]
              for system, factor in zip(systems, factors)]
    health.analysis = analysis = ItemAnalysis([sum(scores) for scores in scaled])
    count = len(systems)
    rates = [[Fraction(passing, system.trials) for passing in range(system.trials + 1)]
             for system in systems]
    columns = zip(*[system.passing for system in systems])
    for position, (case, passing, scores) in enumerate(zip(tests, columns, zip(*scaled))):
        task = TaskHealth(case, position)
        task.passing = passing
        task.pass_rates = [table[value] for table, value in zip(rates, passing)]
        task.pass_rate = Fraction(sum(scores), count * common)
        task.flaky_systems = sum(1 for value, total in zip(passing, trials)
                                 if 0 < value < total)
        task.unknown_trials = unknown[position]
        task.unknown_share = Fraction(unknown[position], all_trials)
        task.never_passed = not any(passing)
        task.saturated = all(
            value == total for value, total in zip(passing, trials))
        task.varies = len(set(scores)) > 1
        task.discrimination = analysis.correlation(scores)
        if task.discrimination is None:
            task.discrimination_note = analysis.why_not(scores)
        latency_sum, cost_sum = latency[position], cost[position]
        if latency_sum is not None:
            task.mean_latency_ms = Fraction(latency_sum) / all_trials
        if cost_sum is not None:
            task.mean_cost_units = Fraction(cost_sum) / all_trials
        health.tasks.append(task)
        health.by_slice.setdefault(case["slice"], Group()).tasks.append(task)
        health.by_family.setdefault(case["family_id"], Group()).tasks.append(task)
    health.latency_fences = _outliers(health.tasks, latency, all_trials, "latency_outlier")
    health.cost_fences = _outliers(health.tasks, cost, all_trials, "cost_outlier")
    for task in health.tasks:
        task.reasons = _reasons(task, count)


def _outliers(tasks: List[TaskHealth], totals: List[Optional[Exact]], trials: int,
              flag: str) -> Optional[Tuple[Fraction, Fraction]]:
    """Flag the tasks whose mean lies beyond Tukey's fences; return the fences (of the
    means). Every task has the same number of trials, so the fences are found on the tasks'
    exact totals (sorted as they are) and divided by it."""
    fences = tukey_fences([total for total in totals if total is not None])
    if fences is None:
        return None
    low, high = fences
    for task, total in zip(tasks, totals):
        if total is not None:
            exact = Fraction(total)
            if exact < low or exact > high:
                setattr(task, flag, HIGH if exact > high else LOW)
    return low / trials, high / trials


def _reasons(task: TaskHealth, system_count: int) -> List[str]:
    reasons = []
    if task.never_passed:
        reasons.append(NEVER_PASSED)
    if task.discrimination is not None and task.discrimination.at_most(-DISCRIMINATING):
        reasons.append(NEGATIVE_DISCRIMINATION)
    if task.unknown_trials:
        reasons.append(UNKNOWN_TRIALS)
    if 2 * task.flaky_systems > system_count:
        reasons.append(FLAKY)
    if task.saturated:
        reasons.append(SATURATED)
    if task.latency_outlier:
        reasons.append(LATENCY_OUTLIER)
    if task.cost_outlier:
        reasons.append(COST_OUTLIER)
    return reasons


def describe_reason(task: TaskHealth, reason: str, system_count: int) -> str:
    """One audit reason of ``task`` in words, with its evidence."""
    if reason == NEVER_PASSED:
        return "never passed: no trial of the %d system%s passed" % (
            system_count, "" if system_count == 1 else "s")
    if reason == NEGATIVE_DISCRIMINATION:
        return "negative discrimination %s: the systems that do better elsewhere fail it " \
               "more often (a wrong answer key?)" % _places(task.discrimination)
    if reason == UNKNOWN_TRIALS:
        return "%d trial%s of status unknown (infrastructure errors, missing trials)" % (
            task.unknown_trials, "" if task.unknown_trials == 1 else "s")
    if reason == FLAKY:
        return "flaky in %d of %d systems: their trials disagree" % (task.flaky_systems,
                                                                     system_count)
    if reason == SATURATED:
        return "saturated: every trial of every system passed; it separates nobody"
    if reason == LATENCY_OUTLIER:
        return "mean latency %s ms is a %s outlier among the tasks" % (
            _short(task.mean_latency_ms), task.latency_outlier)
    return "mean cost %s is a %s outlier among the tasks" % (_short(task.mean_cost_units),
                                                              task.cost_outlier)


def _places(correlation: Optional[Correlation]) -> str:
    return "null" if correlation is None else str(float(correlation.rounded()))


def _short(value: Optional[Fraction]) -> str:
    return "null" if value is None else format(float(value), ".6g")


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
        "inputs": dict(health.inputs, packages=health.packages),
        "excluded": health.excluded,
        "methods": dict(METHODS),
        "harness": {"name": NAME, "version": version},
    }
