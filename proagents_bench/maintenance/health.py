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

The figures (per task, the effective size, the tasks to audit) are :mod:`.health_figures`',
and the JSON document :mod:`.health_document`'s.
"""

from __future__ import annotations

import hashlib
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .. import pipeline
from ..contract.vocabulary import ROLES, TEST_SPLIT, UNKNOWN
from ..errors import ContractError, ContractErrors
from ..evaluation.comparison import protocol_mismatches
from ..evaluation.grading import SystemGrades, grade_system
from ..evaluation.metrics import passing_trials
from ..jsonio import JSONObject, load
from ..jsonio.gcpause import CollectorPaused
from ..stats.exact import Exact, add_exact, group_sums
from ..text import display_name
from .health_figures import Health, SystemHealth, measure_tasks
from .validity import ORACLE, REFERENCES, Evidence, audit

# The memory health needs: it holds the cases file and one package at a time (a forked
# process reads a second one, in its own memory). Measured as the peak resident set of
# ``health`` on one synthetic package of 10,000 to 100,000 tasks x 2 and 5 trials (CPython
# 3.11): 6.2 to 7.7 bytes per byte of the cases file and the package together, the
# interpreter's own 20 MB included; so 8 per byte, and 32 MB besides.
MEMORY_PER_INPUT_BYTE = 8
MEMORY_BASE = 32 << 20


Progress = pipeline.Progress


class Package:
    """A results package to read (a :class:`~proagents_bench.pipeline.InputFile`), the
    name its candidate is shown under (None: its ``system_id``), and ``reference``: None, or
    which reference agent its candidate is (:data:`~.validity.REFERENCES`: the do-nothing
    agent or the oracle), kept apart from the systems measured (:mod:`.validity`)."""

    def __init__(self, source: pipeline.InputFile, candidate_name: Optional[str] = None,
                 reference: Optional[str] = None) -> None:
        self.source = source
        self.candidate_name = candidate_name
        self.reference = reference


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
        self.evidence = Evidence(grades)
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
        if context.look is not None and len(context.test_cases()) != len(tests):
            # A look of a sequential design that holds only the first tasks of its pool:
            # health pools whole packages, task by task.
            reading.errors = [ContractError(
                "health.partial_look", "this package is look %d of the spec's sequential "
                "design and holds %d of the %d test cases: health pools packages that hold "
                "every test case (the design's last look over the whole pool)" % (
                    context.look + 1, len(context.test_cases()), len(tests)), (),
                package.source.shown)]
            continue
        if any(earlier.errors for earlier in readings):
            continue  # the run ends in a contract error: only the checks go on
        shown = display_name(package.source.shown)
        # a look of a sequential design runs the look's trial count (the spec's: its last)
        trial_count = (None if context.look is None else
                       spec.value["sequential"]["looks"][context.look]["trials"])
        reading.entry = _describe(package.source, document)
        found = context.checked()
        baseline_records, candidate_records = found.in_order()
        for role, system, records in ((ROLES[0], found.baseline, baseline_records),
                                      (ROLES[1], found.candidate, candidate_records)):
            name = system["system_id"]
            if role == ROLES[1] and package.candidate_name is not None:
                name = package.candidate_name
            described = {"system_id": system["system_id"], "name": name, "role": role}
            if role == ROLES[1] and package.reference is not None:
                described["reference"] = package.reference
            mismatches = protocol_mismatches(spec.value, [system], trial_count)
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
    for kind in REFERENCES:
        given = [package.source.shown for package in packages if package.reference == kind]
        if len(given) > 1:
            raise ContractErrors([ContractError(
                "cli.usage", "health takes one %s reference run, given %d (%s)" % (
                    kind.replace("_", "-"), len(given), ", ".join(given)))])
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
    references: Dict[str, Tuple[SystemHealth, Evidence]] = {}
    evidence: Optional[Evidence] = None
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
            agent: Optional[str] = described.get("reference")
            if agent is not None:  # a reference agent: its own, never pooled with the systems
                described["counted"] = "reference: %s" % agent
                reference = SystemHealth(run.name, len(tests))
                reference.add(run.trial_count, run.passing, shown)
                references[agent] = (reference, run.evidence)
                if agent == ORACLE:
                    evidence = _pooled(evidence, run.evidence)
                continue
            if run.key in seen:
                described["counted"] = "the same run as in %s" % seen[run.key]
                continue
            seen[run.key] = shown
            described["counted"] = "counted"
            if run.name not in systems:
                systems[run.name] = SystemHealth(run.name, len(tests))
            systems[run.name].add(run.trial_count, run.passing, shown)
            evidence = _pooled(evidence, run.evidence)
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
    measure_tasks(health, tests, unknown, latency, cost)
    if evidence is not None:
        health.validity = audit(spec.value, tests, health.systems, evidence, references)
    return health


def _pooled(pooled: Optional[Evidence], run: Evidence) -> Evidence:
    """``run``'s evidence pooled into ``pooled`` (a copy of ``run``'s when None)."""
    if pooled is None:
        pooled = Evidence.empty(len(run.final_state_met))
    pooled.merge(run)
    return pooled


def _describe(item: pipeline.InputFile, document: load.Document) -> JSONObject:
    return {"file": display_name(item.shown), "sha256": document.sha256,
            "bytes": document.size}
