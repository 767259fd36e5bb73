"""What the pipeline returns: the decision and its document, written to bytes on demand."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

from ..contract.gates import deciding_gates
from ..evaluation.decision import Decided, Decision
from ..jsonio.gcpause import CollectorPaused
from . import document as render

if TYPE_CHECKING:  # for annotations only
    from ..evaluation.looks import Looks
    from ..jsonio import JSONObject

# (file, line, column): where a reason of the decision points in an input file.
Place = Tuple[str, int, int]
# locate(what, key): the place of a gate ("gate", its key) in the spec, or of a case ("case",
# its id) in the cases file; None when it has none (a file read from standard input).
Locate = Callable[[str, str], Optional[Place]]


class Evaluation(Decided[Decision]):
    """The decision and its document.

    ``decision`` holds the action, the reasons and every finding with its severity and
    reason; ``spec`` is the spec as validated (exact values), ``gates`` its gates,
    ``gate_rows`` the rows of the gates table that decide under its version, and
    ``bootstrap_distribution`` the resampled means as sorted (mean, how many samples) pairs
    of exact values (None when INCOMPARABLE), all for reports and the planner; ``looks``,
    what a sequential design and the ledger made of the decision
    (:class:`~proagents_bench.evaluation.looks.Looks`). ``document`` is the decision document
    as plain data; its per-trial evidence is built on first use, and :meth:`chunks` writes
    the same bytes straight from the graded records, so printing a decision never builds a
    dict per trial.
    """

    def __init__(self, decision: Decision, document: JSONObject, spec: JSONObject,
                 bootstrap_distribution: Optional[List[Tuple[Fraction, int]]] = None,
                 looks: Optional[Looks] = None) -> None:
        super().__init__(decision)
        self._document = document
        self.spec = spec
        self.gates = spec["gates"]
        self.gate_rows = deciding_gates(spec["schema_version"])
        self.bootstrap_distribution = bootstrap_distribution
        self.looks = looks
        # The ledger with this look added, as it is to be written (set by the gate run with
        # a ledger: proagents_bench/ledgered.py); None: nothing to write.
        self.ledger: Optional[bytes] = None
        # Where a reason points in the input files, for the reports that place each reason
        # on its line (--format github, the GitLab report): set by the gate's command line,
        # which knows the files (cli/annotations.py); None where nobody placed them.
        self.locate: Optional[Locate] = None

    @property
    def document(self) -> JSONObject:
        return render.materialize(self._document)

    @property
    def lazy_document(self) -> JSONObject:
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
