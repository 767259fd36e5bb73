"""Findings the package itself carries, beside the gates: what the decision must say because
of how the evidence was gathered, read from the files (the gate sees nothing else).

- ``contamination_check_not_run`` (informational): a cases v2 file declares the train or
  development split absent, so the family contamination check had nothing to compare the
  test families with there. It is reported as not run, never as passed.
- ``missing_trials_recorded_unknown``: a results v3 or v4 system's provenance says its log
  (or one of its logs) lacked
  (case, trial) pairs that the import recorded with status ``unknown``
  (``import --missing-as unknown``). Each is a failed trial, never dropped. In the candidate
  that can only lower it (informational); in the baseline it lowers the baseline and so
  favours the candidate in the paired difference: REVIEW.

Files of earlier versions carry neither, and their decisions are unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List

from ..contract.vocabulary import (BASELINE_ROLE, CANDIDATE_ROLE, CONTAMINATION_NOT_RUN,
                                   INFORMATIONAL, RECORDED_UNKNOWN, REVIEWING, SPLITS)
from .decision import Finding

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

# The (case, trial) pairs a finding's reason names before it says "and N more".
LISTED_TRIALS = 5


def package_findings(cases: JSONObject, baseline: JSONObject,
                     candidate: JSONObject) -> List[Finding]:
    """The findings of the validated ``cases`` file and the two systems of the results."""
    findings: List[Finding] = []
    absent = [split for split in SPLITS if split in cases.get("absent_splits", ())]
    if absent:
        checked = [split for split in SPLITS[:2] if split not in absent]
        findings.append(Finding(
            CONTAMINATION_NOT_RUN, INFORMATIONAL, "absent_splits", None, None, [],
            "the family contamination check was not run against the %s split%s: the cases "
            "file declares %s absent, so no family of the test split could be compared "
            "with %s%s" % (
                " and ".join(absent), "s" if len(absent) > 1 else "",
                "them" if len(absent) > 1 else "it", "them" if len(absent) > 1 else "it",
                "; it ran against the %s split" % checked[0] if checked else "")))
    for role, system, severity in ((BASELINE_ROLE, baseline, REVIEWING),
                                   (CANDIDATE_ROLE, candidate, INFORMATIONAL)):
        provenance = system.get("provenance") or {}
        missing = provenance.get("recorded_unknown") or []
        if not missing:
            continue
        listed = ", ".join("%s trial %d" % (item["case_id"], item["trial_id"])
                           for item in missing[:LISTED_TRIALS])
        more = len(missing) - LISTED_TRIALS
        case_ids = sorted({item["case_id"] for item in missing})
        findings.append(Finding(
            RECORDED_UNKNOWN, severity, "recorded_unknown", len(missing), None, case_ids,
            "%d trial%s of the %s %s %s missing from its %s and %s recorded as unknown "
            "(failed, never dropped): %s%s%s" % (
                len(missing), "" if len(missing) == 1 else "s", role, system["system_id"],
                "was" if len(missing) == 1 else "were", _logs_named(provenance),
                "is" if len(missing) == 1 else "are", listed,
                " and %d more" % more if more > 0 else "",
                "; failed baseline trials favour the candidate in the paired difference"
                if severity == REVIEWING else "")))
    return findings


def _logs_named(provenance: JSONObject) -> str:
    """The system's log as a finding names it: ``log baseline.eval``, or (a results v4 system
    read from several logs) ``logs a.json, b.json``."""
    logs = provenance.get("logs")
    if isinstance(logs, list):
        return "logs " + ", ".join(str(log.get("log_file", "")) for log in logs)
    return "log %s" % provenance.get("log_file", "")
