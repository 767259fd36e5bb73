"""A fixed design looked at again (``--ledger`` without a sequential design): what the decision
says when the ledger shows the same candidate and baseline already judged on this benchmark.

A fixed design's one-sided alpha holds for one look. Judged again after more trials, a
candidate no better than the baseline passes at one look or another more often: the decision
is a REVIEW at most (a BLOCK stays), its ``repeated_look`` finding counts the looks, and its
reason gives the false pass of all of them together:

- the earlier judgments are this package cut to some of its tasks, growing one from the next,
  and a PASS needs McNemar's exact test (spec v3 on, the task-level interval gate claiming
  the candidate better): exactly, McNemar's test at alpha passing at one look or more of
  the nested looks' discordant tasks (Armitage, McPherson and Rowe 1969;
  :func:`~proagents_bench.stats.sequential_fixed.repeated_look_false_pass`);
- every judgment on trials of its own (a rerun from scratch) and a PASS needs an exact
  one-sided test at alpha (either interval gate claiming the candidate better): "best of
  k" independent runs, at most 1 - (1 - alpha)^k;
- otherwise (looks sharing some trials, or a gate whose single look is not an exact test at
  alpha): at most k times a single look's, Bonferroni's bound, k alpha.

A judgment identical to one recorded (the same trials, unchanged) is no new look.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING, List, NamedTuple, Optional

from ..contract.gates import PAIRED_INTERVAL_GATE, TRIAL_INTERVAL_GATE
from ..contract.inputs import small_sample_rules
from ..contract.ledger import BEST_OF_K, BONFERRONI, NESTED_MCNEMAR as NESTED
from ..contract.vocabulary import PASS, REVIEW, REVIEWING, STRICT
from ..stats.sequential_fixed import repeated_look_false_pass
from ..text import listed
from .decision import Decision, Finding, claims_improvement
from .ledger import entry_trials, nested_by_tasks

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from .ledger import Earlier, LookFacts

FINDING_CODE = "repeated_look"


class RepeatedLook(NamedTuple):
    """The looks of one candidate (``looks``, this one included), the earlier ones' ledger
    records, how the false pass of them all was bounded (``method``) and the bound, against
    the spec's one-sided ``alpha``; ``sizes``: the nested looks' discordant tasks."""
    looks: int
    earlier: List[JSONObject]
    method: str
    false_pass: Fraction
    alpha: Fraction
    sizes: List[int]


def _claims(spec: JSONObject, key: str) -> bool:
    gates = spec["gates"]
    if key not in gates or not small_sample_rules(spec):
        return False
    strict = spec["bootstrap"].get("lower_bound") == STRICT
    return claims_improvement(gates[key], strict)


def repeated_look(earlier: Earlier, facts: LookFacts, spec: JSONObject,
                  discordant: int) -> Optional[RepeatedLook]:
    """What the earlier judgments of the same candidate make of this one (None: none),
    ``discordant`` being this package's discordant tasks."""
    same = earlier.same_candidate
    if not same:
        return None
    looks = len(same) + 1
    alpha = (1 - Fraction(spec["bootstrap"]["confidence"])) / 2
    records = [look for look, _relation in same]
    mcnemar = _claims(spec, PAIRED_INTERVAL_GATE.key)
    exact = mcnemar or _claims(spec, TRIAL_INTERVAL_GATE.key)
    if mcnemar and nested_by_tasks(same, facts):
        sizes = sorted({look["discordant"] for look in records} | {discordant} - {0})
        bound = repeated_look_false_pass(sizes, alpha) if sizes else Fraction(0)
        return RepeatedLook(looks, records, NESTED, bound, alpha, sizes)
    trial_sets = [{trial for entry in look["records"] for trial in entry_trials(entry)}
                  for look in records]
    if exact and all(relation == "disjoint" for _look, relation in same) and all(
            not first & second for first, second in combinations(trial_sets, 2)):
        return RepeatedLook(looks, records, BEST_OF_K, 1 - (1 - alpha) ** looks, alpha, [])
    return RepeatedLook(looks, records, BONFERRONI, min(Fraction(1), looks * alpha), alpha, [])


def _percent(value: Fraction) -> str:
    return ("%.2f" % (100 * value)).rstrip("0").rstrip(".") + "%"


def reason(repeated: RepeatedLook, candidate_id: str) -> str:
    """The decision's reason for a repeated look."""
    earlier = "; ".join("look %d: %d tasks x %d trials, %s" % (
        look["look"], look["tasks"], look["trials"], look["action"])
        for look in repeated.earlier)
    single = "the gate's one-sided %s holds for a single look" % _percent(repeated.alpha)
    if repeated.method == NESTED:
        return ("repeated look: candidate %s was already judged on a subset of these trials "
                "(%s); %s; with these %d nested looks its false pass is up to %s (exact for "
                "McNemar's test at each look's %s discordant tasks, which a PASS needs)" % (
                    candidate_id, earlier, single, repeated.looks,
                    _percent(repeated.false_pass),
                    listed([str(size) for size in repeated.sizes]) or "0"))
    if repeated.method == BEST_OF_K:
        return ("repeated look: candidate %s was already judged on other trials of this "
                "benchmark (%s); %s; the best of %d independent runs passes with no "
                "improvement with chance up to %s (1 - (1 - %s)^%d)" % (
                    candidate_id, earlier, single, repeated.looks,
                    _percent(repeated.false_pass), _percent(repeated.alpha), repeated.looks))
    return ("repeated look: candidate %s was already judged on this benchmark (%s); %s; with "
            "%d looks its false pass is up to %s (Bonferroni: %d times a single look's)" % (
                candidate_id, earlier, single, repeated.looks, _percent(repeated.false_pass),
                repeated.looks))


def with_repeated_look(decision: Decision, repeated: RepeatedLook,
                       candidate_id: str) -> Decision:
    """``decision`` once the looks are counted: a PASS becomes a REVIEW (a BLOCK or REVIEW
    stays), with the ``repeated_look`` finding and its reason."""
    text = reason(repeated, candidate_id)
    finding = Finding(FINDING_CODE, REVIEWING, "looks", repeated.looks, 1, [], text)
    findings = decision.findings + [finding]
    if decision.action == PASS:
        return Decision(REVIEW, [text], findings)
    return Decision(decision.action, decision.reasons + [text], findings)


def repeated_document(repeated: RepeatedLook) -> JSONObject:
    """The decision document's ``ledger.repeated_look``."""
    return {
        "looks": repeated.looks,
        "method": repeated.method,
        "false_pass": float(repeated.false_pass),
        "alpha": float(repeated.alpha),
        "earlier": [{"look": look["look"], "tasks": look["tasks"], "trials": look["trials"],
                     "action": look["action"]} for look in repeated.earlier],
    }
