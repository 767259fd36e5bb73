"""The gate with a ledger of its looks (``--ledger FILE``): the pipeline, with the ledger read
before the decision and the ledger with this look added made after it.

:func:`evaluate` checks the three files as :func:`proagents_bench.pipeline.check` does, reads
the ledger (a file that does not exist yet is a new ledger; one that exists must be a valid
ledger, :mod:`proagents_bench.contract.ledger`), refuses a package that breaks its chain
(contract errors, placed in the ledger, the spec, the cases or the results: see
:mod:`proagents_bench.evaluation.ledger`), then decides with it, refusing a package whose
graded path disagrees with the looks recorded. The returned
:class:`~proagents_bench.render.evaluation.Evaluation`'s ``ledger`` holds the bytes the
ledger is to be replaced by (ASCII JSON, sorted keys, two-space indent), or None when this
look adds nothing (an INCOMPARABLE look, or the ledger's last look judged again unchanged).
The command line writes them atomically with its reports, and only after a decision; the
ledger is never written here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

from . import pipeline
from .contract.ledger import LEDGER_KINDS_BY_VERSION
from .contract.sequential import design_of
from .contract.validate import version_errors
from .errors import ContractError, ContractErrors
from .evaluation.ledger import LedgerRefused, LookFacts
from .evaluation.looks import ledgered
from .jsonio import dump, load
from .jsonio.gcpause import CollectorPaused
from .version import VERSION

if TYPE_CHECKING:  # for annotations only
    from .pipeline import Checked, Evaluation, Fingerprinter, InputFile, Progress


def read_ledger(ledger: InputFile) -> Optional[load.Document]:
    """The ledger's loaded document, checked against the ledger's contract; None when its
    file does not exist yet (a new ledger). ContractErrors placed in it otherwise."""
    if ledger.path is not None and ledger.data is None and not os.path.lexists(ledger.path):
        return None
    document = ledger.load()
    errors = version_errors("ledger", LEDGER_KINDS_BY_VERSION, document.value)
    if errors:
        raise ContractErrors(document.errors_at(errors))
    return document


def evaluate(inputs: Sequence[InputFile], ledger: InputFile,
             candidate_id: Optional[str] = None, progress: Optional[Progress] = None,
             fingerprinter: Fingerprinter = pipeline.fingerprint_here) -> Evaluation:
    """The gate's decision on ``inputs`` with the ledger ``ledger`` (module docstring)."""
    with CollectorPaused():
        checked = pipeline.check(inputs, candidate_id, progress, fingerprinter,
                                 keep_texts=True)
        document = None
        try:
            document = read_ledger(ledger)
            systems = checked.systems
            facts = LookFacts(checked.spec, checked.cases, (systems.baseline,
                                                             systems.candidate),
                              systems.in_order(), checked.test_cases,
                              design_of(checked.spec), checked.look)
            state = ledgered(facts, document.value if document is not None else None)
        except LedgerRefused as refused:
            raise _refusal(refused, checked, document, ledger.shown)
        except BaseException:
            checked.abandon()
            raise
        described = dict(checked.inputs, ledger=pipeline.describe_file(
            ledger.shown, document.sha256 if document is not None else None,
            document.size if document is not None else None))
        try:  # the graded path against the looks recorded (evaluation.ledger.check_path)
            evaluation = checked.decide(inputs=described, ledger=state)
        except LedgerRefused as refused:
            raise _refusal(refused, checked, document, ledger.shown)
        if evaluation.looks is not None:
            value = evaluation.looks.ledger_value(evaluation.action, checked.fingerprint(),
                                                  VERSION)
            evaluation.ledger = None if value is None else dump.document_bytes(value)
        return evaluation


def _refusal(refused: LedgerRefused, checked: Checked, document: Optional[load.Document],
             shown: str) -> ContractErrors:
    """The refusal as the contract errors to raise, no decision to follow."""
    checked.abandon()
    documents: Dict[str, Optional[load.Document]] = dict(checked.documents)
    documents["ledger"] = document
    return ContractErrors(_placed(refused, documents, shown))


def _placed(refused: LedgerRefused, documents: Dict[str, Optional[load.Document]],
            shown: str) -> List[ContractError]:
    """The refusal's errors, each placed at its line in the file it points into."""
    placed: List[ContractError] = []
    for kind, error in refused.errors:
        document = documents.get(kind)
        if document is not None:
            placed.extend(document.errors_at([error]))
        else:
            placed.append(error.at(shown if kind == "ledger" else None))
    return placed
