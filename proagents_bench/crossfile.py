"""Rules that span objects or files: versions, splits, contamination, roles and coverage.

Each check takes schema-valid files and returns ``(kind, error)`` pairs, ``kind`` being the
file ("spec", "cases" or "results") whose element the error points at, so that the error can
be placed at that element's line and column. The rules are stated for the README in
:data:`proagents_bench.contract.CROSS_FILE_RULES`.

Coverage is checked with one slot per (test case, trial) pair, so a million records cost one
pass and no quadratic look-up; the same pass puts each system's records in a canonical order
(test cases in file order, then trial id), which grading relies on
(:attr:`Systems.baseline_records`, :attr:`Systems.candidate_records`).
"""

from array import array

from .contract import SPLITS
from .errors import ContractError, quote

# How many missing (case, trial) pairs one coverage error lists before it says "and N more".
MAX_LISTED_MISSING = 20


def cases_errors(spec, cases):
    """Errors of the cases file against the spec and among its own cases."""
    errors = []
    for key in ("benchmark_id", "benchmark_version"):
        if cases[key] != spec[key]:
            errors.append(("cases", _mismatch(key, cases[key], "the spec's", spec[key])))
    first_index = {}
    family_splits = {}
    for index, case in enumerate(cases["cases"]):
        case_id = case["id"]
        if case_id in first_index:
            errors.append(("cases", ContractError(
                "cases.duplicate_id", "duplicate case id %s (first at cases[%d])" % (
                    quote(case_id), first_index[case_id]), ("cases", index, "id"))))
        else:
            first_index[case_id] = index
        splits = family_splits.setdefault(case["family_id"], {})
        if case["split"] not in splits:
            splits[case["split"]] = index
    present = {case["split"] for case in cases["cases"]}
    missing = [split for split in SPLITS if split not in present]
    if missing:
        errors.append(("cases", ContractError(
            "cases.missing_split", "split%s %s missing: train, development and test must all "
            "be present" % ("s" if len(missing) > 1 else "", " and ".join(missing)
                             + (" are" if len(missing) > 1 else " is")), ("cases",))))
    for family, splits in family_splits.items():
        if len(splits) > 1:
            ordered = [split for split in SPLITS if split in splits]
            # Point at the case that brought the family into its second split.
            second = sorted(splits.values())[1]
            errors.append(("cases", ContractError(
                "cases.split_contamination",
                "split contamination: family_id=%s appears in %s" % (
                    quote(family), " and ".join(ordered)), ("cases", second, "family_id"))))
    return errors


class Systems:
    """The baseline and candidate of a valid results file, with their indexes in it, and
    (once coverage holds) their records in canonical order (see :func:`ordered_records`)."""

    def __init__(self, baseline_index, candidate_index, results):
        self.baseline_index = baseline_index
        self.candidate_index = candidate_index
        self.baseline = results["systems"][baseline_index]
        self.candidate = results["systems"][candidate_index]
        self.baseline_records = None
        self.candidate_records = None


def results_errors(spec, cases, results, candidate_id=None):
    """Errors of the results file against spec and cases; and its :class:`Systems`, if found.

    ``candidate_id`` is the ``--candidate`` argument (None when not given).
    """
    errors = []
    for key in ("benchmark_id", "benchmark_version"):
        if results[key] != spec[key]:
            errors.append(("results", _mismatch(key, results[key], "the spec's", spec[key])))
    if results["dataset_version"] != cases["dataset_version"]:
        errors.append(("results", _mismatch("dataset_version", results["dataset_version"],
                                            "the cases'", cases["dataset_version"])))
    systems = results["systems"]
    seen = {}
    for index, system in enumerate(systems):
        if system["system_id"] in seen:
            errors.append(("results", ContractError(
                "results.duplicate_system_id", "duplicate system_id %s (first at systems[%d])" % (
                    quote(system["system_id"]), seen[system["system_id"]]),
                ("systems", index, "system_id"))))
        else:
            seen[system["system_id"]] = index
    by_role = {"baseline": [], "candidate": []}
    for index, system in enumerate(systems):
        by_role[system["role"]].append(index)
    found = None
    role_errors = []
    for role in ("baseline", "candidate"):
        if len(by_role[role]) != 1:
            role_errors.append(ContractError(
                "results.roles", "expected exactly one %s system, found %d" % (
                    role, len(by_role[role])), ("systems",)))
    if not role_errors:
        found = Systems(by_role["baseline"][0], by_role["candidate"][0], results)
        if found.baseline["system_id"] != spec["baseline_system_id"]:
            role_errors.append(ContractError(
                "results.roles", "the baseline is %s but the spec's baseline_system_id is %s" % (
                    quote(found.baseline["system_id"]), quote(spec["baseline_system_id"])),
                ("systems", found.baseline_index, "system_id")))
        if candidate_id is not None and found.candidate["system_id"] != candidate_id:
            role_errors.append(ContractError(
                "cli.unknown_candidate",
                "--candidate %s does not name the candidate of this results file, which is %s"
                % (quote(candidate_id), quote(found.candidate["system_id"])),
                ("systems", found.candidate_index, "system_id")))
    errors.extend(("results", error) for error in role_errors)
    test_index = {}
    for case in cases["cases"]:
        if case["split"] == "test":
            test_index.setdefault(case["id"], len(test_index))
    all_case_ids = {case["id"] for case in cases["cases"]}
    in_order = {}
    for index, system in enumerate(systems):
        coverage, in_order[index] = _coverage_errors(system, test_index, all_case_ids)
        errors.extend(("results", error.prefixed(("systems", index))) for error in coverage)
    if role_errors:
        return errors, None
    found.baseline_records = in_order[found.baseline_index]
    found.candidate_records = in_order[found.candidate_index]
    return errors, found


def _coverage_errors(system, test_index, all_case_ids):
    """(errors, the records in canonical order: None unless coverage holds)."""
    trials = system["protocol"]["trial_count"]
    slots = bytearray(len(test_index) * trials)
    ordered = [None] * len(slots)
    first_at = array("q", bytes(8 * len(slots)))  # a slot's first record, for duplicates
    errors = []
    for position, record in enumerate(system["records"]):
        case_id = record["case_id"]
        trial_id = record["trial_id"]
        task = test_index.get(case_id)
        if task is None:
            if case_id in all_case_ids:
                errors.append(ContractError(
                    "coverage.not_test_case", "record for %s, which is not a test case: only "
                    "test cases are ranked" % quote(case_id), ("records", position, "case_id")))
            else:
                errors.append(ContractError(
                    "coverage.unknown_case", "record for unknown case id %s" % quote(case_id),
                    ("records", position, "case_id")))
            continue
        if trial_id > trials:
            errors.append(ContractError(
                "coverage.trial_out_of_range", "trial_id %d is beyond this system's "
                "trial_count %d" % (trial_id, trials), ("records", position, "trial_id")))
            continue
        slot = task * trials + trial_id - 1
        if slots[slot]:
            errors.append(ContractError(
                "coverage.duplicate", "duplicate record for case %s trial %d (first at "
                "records[%d])" % (quote(case_id), trial_id, first_at[slot]),
                ("records", position)))
        else:
            slots[slot] = 1
            first_at[slot] = position
            ordered[slot] = record
    missing_count = slots.count(0)
    if missing_count:
        case_ids = list(test_index)
        listed = []
        slot = slots.find(0)
        while slot != -1 and len(listed) < MAX_LISTED_MISSING:
            listed.append("%s trial %d" % (quote(case_ids[slot // trials]),
                                            slot % trials + 1))
            slot = slots.find(0, slot + 1)
        more = missing_count - len(listed)
        errors.append(ContractError(
            "coverage.missing", "%d (case, trial) record%s missing for system %s: %s%s; "
            "nothing is dropped to make a denominator smaller" % (
                missing_count, "" if missing_count == 1 else "s", quote(system["system_id"]),
                ", ".join(listed), " and %d more" % more if more else ""), ("records",)))
    return errors, (None if errors else ordered)


def ordered_records(system, cases):
    """The system's records in canonical order: test cases in file order, then trial id.

    Call only after :func:`results_errors` found no coverage error for this system (which
    also gives them, without this second pass, on its :class:`Systems`).
    """
    trials = system["protocol"]["trial_count"]
    test_index = {}
    for case in cases["cases"]:
        if case["split"] == "test":
            test_index[case["id"]] = len(test_index)
    ordered = [None] * (len(test_index) * trials)
    for record in system["records"]:
        ordered[test_index[record["case_id"]] * trials + record["trial_id"] - 1] = record
    return ordered


def _mismatch(key, actual, owner, expected):
    return ContractError("version.mismatch", "%s %s differs from %s %s" % (
        key, quote(actual), owner, quote(expected)), (key,))

