"""The pipeline, one way: load, validate, grade, aggregate, compare, decide, render.

:func:`evaluate` returns an :class:`Evaluation` (the decision and its document), or raises
:class:`~proagents_bench.errors.ContractErrors` with every contract error it found, each
placed at its file, line and column. It never prints and never exits: the command line does;
it may pass a ``progress`` callback, which is told the name of each stage as it starts.

Every stage is linear in the records (one pass for coverage and canonical order, one grading
pass, no sort of the records but a partial one for the p95 latency) and the bootstrap is
O(B m) (see :mod:`proagents_bench.stats.bootstrap`). Besides, two things keep a run of a
million records within a few times the time and well within twice the memory of a bare
``json.load`` of the same files:

- CPython's cyclic garbage collector is paused for the run (JSON values and everything made
  from them hold no cycles, and each collection would walk millions of loaded objects again);
- each file's decoded text is dropped once every contract check has passed (it is needed only
  to place errors at a line and column), and so are its recorded Decimals once the evidence
  fingerprint has them.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence

from .contract.rules import Context, cross_file_errors
from .contract.validate import file_errors
from .contract.vocabulary import PASS
from .errors import ContractError, ContractErrors
from .evaluation.comparison import compare, protocol_mismatches
from .evaluation.decision import Decision, decide, incomparable
from .evaluation.grading import grade_system
from .evaluation.metrics import SystemMetrics
from .jsonio import load
from .jsonio.canonical import evidence_fingerprint
from .jsonio.gcpause import CollectorPaused
from .render import document as render
from .text import display_name
from .version import VERSION

# The most errors reported (and placed at a line, which costs a walk of the file) per run.
MAX_REPORTED_ERRORS = 100

KINDS = ("spec", "cases", "results")

Progress = Callable[[str], None]


class InputFile:
    """One input: its ``kind`` (spec, cases or results), the ``path`` to open, and the name
    to show for it (``shown``: the path as given). With ``data`` the file's bytes are given
    instead of read (the private-test service's submissions, the importers' checks)."""

    def __init__(self, kind: str, path: Optional[str] = None, shown: Optional[str] = None,
                 data: Optional[bytes] = None) -> None:
        self.kind = kind
        self.path = path
        self.shown = shown if shown is not None else path
        self.data = data

    def load(self) -> load.Document:
        if self.data is not None:
            return load.parse_bytes(self.data, self.shown)
        return load.load_file(self.path, source=self.shown)


class Evaluation:
    """The decision and its document.

    ``decision`` holds the action, the reasons and every finding with its severity and
    reason; ``gates`` is the spec's gates (exact values) and ``bootstrap_distribution`` the
    resampled means as sorted (mean, how many samples) pairs of exact values (None when
    INCOMPARABLE), both for reports. ``document`` is the decision document as plain data;
    its per-trial evidence is built on first use, and :meth:`chunks` writes the same bytes
    straight from the graded records, so printing a decision never builds a dict per trial.
    """

    def __init__(self, decision: Decision, document: dict, gates: dict,
                 bootstrap_distribution: Optional[list] = None) -> None:
        self.decision = decision
        self._document = document
        self.gates = gates
        self.bootstrap_distribution = bootstrap_distribution

    @property
    def action(self) -> str:
        return self.decision.action

    @property
    def passed(self) -> bool:
        return self.decision.action == PASS

    @property
    def document(self) -> dict:
        return render.materialize(self._document)

    @property
    def lazy_document(self) -> dict:
        """The document with each system's ``trial_results`` still kept as the graded
        records (a :class:`~proagents_bench.render.trialrows.TrialRows`, which gives single
        entries and all latencies on demand): what the reports read, so that a report of a
        million trials never builds a million dicts."""
        return self._document

    def chunks(self) -> List[bytes]:
        """The document's bytes (exactly ``render.dumps(self.document)``) as a list of
        chunks of about a megabyte each."""
        with CollectorPaused():
            return list(render.chunks(self._document))

    def dumps(self) -> bytes:
        return b"".join(self.chunks())


def fingerprint_here(spec: dict, cases: dict, results: dict, candidate_id: str,
                     decimals: Optional[list]) -> Callable[[], str]:
    """The default way to compute the evidence fingerprint: at once, in this process; returns
    a function that gives it. (The command line may pass one that computes it in a forked
    process while the pipeline grades: it is a third of a large run's work.)"""
    fingerprint = evidence_fingerprint(spec, cases, results, candidate_id, decimals=decimals)
    return lambda: fingerprint


def evaluate(inputs: Sequence[InputFile], candidate_id: Optional[str] = None,
             progress: Optional[Progress] = None,
             fingerprinter: Callable = fingerprint_here) -> Evaluation:
    """Evaluate the three :class:`InputFile` objects ``inputs`` (spec, cases, results);
    ``progress(stage)``, when given, is called with each stage's name as it starts;
    ``fingerprinter`` starts the evidence fingerprint (see :func:`fingerprint_here`)."""
    with CollectorPaused():
        return _evaluate(inputs, candidate_id, progress or _quiet, fingerprinter)


def _quiet(stage: str) -> None:
    pass


def _evaluate(inputs: Sequence[InputFile], candidate_id: Optional[str], progress: Progress,
              fingerprinter: Callable) -> Evaluation:
    progress("loading and validating")
    documents, values = _load_and_validate(inputs)
    spec, cases, results = values["spec"], values["cases"], values["results"]
    context = None
    if spec is not None and cases is not None:
        context = Context(spec, cases, results, candidate_id)
        errors = cross_file_errors(context)
        if errors:
            _raise_located(errors, documents)
    decimals = _release_texts(documents)

    progress("computing the evidence fingerprint")
    systems = context.systems
    mismatches = protocol_mismatches(spec, [systems.baseline, systems.candidate])
    fingerprint = fingerprinter(spec, cases, results, systems.candidate["system_id"], decimals)
    del decimals
    shared = dict(comparable=not mismatches, spec=spec, cases=cases, results=results,
                  systems=systems, inputs=_describe_inputs(inputs, documents), version=VERSION)
    if mismatches:
        decision = incomparable(mismatches)
        document = render.decision_document(
            decision=decision, baseline_metrics=None, candidate_metrics=None,
            comparison=render.comparison_document(spec, mismatches), fingerprint=fingerprint(),
            **shared)
        return Evaluation(decision, document, spec["gates"])

    progress("grading")
    tasks = [case for case in cases["cases"] if case["split"] == "test"]
    gates = spec["gates"]
    baseline = SystemMetrics(grade_system(systems.baseline, tasks, systems.baseline_records),
                             gates)
    candidate = SystemMetrics(grade_system(systems.candidate, tasks,
                                           systems.candidate_records), gates)
    comparison = compare(spec, baseline, candidate, progress)
    progress("deciding")
    decision = decide(gates, candidate, comparison)
    document = render.decision_document(
        decision=decision, baseline_metrics=baseline, candidate_metrics=candidate,
        comparison=render.comparison_document(spec, [], comparison), fingerprint=fingerprint(),
        **shared)
    return Evaluation(decision, document, gates, comparison.interval.distribution())


def _load_and_validate(inputs: Sequence[InputFile]):
    """Load and validate every file, collecting the errors of all three before raising."""
    documents: Dict[str, load.Document] = {}
    values: Dict[str, Optional[dict]] = {kind: None for kind in KINDS}
    errors = []
    for item in inputs:
        try:
            document = item.load()
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


def _release_texts(documents: Dict[str, load.Document]) -> Optional[list]:
    """Every check passed: drop the decoded texts (memory); return the three files' Decimals
    for the fingerprint (None when a file did not record them: it then finds them itself)."""
    decimals: Optional[list] = []
    for kind in KINDS:
        documents[kind].text = None
        if decimals is not None and documents[kind].decimals is not None:
            decimals.extend(documents[kind].decimals)
        else:
            decimals = None
        documents[kind].decimals = None
    return decimals


def _raise_located(errors: List[tuple], documents: Dict[str, load.Document]) -> None:
    """Raise ContractErrors with the first errors placed at their line and column."""
    shown = errors[:MAX_REPORTED_ERRORS]
    located: List[ContractError] = []
    for kind in KINDS:
        mine = [error for error_kind, error in shown if error_kind == kind]
        if not mine:
            continue
        if kind in documents:
            located.extend(documents[kind].errors_at(mine))
        else:
            located.extend(mine)  # load errors already carry their file and position
    raise ContractErrors(located, omitted=len(errors) - len(shown))


def _describe_inputs(inputs: Sequence[InputFile], documents: Dict[str, load.Document]):
    return {item.kind: {"file": display_name(item.shown), "sha256": documents[item.kind].sha256,
                        "bytes": documents[item.kind].size} for item in inputs}
