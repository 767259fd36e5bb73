"""The contract of whether a run is evidence: what spec v6 and results v6 add.

- Spec v6 adds ``validity`` (an object, or null for none): the most of each system's test
  trials the infrastructure may lose (``max_infrastructure_trial_rate``), the most the two
  systems' shares may differ (``max_infrastructure_rate_gap``), and the do-nothing floor
  (``floor``: a do-nothing agent's task success rate, or null). Beyond either bound the
  decision is INCOMPARABLE: the run is not evidence of either system
  (:mod:`proagents_bench.evaluation.validity`).
- Results v6 adds to every record ``failure_origin``: whose its failure is as the harness says
  it (``agent`` or ``infrastructure``), or null when it says neither (the importers' rows
  are :mod:`.origins`). A trial the infrastructure lost is never a ``success``
  (``results.infrastructure_success``): the origin can never turn a failure into a pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from .containers import Field, Nullable, Object
from .origins import INFRASTRUCTURE, ORIGINS
from .shapes import Number, Rule, String
from .vocabulary import SUCCESS

if TYPE_CHECKING:  # for annotations only
    from ..errors import ContractError
    from ..jsonio import JSONObject

VALIDITY = Object("validity", [
    Field("max_infrastructure_trial_rate", Number(minimum=0, maximum=1),
          "the most of each system's test trials its infrastructure may lose (records whose "
          "`failure_origin` is `infrastructure`), inclusive; beyond it the decision is "
          "INCOMPARABLE: the run is not evidence"),
    Field("max_infrastructure_rate_gap", Number(minimum=0, maximum=1),
          "the most the two systems' shares of trials lost to the infrastructure may differ, "
          "inclusive; beyond it the decision is INCOMPARABLE (a baseline whose sandbox broke "
          "cannot make a candidate PASS)"),
    Field("floor", Nullable(Number(minimum=0, maximum=1)),
          "a do-nothing agent's task success rate on the test tasks (`health --do-nothing` "
          "measures it), which every decision reports each system's score above; null: none "
          "measured"),
], title="Validity bounds")

VALIDITY_FIELD = Field("validity", Nullable(VALIDITY),
                       "whether a run is evidence: the infrastructure failures the decision "
                       "accepts and the do-nothing floor; null: no bound (the shares are "
                       "reported)")

FAILURE_ORIGIN_FIELD = Field(
    "failure_origin", Nullable(String(enum=ORIGINS)),
    "whose the trial's failure is, as the harness says it: `agent` (its own error, timeout, "
    "limit, empty patch) or `infrastructure` (the environment, the model provider, the "
    "verifier, the user simulator, an operator); null: the harness says neither")


def _lost_trials_failed(system: JSONObject) -> Iterator[ContractError]:
    """No record the infrastructure lost is a success."""
    for index, record in enumerate(system["records"]):
        if record["failure_origin"] == INFRASTRUCTURE and record["status"] == SUCCESS:
            yield INFRASTRUCTURE_SUCCESS.error(
                "the record's failure_origin is infrastructure and its status is success: a "
                "trial the infrastructure lost did not pass", ("records", index, "status"))


INFRASTRUCTURE_SUCCESS = Rule("results.infrastructure_success", _lost_trials_failed)
