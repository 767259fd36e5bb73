"""What a decision makes of the looks: a spec v5's sequential design (:mod:`.sequential`) and
the ledger of earlier looks (:mod:`.ledger`, :mod:`.repeated_looks`), in one place for the
pipeline: which interval gate the boundary replaces, the decision the design or the repeated
look makes of the gate's, the document's ``sequential`` and ``ledger`` objects and
limitations, and the ledger with this look added."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, NamedTuple, Optional, Tuple

from ..contract.sequential import design_of, pool_order
from ..contract.vocabulary import (INCOMPARABLE, PASS, REVIEW, REVIEWING, TEST_SPLIT,
                                   TRIAL_UNIT)
from .decision import Decision, Finding

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from .comparison import Comparison
    from .ledger import Earlier, LookFacts
    from .metrics import SystemMetrics
    from .repeated_looks import RepeatedLook
    from .sequential import LookJudgment

# The modules of designs and ledgers are imported where a design or a ledger is judged: the
# gate's usual run, a fixed design without a ledger, never loads them.


class Ledgered(NamedTuple):
    """A package's facts for the ledger and what the ledger held before it."""
    facts: LookFacts
    earlier: Earlier


def ledgered(facts: LookFacts, value: Optional[JSONObject]) -> Ledgered:
    """The package against the ledger ``value`` (None: a new ledger); raises
    :class:`~.ledger.LedgerRefused` when the package breaks its chain."""
    from .ledger import examine
    return Ledgered(facts, examine(value, facts))


UNLEDGERED = "sequential_unledgered"


def unledgered(decision: Decision, look: int, look_words: str) -> Decision:
    """A look after a sequential design's first judged without ``--ledger``: REVIEW at most
    (a BLOCK stays), with the ``sequential_unledgered`` finding and its reason. Without the
    ledger the gate cannot tell whether the earlier looks' trials were rerun, dropped or
    regraded, a look skipped, or the design decided before; look 1 has nothing before it."""
    text = ("no ledger: the package is %s, judged without --ledger, so the gate cannot check "
            "it against the looks before (their trials unchanged, no look skipped or taken "
            "again, the design not already decided): REVIEW at most; judge every look after "
            "the first with the --ledger file the looks before it wrote" % look_words)
    findings = decision.findings + [Finding(UNLEDGERED, REVIEWING, "looks", look + 1, 1, [],
                                            text)]
    if decision.action == PASS:
        return Decision(REVIEW, [text] + decision.reasons, findings)
    return Decision(decision.action, decision.reasons + [text], findings)


class Looks:
    """The looks of one decision: the spec's design (None: a fixed design), the ``look``
    (0-based) the package is under it, and the ledger (None without ``--ledger``)."""

    def __init__(self, spec: JSONObject, cases: JSONObject, look: Optional[int],
                 ledger: Optional[Ledgered]) -> None:
        self.spec = spec
        self.design = design_of(spec)
        self.look = look
        self.ledger = ledger
        self.judgment: Optional[LookJudgment] = None
        self.repeated: Optional[RepeatedLook] = None
        self.counts: Tuple[int, int, int] = (0, 0, 0)  # units, discordant, wins
        self.pool: List[str] = []
        if self.design is not None:
            self.pool = pool_order([case["id"] for case in cases["cases"]
                                    if case["split"] == TEST_SPLIT],
                                   self.design.block["order_seed"])

    def replaced(self) -> List[str]:
        """The interval gate the boundary replaces (its level's, unless its margin is above
        0)."""
        return self.design.replaced_gates() if self.design is not None else []

    def decide(self, decision: Decision, baseline: SystemMetrics, candidate: SystemMetrics,
               comparison: Comparison) -> Decision:
        """The gate's ``decision`` made the design's, or counted against the ledger's earlier
        judgments of this candidate."""
        design, look = self.design, self.look
        if design is not None and look is not None:
            from .sequential import LookJudgment, discordant_path
            path = discordant_path(design, look, baseline, candidate)
            self.judgment = LookJudgment(design, look, path, self.pool)
            point = path.points[-1]
            self.counts = (point.units, self.judgment.where.discordant,
                           self.judgment.where.wins)
            if self.ledger is not None and self.ledger.earlier.value is not None:
                from .ledger import check_path
                check_path(self.ledger.earlier.value, self.judgment.earlier_looks(),
                           self.counts)
            decided = self.judgment.decide(decision)
            if self.ledger is None and look > 0:
                return unledgered(decided, look, design.describe_look(look))
            return decided
        statistics = comparison.statistics
        self.counts = (candidate.task_count,
                       statistics["candidate_only"] + statistics["baseline_only"],
                       statistics["candidate_only"])
        if self.ledger is None:
            return decision
        from .repeated_looks import repeated_look, with_repeated_look
        self.repeated = repeated_look(self.ledger.earlier, self.ledger.facts, self.spec,
                                      self.counts[1])
        if self.repeated is None:
            return decision
        return with_repeated_look(decision, self.repeated,
                                  candidate.grades.system["system_id"])

    def document(self, comparable: bool) -> JSONObject:
        """The decision document's ``sequential`` (spec v5: null for a fixed design) and
        ``ledger`` (with --ledger) objects."""
        parts: JSONObject = {}
        if "sequential" in self.spec:
            parts["sequential"] = (self.judgment.document() if self.judgment is not None
                                   else self._incomparable() if self.design is not None
                                   else None)
        if self.ledger is not None:
            from .repeated_looks import repeated_document
            earlier = self.ledger.earlier
            parts["ledger"] = {
                "kind": self.ledger.facts.kind,
                "looks_before": len(earlier.value["looks"]) if earlier.value else 0,
                "recorded": comparable and not earlier.repeat,
                "repeated_look": (repeated_document(self.repeated) if self.repeated
                                  else None),
            }
        return parts

    def _incomparable(self) -> JSONObject:
        from ..contract.ledger import INCOMPARABLE_STATE
        design, look = self.design, self.look
        if design is None or look is None:  # only a design's look comes here
            raise ValueError("an incomparable look of a sequential design has its look")
        return {"method": design.block["method"], "unit": design.unit,
                "state": INCOMPARABLE_STATE, "closed": False, "look": look + 1,
                "looks": len(design.looks), "tasks": design.looks[look][0],
                "trials": design.looks[look][1]}

    def limitations(self) -> List[str]:
        """What the document's limitations add for this design."""
        if self.design is None:
            return []
        from .sequential import POSITIVE_MARGIN, TRIAL_NULL
        found = [TRIAL_NULL] if self.design.unit == TRIAL_UNIT else []
        return found + ([POSITIVE_MARGIN] if self.design.margin > 0 else [])

    def trial_count(self) -> Optional[int]:
        """The protocol's trial count at this look (the look's; None: the spec's)."""
        if self.design is None or self.look is None:
            return None
        return self.design.looks[self.look][1]

    def ledger_value(self, action: str, fingerprint: str,
                     version: str) -> Optional[JSONObject]:
        """The ledger with this look added; None when nothing is to be written (no ledger,
        an INCOMPARABLE look, or a look already recorded, unchanged)."""
        ledger = self.ledger
        if ledger is None or action == INCOMPARABLE or ledger.earlier.repeat:
            return None
        from .ledger import appended
        judgment = self.judgment
        return appended(
            ledger.earlier, ledger.facts, action,
            judgment.state if judgment is not None else None, self.counts,
            judgment.document()["decided_at"] if judgment is not None else None,
            fingerprint, version)
