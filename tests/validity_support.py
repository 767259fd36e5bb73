"""The example package as spec v6 and results v6 (what issue 32's versions add to the ones
before them), for the tests of the gate, the release and the service on them."""

import copy

from proagents_bench.contract.vocabulary import RESULTS_V6, SPEC_V6

INFRA = "infrastructure"


def bounds(rate="0.2", gap="0.1", floor=None):
    """A spec v6's ``validity`` object."""
    return {"max_infrastructure_trial_rate": float(rate),
            "max_infrastructure_rate_gap": float(gap), "floor": floor}


def spec_v6(spec, validity):
    """A spec v1 (the example's) as a spec v6 with the ``validity`` object given (None: null):
    v4's gate and bootstrap settings, no sequential design."""
    spec = copy.deepcopy(spec)
    spec["schema_version"] = SPEC_V6
    spec["gates"]["min_trial_delta_ci_low"] = 0.0
    spec["bootstrap"].update(unit="task", lower_bound="inclusive")
    spec["sequential"] = None
    spec["validity"] = validity
    return spec


def results_v6(results, lost=((), ())):
    """A results v1 package (the example's) as a results v6 package: no provenance, each
    record's trace reference null, its failure origin null but the (case, trial) pairs of ``lost`` (the baseline's,
    the candidate's), which the infrastructure lost (status ``unknown``)."""
    results = copy.deepcopy(results)
    results["schema_version"] = RESULTS_V6
    roles = {"baseline": 0, "candidate": 1}
    for system in results["systems"]:
        system["provenance"] = None
        gone = lost[roles[system["role"]]]
        system["records"] = [_record_v6(record, (record["case_id"], record["trial_id"]) in gone)
                             for record in system["records"]]
    return results


def _record_v6(record, lost):
    record = dict(record, trace=None, failure_origin=None)
    if lost:
        record.update(status="unknown", failure_origin=INFRA)
    return record
