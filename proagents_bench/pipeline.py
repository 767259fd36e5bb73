"""The pipeline, one way: load, validate, grade, aggregate, compare, decide, render.

:func:`evaluate` returns an :class:`Evaluation` (the decision and its document), or raises
:class:`~proagents_bench.errors.ContractErrors` with every contract error it found, each
placed at its file, line and column. It never prints and never exits: the command line does;
it may pass a ``progress`` callback, which is told the name of each stage as it starts and
how much that stage works on (``progress("grading", 1000000, "trials")``).

``evaluate(...)`` is ``check(...).decide()``: :func:`check` loads the files and runs every
contract check once; :meth:`Checked.decide` does the rest, on every test task or on a part of
them (the private-test service decides a submission on a phase's part from its one check).

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

import os
from decimal import Decimal
from typing import (TYPE_CHECKING, AbstractSet, Callable, Dict, List, NoReturn, Optional,
                    Sequence, Tuple, TypedDict)

from .contract.rules import Context, cross_file_errors
from .contract.validate import file_errors
from .contract.vocabulary import CANDIDATE_ROLE, ORIGIN_RESULTS
from .errors import MAX_REPORTED_ERRORS, ContractError, ContractErrors
from .evaluation.comparison import compare, protocol_mismatches
from .evaluation.decision import decide, incomparable
from .evaluation.evidence import package_findings
from .evaluation.grading import grade_system
from .evaluation.metrics import SystemMetrics
from .jsonio import JSONObject, load
from .jsonio.canonical import Fingerprinter as Fingerprinter  # the pipeline's parameters
from .jsonio.canonical import PendingFingerprint as PendingFingerprint
from .jsonio.canonical import fingerprint_here as fingerprint_here
from .jsonio.gcpause import CollectorPaused
from .render import document as render
from .render.evaluation import Evaluation as Evaluation  # what evaluate() returns
from .steps import Advance, watched
from .text import display_name
from .version import VERSION

if TYPE_CHECKING:  # for annotations only
    from .contract.rules import Systems
    from .evaluation.looks import Ledgered, Looks
    from .evaluation.validity import JudgedRun

KINDS = ("spec", "cases", "results")

# progress(stage, count, unit, work): a stage starts, with how much it works on (``count``
# of ``unit``: bytes, records, trials, samples, or None) and how many items its loops count
# (``work``); it returns whom they tell how far they are (steps.Advance), or None.
Progress = Callable[..., Optional[Advance]]
_quiet_progress: Progress = lambda *stage: None  # noqa: E731 - nobody watches
# A contract error and the kind of file it is in.
KindError = Tuple[str, ContractError]


class InputFile:
    """One input: its ``kind`` (spec, cases or results), the ``path`` to open, and the name
    to show for it (``shown``: the path as given). With ``data`` the file's bytes are given
    instead of read (the importers' checks); with ``document``, the file loaded (the
    service's), which the pipeline never changes, and ``checked`` when it passed its own
    contract before (then only the rules across the files run on it)."""

    def __init__(self, kind: str, path: Optional[str] = None, shown: Optional[str] = None,
                 data: Optional[bytes] = None, document: Optional[load.Document] = None,
                 checked: bool = False) -> None:
        shown = shown if shown is not None else path
        if shown is None:  # the document names every input
            raise TypeError("an input file needs a path, or a name to show for its bytes")
        if checked and document is None:
            raise TypeError("only a given document can have passed its contract before")
        self.kind = kind
        self.path = path
        self.shown = shown
        self.data = data
        self.document = document
        self.checked = checked

    def size(self) -> Optional[int]:
        """The file's size in bytes (None when it cannot be measured)."""
        if self.document is not None:
            return self.document.size
        if self.data is not None:
            return len(self.data)
        if self.path is None:
            return None
        try:
            return os.path.getsize(self.path)
        except (OSError, TypeError, ValueError):
            return None

    def load(self) -> load.Document:
        if self.document is not None:
            return self.document
        if self.data is not None:
            return load.parse_bytes(self.data, self.shown)
        if self.path is None:
            raise TypeError("an input file needs a path or its bytes")
        return load.load_file(self.path, source=self.shown)


def presumed_candidate_id(results: object, candidate_id: Optional[str]) -> Optional[str]:
    """The candidate's ``system_id`` as the cross-file rules will find it if the files are
    valid (``candidate_id`` when given, else the id of the one system whose role is
    ``candidate``), told before they are checked; None when the results cannot say."""
    if candidate_id is not None:
        return candidate_id
    systems = results.get("systems") if isinstance(results, dict) else None
    if not isinstance(systems, list):
        return None
    found = [system.get("system_id") for system in systems
             if isinstance(system, dict) and system.get("role") == CANDIDATE_ROLE]
    return found[0] if len(found) == 1 and isinstance(found[0], str) else None


def evaluate(inputs: Sequence[InputFile], candidate_id: Optional[str] = None,
             progress: Optional[Progress] = None,
             fingerprinter: Fingerprinter = fingerprint_here) -> Evaluation:
    """Evaluate the three :class:`InputFile` objects ``inputs`` (spec, cases, results);
    ``progress(stage, count, unit, work)``, when given, is called as each stage starts;
    ``fingerprinter`` starts the evidence fingerprint (see :func:`fingerprint_here`). The
    gate: :func:`check`, then :meth:`Checked.decide` on every test task."""
    with CollectorPaused():
        return check(inputs, candidate_id, progress, fingerprinter).decide()


class Checked:
    """Three files that passed every contract check: the validated ``spec``, ``cases`` and
    ``results``, the ``systems`` (records in canonical order), the loaded ``documents``, what
    the document says of the ``inputs``, and the evidence fingerprint, started; decide as
    often as asked, on every test task or on a part of them."""

    def __init__(self, context: Context, systems: Systems,
                 documents: Dict[str, load.Document], inputs: JSONObject,
                 fingerprint: PendingFingerprint, progress: Progress) -> None:
        self.spec: JSONObject = context.spec
        self.cases: JSONObject = context.cases
        self.results: JSONObject = context.loaded_results()
        self.systems = systems
        self.look = context.look  # under a sequential design, the look the results are
        self.test_cases = context.test_cases()
        self.documents = documents  # their texts dropped unless kept (see check)
        self.inputs = inputs
        self._fingerprint = fingerprint
        self._progress = progress

    def fingerprint(self) -> str:
        """The evidence fingerprint of the three files (computed when first asked)."""
        return self._fingerprint()

    def abandon(self) -> None:
        """No decision will be asked for: stop the fingerprint, if it is still running."""
        self._fingerprint.abandon()

    def decide(self, test_ids: Optional[AbstractSet[str]] = None,
               inputs: Optional[JSONObject] = None,
               fingerprint: Optional[Callable[[], str]] = None,
               ledger: Optional[Ledgered] = None) -> Evaluation:
        """The decision on the test tasks ``test_ids`` (None: every test task). A part is
        decided exactly as the gate decides the files cut down to it (the cases file with
        only those test cases, each system with only their records): the same grading,
        comparison and decision on the same records in the same order. The document names
        ``inputs`` and the ``fingerprint()`` it is given (by default, the three files'
        own); a sequential design, and the ``ledger`` of earlier looks when given, decide
        with the gates (:mod:`proagents_bench.evaluation.looks`)."""
        with CollectorPaused():
            return self._decide(test_ids, inputs if inputs is not None else self.inputs,
                                fingerprint or self.fingerprint,
                                _looks(self.spec, self.cases, self.look, ledger))

    def _decide(self, test_ids: Optional[AbstractSet[str]], inputs: JSONObject,
                fingerprint: Callable[[], str], looks: Optional[Looks]) -> Evaluation:
        spec, cases, results, systems = self.spec, self.cases, self.results, self.systems
        progress = self._progress
        mismatches = protocol_mismatches(spec, [systems.baseline, systems.candidate],
                                         looks.trial_count() if looks else None)
        shared: _Shared = {"comparable": not mismatches, "spec": spec, "cases": cases,
                           "results": results, "systems": systems, "inputs": inputs,
                           "version": VERSION, "looks": looks}
        if mismatches:
            decision = incomparable(mismatches)
            document = render.decision_document(
                decision=decision, baseline_metrics=None, candidate_metrics=None,
                comparison=render.comparison_document(spec, mismatches),
                fingerprint=fingerprint(), **shared)
            return Evaluation(decision, document, spec, looks=looks)

        tasks = list(self.test_cases)
        baseline_records, candidate_records = systems.in_order()
        if test_ids is not None and looks is not None and looks.design is not None:
            raise ValueError("a part of the test cases is decided under a fixed design only")
        if test_ids is not None:
            kept = [index for index, case in enumerate(tasks) if case["id"] in test_ids]
            if not kept:
                raise ValueError("a part of the test cases holds at least one test case")
            tasks = [tasks[index] for index in kept]
            baseline_records, candidate_records = systems.records_at(kept)
        run = _judged_run(spec, results, systems, baseline_records, candidate_records)
        if run is not None and run.reasons:  # not evidence: decided before any metric
            decision, shared["comparable"] = run.decision(), False
            return Evaluation(decision, render.decision_document(
                decision=decision, baseline_metrics=None, candidate_metrics=None,
                comparison=run.comparison(), fingerprint=fingerprint(),
                validity=run.document(), **shared), spec, looks=looks)
        trials = len(baseline_records) + len(candidate_records)
        gates = spec["gates"]
        with watched(progress("grading", trials, "trials", trials)):
            baseline_grades = grade_system(systems.baseline, tasks, baseline_records)
            candidate_grades = grade_system(systems.candidate, tasks, candidate_records)
        baseline = SystemMetrics(baseline_grades, gates)
        candidate = SystemMetrics(candidate_grades, gates)
        samples = spec["bootstrap"]["samples"]
        comparison = compare(spec, baseline, candidate,
                             lambda stage: progress(stage, samples, "samples"))
        progress("deciding")
        decision = decide(gates, candidate, comparison, spec["schema_version"],
                          package_findings(cases, systems.baseline, systems.candidate)
                          + (run.findings(baseline, candidate) if run else []),
                          looks.replaced() if looks else ())
        if looks is not None:
            decision = looks.decide(decision, baseline, candidate, comparison)
        document = render.decision_document(
            decision=decision, baseline_metrics=baseline, candidate_metrics=candidate,
            comparison=render.comparison_document(spec, [], comparison),
            fingerprint=fingerprint(),
            validity=run.document(baseline, candidate) if run else None, **shared)
        return Evaluation(decision, document, spec, comparison.interval.distribution(), looks)


def _judged_run(spec: JSONObject, results: JSONObject, systems: Systems,
                *records: List[JSONObject]) -> Optional[JudgedRun]:
    """Whether the run is evidence (:mod:`.evaluation.validity`), for a spec v6 (its
    ``validity``) or results v6 (their failure origins); None before v6, whose run never
    loads its modules."""
    if "validity" not in spec and results["schema_version"] not in ORIGIN_RESULTS:
        return None
    from .evaluation.validity import JudgedRun
    return JudgedRun(spec, results["schema_version"], systems.baseline, systems.candidate,
                     *records)


def _looks(spec: JSONObject, cases: JSONObject, look: Optional[int],
           ledger: Optional[Ledgered]) -> Optional[Looks]:
    """What the looks make of a decision: a spec v5's design (or its ``null``) and the
    ledger; None for a spec v1-v4 without a ledger, whose run never loads their modules."""
    if ledger is None and "sequential" not in spec:
        return None
    from .evaluation.looks import Looks
    return Looks(spec, cases, look, ledger)


def check(inputs: Sequence[InputFile], candidate_id: Optional[str] = None,
          progress: Optional[Progress] = None, fingerprinter: Fingerprinter = fingerprint_here,
          keep_texts: bool = False) -> Checked:
    """Load the three :class:`InputFile` objects ``inputs`` and run every contract check on
    them: :class:`ContractErrors` with every error found, or the :class:`Checked` files to
    decide on. The decoded texts of the files loaded here are dropped once every check has
    passed (memory), but with ``keep_texts`` (a caller that cuts or splices them later)."""
    with CollectorPaused():
        return _check(inputs, candidate_id, progress or _quiet_progress, fingerprinter,
                      keep_texts)


def _check(inputs: Sequence[InputFile], candidate_id: Optional[str], progress: Progress,
           fingerprinter: Fingerprinter, keep_texts: bool) -> Checked:
    documents, load_errors = _load(inputs, progress)
    # Each record is counted twice: when its shape is checked, and by the coverage pass.
    records = _record_count(documents["results"].value) if "results" in documents else None
    advance = None if records is None else progress("validating", records, "records",
                                                    2 * records)
    presumed = None
    fingerprint = None
    if not load_errors:
        presumed = presumed_candidate_id(documents["results"].value, candidate_id)
        if presumed is not None:
            fingerprint = fingerprinter(documents["spec"].value, documents["cases"].value,
                                        documents["results"].value, presumed,
                                        _recorded_decimals(documents))
    try:
        with watched(advance):
            context = _context(documents, load_errors, candidate_id,
                               {item.kind for item in inputs if item.checked})
    except BaseException:  # a failed check, or a signal: the fingerprint is not needed
        if fingerprint is not None:
            fingerprint.abandon()
        raise
    systems = context.checked()
    if fingerprint is None or systems.candidate["system_id"] != presumed:
        # Never for valid files (the presumed id is the one the rules find); kept so that
        # the fingerprint can never name another candidate.
        if fingerprint is not None:
            fingerprint.abandon()
        fingerprint = fingerprint_here(context.spec, context.cases, context.loaded_results(),
                                       systems.candidate["system_id"],
                                       _recorded_decimals(documents))
    if not keep_texts:
        _release_texts(documents, {item.kind for item in inputs if item.document is None})
    described = {item.kind: describe_file(item.shown, documents[item.kind].sha256,
                                          documents[item.kind].size) for item in inputs}
    return Checked(context, systems, documents, described, fingerprint, progress)


class _Shared(TypedDict):
    """What the decision document is made of whether or not the systems compare."""
    comparable: bool
    spec: JSONObject
    cases: JSONObject
    results: JSONObject
    systems: Systems
    inputs: JSONObject
    version: str
    looks: Optional[Looks]


def load_benchmark(spec: InputFile, cases: InputFile,
                   progress: Optional[Progress] = None) -> Tuple[load.Document, load.Document]:
    """Load and check a spec and a cases file as :func:`evaluate` does (each file against its
    own contract, then the cases against the spec and among themselves); return their loaded
    documents, or raise :class:`ContractErrors` placed at their lines (the commands that read
    many results packages of one benchmark: ``health``, ``diff``)."""
    documents, errors = _load([spec, cases], progress or _quiet_progress)
    _context(documents, errors)
    return documents["spec"], documents["cases"]


def check_results(spec: load.Document, cases: load.Document, results: load.Document,
                  candidate_id: Optional[str] = None) -> Context:
    """Check one loaded results file against a spec and cases that passed
    :func:`load_benchmark`, with the gate's own checks (the file's contract, then every rule
    across the files); return the rules' :class:`Context` (its ``systems`` hold the records in
    canonical order), or raise :class:`ContractErrors` placed in the results file."""
    return _context({"spec": spec, "cases": cases, "results": results}, [], candidate_id,
                    {"spec", "cases"})


def _load(inputs: Sequence[InputFile],
          progress: Progress) -> Tuple[Dict[str, load.Document], List[KindError]]:
    """Load every file; return the loaded documents and the load errors of the others."""
    documents: Dict[str, load.Document] = {}
    errors: List[KindError] = []
    for item in inputs:
        progress("loading " + item.kind, item.size(), "bytes")
        try:
            documents[item.kind] = item.load()
        except ContractErrors as failure:
            errors.extend((item.kind, error) for error in failure.errors)
    return documents, errors


def _record_count(results: object) -> int:
    """The records of a results file not yet validated (those it plainly has)."""
    systems = results.get("systems") if isinstance(results, dict) else None
    if not isinstance(systems, list):
        return 0
    return sum(len(system["records"]) for system in systems
               if isinstance(system, dict) and isinstance(system.get("records"), list))


def _context(documents: Dict[str, load.Document], errors: List[KindError],
             candidate_id: Optional[str] = None,
             checked: AbstractSet[str] = frozenset()) -> Context:
    """Validate the loaded files (but the kinds ``checked`` before), then every rule across
    them: the rules' :class:`Context`, or :class:`ContractErrors` placed at their lines."""
    values = _validate(documents, errors, checked)
    context = Context(values["spec"], values["cases"], values.get("results"), candidate_id)
    found = cross_file_errors(context)
    if found:
        _raise_located(found, documents)
    return context


def _validate(documents: Dict[str, load.Document], errors: List[KindError],
              checked: AbstractSet[str] = frozenset()) -> Dict[str, JSONObject]:
    """Validate every loaded file (but those of the kinds ``checked`` before); raise with
    the errors of all three (load errors first)."""
    values: Dict[str, JSONObject] = {}
    for kind in KINDS:
        if kind not in documents:
            continue
        problems = [] if kind in checked else file_errors(kind, documents[kind].value)
        if problems:
            errors.extend((kind, error) for error in problems)
        else:
            values[kind] = documents[kind].value
    if errors:
        _raise_located(errors, documents)
    return values


def _recorded_decimals(documents: Dict[str, load.Document]) -> Optional[List[Decimal]]:
    """The three files' Decimals as the loader recorded them, for the fingerprint (None when a
    file did not record them: the fingerprint then finds them itself)."""
    decimals: List[Decimal] = []
    for kind in KINDS:
        recorded = documents[kind].decimals
        if recorded is None:
            return None
        decimals.extend(recorded)
    return decimals


def _release_texts(documents: Dict[str, load.Document], kinds: AbstractSet[str]) -> None:
    """Every check passed: drop the decoded texts and the Decimal lists of the files of
    ``kinds`` (memory)."""
    for kind in KINDS:
        if kind in kinds:
            documents[kind].text = ""
            documents[kind].decimals = None


def _raise_located(errors: List[KindError], documents: Dict[str, load.Document]) -> NoReturn:
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


def describe_file(shown: str, sha256: Optional[str], size: Optional[int]) -> JSONObject:
    """What the decision document's ``inputs`` says of one file."""
    return {"file": display_name(shown), "sha256": sha256, "bytes": size}
