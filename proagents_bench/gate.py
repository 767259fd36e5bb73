"""The pipeline, one way: load, validate, grade, aggregate, compare, decide, render.

:func:`evaluate` returns the decision document (a dict) and its exit status, or raises
:class:`~proagents_bench.errors.ContractErrors` with every contract error it found, each
placed at its file, line and column. It never prints and never exits: the CLI does; it may
pass a ``progress`` callback, which is told the name of each stage as it starts.

Every stage is linear in the records (one pass for coverage and canonical order, one grading
pass, no sort of the records but a partial one for the p95 latency) and the bootstrap is
O(B m) (see bootstrap.py). Besides, two things keep a run of a million records within a few
times the time and well within twice the memory of a bare ``json.load`` of the same files:

- CPython's cyclic garbage collector is paused for the run (JSON values and everything made
  from them hold no cycles, and each collection would walk millions of loaded objects again);
- each file's decoded text is dropped once every contract check has passed (it is needed only
  to place errors at a line and column), and so are its recorded Decimals once the evidence
  fingerprint has them.
"""

import os

from . import crossfile, jsonload, render
from .bootstrap import family_clusters, paired_interval, task_clusters
from .decision import PASS, decide, incomparable
from .errors import ContractErrors
from .fingerprint import evidence_fingerprint
from .gcpause import CollectorPaused
from .grading import grade_system
from .metrics import SystemMetrics
from .pairstats import paired_summary
from .protocol import protocol_mismatches
from .render import comparison_document, decision_document
from .validate import file_errors
from .version import VERSION

# The most errors reported (and placed at a line, which costs a walk of the file) per run.
MAX_REPORTED_ERRORS = 100

EXIT_PASS = 0
EXIT_DECISION = 1
EXIT_CONTRACT_ERROR = 2
EXIT_INTERNAL_ERROR = 3

KINDS = ("spec", "cases", "results")


class InputFile:
    """One input: the path to open, and the name to show for it (the path as given)."""

    def __init__(self, kind, path, shown=None):
        self.kind = kind
        self.path = path
        self.shown = shown if shown is not None else path


class Evaluation:
    """The decision document and exit status; ``bootstrap_distribution`` is the resampled
    means as sorted (mean, how many samples) pairs of exact values, for reports (None when
    INCOMPARABLE); ``gates`` is the spec's gates (exact values), for reports.

    ``document`` is plain data (dicts, lists, strings, numbers). Its per-trial evidence is
    built on first use: :meth:`chunks` writes the same bytes as ``render.dumps(document)``
    straight from the graded records, so printing a decision never builds a dict per trial.
    """

    def __init__(self, document, exit_status, gates, bootstrap_distribution=None):
        self._document = document
        self.exit_status = exit_status
        self.gates = gates
        self.bootstrap_distribution = bootstrap_distribution

    @property
    def document(self):
        return render.materialize(self._document)

    @property
    def lazy_document(self):
        """The document with each system's ``trial_results`` still kept as the graded
        records (a :class:`~proagents_bench.trialrows.TrialRows`, which gives single entries
        and all latencies on demand): what the reports read, so that a report of a million
        trials never builds a million dicts."""
        return self._document

    def chunks(self):
        """The document's bytes (exactly ``render.dumps(self.document)``) as a list of
        chunks of about a megabyte each."""
        with CollectorPaused():
            return list(render.chunks(self._document))


def evaluate(inputs, candidate_id=None, progress=None):
    """Evaluate the three :class:`InputFile` objects ``inputs`` (spec, cases, results);
    ``progress(stage)``, when given, is called with each stage's name as it starts."""
    with CollectorPaused():
        return _evaluate(inputs, candidate_id, progress or _quiet)


def _quiet(stage):
    pass


def _evaluate(inputs, candidate_id, progress):
    progress("loading and validating")
    documents, values = _load_and_validate(inputs)
    spec, cases, results = values["spec"], values["cases"], values["results"]
    errors = []
    systems = None
    if spec is not None and cases is not None:
        errors.extend(crossfile.cases_errors(spec, cases))
        if results is not None and not errors:
            found, systems = crossfile.results_errors(spec, cases, results, candidate_id)
            errors.extend(found)
    if errors:
        _raise_located(errors, documents)
    decimals = []
    for kind in KINDS:  # every check passed: the texts are no longer needed (memory)
        documents[kind].text = None
        if decimals is not None and documents[kind].decimals is not None:
            decimals.extend(documents[kind].decimals)
        else:
            decimals = None  # not recorded: the fingerprint finds them itself
        documents[kind].decimals = None

    progress("computing the evidence fingerprint")
    mismatches = protocol_mismatches(spec, [systems.baseline, systems.candidate])
    fingerprint = evidence_fingerprint(spec, cases, results, systems.candidate["system_id"],
                                       decimals=decimals)
    del decimals
    shared = dict(comparable=not mismatches, fingerprint=fingerprint, spec=spec, cases=cases,
                  results=results, systems=systems, inputs=_describe_inputs(inputs, documents),
                  version=VERSION)
    if mismatches:
        decision = incomparable(mismatches)
        document = decision_document(decision=decision, baseline_metrics=None,
                                     candidate_metrics=None,
                                     comparison=comparison_document(spec, mismatches), **shared)
        return Evaluation(document, EXIT_DECISION, spec["gates"])

    progress("grading")
    tasks = [case for case in cases["cases"] if case["split"] == "test"]
    gates = spec["gates"]
    metrics = {}
    for role, system, records in (
            ("baseline", systems.baseline, systems.baseline_records),
            ("candidate", systems.candidate, systems.candidate_records)):
        grades = grade_system(system, tasks, records)
        metrics[role] = SystemMetrics(grades, gates)
    baseline, candidate = metrics["baseline"], metrics["candidate"]
    baseline_passes, candidate_passes = baseline.task_passes(), candidate.task_passes()
    differences = [c - b for c, b in zip(candidate_passes, baseline_passes)]
    families = [case["family_id"] for case in tasks]
    bootstrap = spec["bootstrap"]
    unit = bootstrap.get("unit", "task")  # spec v1 has no unit: it resamples tasks
    clusters = (family_clusters(differences, families) if unit == "family"
                else task_clusters(differences))
    progress("bootstrapping")
    interval = paired_interval(clusters, bootstrap["samples"], bootstrap["seed"],
                               bootstrap["confidence"])
    progress("deciding")
    statistics = paired_summary(baseline_passes, candidate_passes, families,
                                bootstrap["confidence"])
    delta = candidate.primary_task_success_rate - baseline.primary_task_success_rate
    decision = decide(gates, candidate, interval, statistics)
    comparison = comparison_document(spec, [], delta, interval, unit, statistics)
    document = decision_document(decision=decision, baseline_metrics=baseline,
                                 candidate_metrics=candidate, comparison=comparison, **shared)
    return Evaluation(document, EXIT_PASS if decision.action == PASS else EXIT_DECISION,
                      gates, interval.distribution())


def _load_and_validate(inputs):
    """Load and validate every file, collecting the errors of all three before raising."""
    documents = {}
    values = {kind: None for kind in KINDS}
    errors = []
    for item in inputs:
        try:
            document = jsonload.load_file(item.path, source=item.shown)
        except ContractErrors as failure:
            errors.extend((item.kind, error) for error in failure.errors)
            continue
        documents[item.kind] = document
        problems = file_errors(item.kind, document.value)
        if problems:
            errors.extend((item.kind, error) for error in problems)
        else:
            values[item.kind] = document.value
    if errors:
        _raise_located(errors, documents)
    return documents, values


def _raise_located(errors, documents):
    """Raise ContractErrors with the first errors placed at their line and column."""
    shown = errors[:MAX_REPORTED_ERRORS]
    located = []
    for kind in KINDS:
        mine = [error for error_kind, error in shown if error_kind == kind]
        if not mine:
            continue
        if kind in documents:
            located.extend(documents[kind].errors_at(mine))
        else:
            located.extend(mine)  # load errors already carry their file and position
    raise ContractErrors(located, omitted=len(errors) - len(shown))


def _describe_inputs(inputs, documents):
    described = {}
    for item in inputs:
        document = documents[item.kind]
        described[item.kind] = {
            "file": item.shown,
            "sha256": document.sha256,
            "bytes": document.size,
        }
    return described


def default_inputs(spec=None, cases=None, results=None):
    """The three inputs; a file not given is the shipped example, shown relative to the
    project (``examples/benchmark_spec.json``), so the document is the same on any machine."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    chosen = []
    for kind, given in (("spec", spec), ("cases", cases), ("results", results)):
        if given is not None:
            chosen.append(InputFile(kind, given))
        else:
            name = DEFAULT_FILES[kind]
            chosen.append(InputFile(kind, os.path.join(root, "examples", name),
                                    "examples/" + name))
    return chosen


DEFAULT_FILES = {
    "spec": "benchmark_spec.json",
    "cases": "benchmark_cases.json",
    "results": "benchmark_results_pass.json",
}
