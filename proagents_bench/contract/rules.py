"""The rules across objects and files, each declared once: its code and its check (its text is
the code's meaning in :mod:`proagents_bench.codes`).

The checks run on schema-valid files, in two phases (see :func:`cross_file_errors`): first
the cases against the spec and among themselves, then, when those hold, the results against
both. Each check yields ``(kind, error)`` pairs, ``kind`` being the file ("cases" or
"results") whose element the error points at, so that it can be placed at that element's line
and column. Several rules may share one check (the five coverage rules are one pass over the
records); each check runs once.

Coverage is checked with one slot per (test case, trial) pair, so a million records cost one
pass and no quadratic look-up; the same pass puts each system's records in a canonical order
(test cases in file order, then trial id), which grading relies on
(:attr:`Systems.baseline_records`, :attr:`Systems.candidate_records`).
"""

from __future__ import annotations

from array import array
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple, cast

from ..errors import MAX_LISTED_IDS, ContractError
from ..jsonio import JSONObject
from ..steps import BATCH, watcher
from ..text import quote
from .sequential import design_of, pool_order, pool_sha256
from .shapes import Rule
from .vocabulary import BASELINE_ROLE, CANDIDATE_ROLE, ROLES, SPLITS, TEST_SPLIT


Found = Iterator[Tuple[str, ContractError]]
# A rule across files: its check yields (file kind, error) pairs.
CrossFileRule = Rule[Tuple[str, ContractError]]


class Systems:
    """The baseline and candidate of a valid results file, with their indexes in it, and
    (once coverage holds) their records in canonical order."""

    def __init__(self, baseline_index: int, candidate_index: int,
                 results: JSONObject) -> None:
        self.baseline_index = baseline_index
        self.candidate_index = candidate_index
        self.baseline = results["systems"][baseline_index]
        self.candidate = results["systems"][candidate_index]
        self.baseline_records: Optional[List[JSONObject]] = None
        self.candidate_records: Optional[List[JSONObject]] = None

    def in_order(self) -> Tuple[List[JSONObject], List[JSONObject]]:
        """The baseline's and the candidate's records in canonical order, once every rule
        held (:func:`cross_file_errors` found nothing: coverage put them in order)."""
        baseline, candidate = self.baseline_records, self.candidate_records
        if baseline is None or candidate is None:
            raise ValueError("the records are in order only once the coverage rule held")
        return baseline, candidate

    def records_at(self, kept: List[int]) -> Tuple[List[JSONObject], List[JSONObject]]:
        """The baseline's and the candidate's records of the test tasks at the positions
        ``kept`` (of the cases file's test tasks), in canonical order: each task's trials one
        after another, so a slice per task."""
        found: List[List[JSONObject]] = []
        for system, ordered in zip((self.baseline, self.candidate), self.in_order()):
            trials = system["protocol"]["trial_count"]
            found.append([record for index in kept
                          for record in ordered[index * trials:(index + 1) * trials]])
        return found[0], found[1]


class Context:
    """What the checks read and what they find for later stages: the validated files, the
    ``--candidate`` argument, the test cases' positions, (from the roles check) the
    :class:`Systems`, and under a sequential design (from the coverage check) the ``look``
    the results are (its index in the design's looks) and its test cases' positions, which
    the results are then judged on."""

    def __init__(self, spec: JSONObject, cases: JSONObject,
                 results: Optional[JSONObject] = None,
                 candidate_id: Optional[str] = None) -> None:
        self.spec = spec
        self.cases = cases
        self.results = results
        self.candidate_id = candidate_id
        self.systems: Optional[Systems] = None
        self.look: Optional[int] = None
        self.test_index: Dict[str, int] = {}
        for case in cases["cases"]:
            if case["split"] == TEST_SPLIT:
                self.test_index.setdefault(case["id"], len(self.test_index))

    def test_cases(self) -> List[JSONObject]:
        """The test cases the results are judged on, in file order: every test case, or
        under a sequential design the look's (once the coverage rule held)."""
        return [case for case in self.cases["cases"]
                if case["split"] == TEST_SPLIT and case["id"] in self.test_index]

    def checked(self) -> Systems:
        """The baseline and the candidate, once every rule held (:func:`cross_file_errors`
        found nothing: the roles rule found them)."""
        if self.systems is None:
            raise ValueError("the systems are known only once the roles rule held")
        return self.systems

    def loaded_results(self) -> JSONObject:
        """The results file, for the results' rules, which run only when it is in
        (:func:`cross_file_errors`)."""
        if self.results is None:
            raise ValueError("the results' rules run only once the results are in")
        return self.results


def _versions(context: Context) -> Found:
    """The cases against the spec; once the results are in the context, they against both."""
    spec, cases, results = context.spec, context.cases, context.results
    pairs = [("cases", cases, key, "the spec's", spec[key])
             for key in ("benchmark_id", "benchmark_version")]
    if results is not None:
        pairs = [("results", results, key, "the spec's", spec[key])
                 for key in ("benchmark_id", "benchmark_version")]
        pairs.append(("results", results, "dataset_version", "the cases'",
                      cases["dataset_version"]))
    for kind, document, key, owner, expected in pairs:
        if document[key] != expected:
            yield kind, VERSIONS.error("%s %s differs from %s %s" % (
                key, quote(document[key]), owner, quote(expected)), (key,))


def _duplicate_case_ids(context: Context) -> Found:
    first_index: Dict[str, int] = {}
    for index, case in enumerate(context.cases["cases"]):
        if case["id"] in first_index:
            yield "cases", DUPLICATE_CASE_ID.error("duplicate case id %s (first at cases[%d])" % (
                quote(case["id"]), first_index[case["id"]]), ("cases", index, "id"))
        else:
            first_index[case["id"]] = index


def _missing_splits(context: Context) -> Found:
    """All three splits, but those a cases v2 file declares absent; and none of those may
    hold a case (the declaration would hide a contamination check that can run)."""
    absent = context.cases.get("absent_splits", [])
    present: Dict[str, int] = {}
    for index, case in enumerate(context.cases["cases"]):
        present.setdefault(case["split"], index)
    missing = [split for split in SPLITS if split not in present and split not in absent]
    if missing:
        declared = (" (or declared in absent_splits, which a cases v2 file may do for train "
                    "and development)" if "absent_splits" in context.cases else "")
        yield "cases", MISSING_SPLIT.error(
            "split%s %s missing: train, development and test must all be present%s" % (
                "s" if len(missing) > 1 else "",
                " and ".join(missing) + (" are" if len(missing) > 1 else " is"), declared),
            ("cases",))
    for number, split in enumerate(absent):
        if split in present:
            yield "cases", ABSENT_SPLIT_PRESENT.error(
                "absent_splits declares %s absent, but cases[%d] is a %s case: remove it "
                "from absent_splits" % (quote(split), present[split], split),
                ("absent_splits", number))


def _split_contamination(context: Context) -> Found:
    family_splits: Dict[str, Dict[str, int]] = {}
    for index, case in enumerate(context.cases["cases"]):
        splits = family_splits.setdefault(case["family_id"], {})
        if case["split"] not in splits:
            splits[case["split"]] = index
    for family, splits in family_splits.items():
        if len(splits) > 1:
            ordered = [split for split in SPLITS if split in splits]
            second = sorted(splits.values())[1]  # the case that brought in a second split
            yield "cases", SPLIT_CONTAMINATION.error(
                "split contamination: family_id=%s appears in %s" % (
                    quote(family), " and ".join(ordered)), ("cases", second, "family_id"))


def _sequential_pool(context: Context) -> Found:
    """Under a sequential design, the test split is its frozen pool, with at least the last
    look's tasks."""
    design = design_of(context.spec) if "sequential" in context.spec else None
    if design is None:
        return
    ordered = pool_order(list(context.test_index), design.block["order_seed"])
    found = pool_sha256(ordered)
    if found != design.block["pool_sha256"]:
        yield "cases", SEQUENTIAL_POOL.error(
            "the test cases are not the sequential design's frozen pool: in the order of "
            "order_seed %d their pool_sha256 is %s, the spec's is %s (a test case was added, "
            "removed or renamed after the design was frozen; a new pool is a new design)" % (
                design.block["order_seed"], found, design.block["pool_sha256"]), ("cases",))
    elif design.looks[-1][0] > len(ordered):
        yield "cases", SEQUENTIAL_POOL.error(
            "the sequential design's last look holds %d tasks, but the pool has only %d test "
            "cases" % (design.looks[-1][0], len(ordered)), ("cases",))


def _duplicate_system_ids(context: Context) -> Found:
    seen: Dict[str, int] = {}
    for index, system in enumerate(context.loaded_results()["systems"]):
        if system["system_id"] in seen:
            yield "results", DUPLICATE_SYSTEM_ID.error(
                "duplicate system_id %s (first at systems[%d])" % (
                    quote(system["system_id"]), seen[system["system_id"]]),
                ("systems", index, "system_id"))
        else:
            seen[system["system_id"]] = index


def _roles(context: Context) -> Found:
    """One baseline (the spec's) and one candidate (``--candidate``'s, when given); finds
    :attr:`Context.systems`."""
    results = context.loaded_results()
    by_role: Dict[str, List[int]] = {role: [] for role in ROLES}
    for index, system in enumerate(results["systems"]):
        by_role[system["role"]].append(index)
    wrong = [role for role in ROLES if len(by_role[role]) != 1]
    for role in wrong:
        yield "results", ROLES_RULE.error("expected exactly one %s system, found %d" % (
            role, len(by_role[role])), ("systems",))
    if wrong:
        return
    found = Systems(by_role[BASELINE_ROLE][0], by_role[CANDIDATE_ROLE][0], results)
    agreed = True
    if found.baseline["system_id"] != context.spec["baseline_system_id"]:
        agreed = False
        yield "results", ROLES_RULE.error(
            "the baseline is %s but the spec's baseline_system_id is %s" % (
                quote(found.baseline["system_id"]), quote(context.spec["baseline_system_id"])),
            ("systems", found.baseline_index, "system_id"))
    candidate_id = context.candidate_id
    if candidate_id is not None and found.candidate["system_id"] != candidate_id:
        agreed = False
        yield "results", UNKNOWN_CANDIDATE.error(
            "--candidate %s does not name the candidate of this results file, which is %s" % (
                quote(candidate_id), quote(found.candidate["system_id"])),
            ("systems", found.candidate_index, "system_id"))
    if agreed:
        context.systems = found


def _coverage(context: Context) -> Found:
    """Every system's records against the test cases, in one pass each (the five coverage
    rules); the records in canonical order go to :attr:`Context.systems`. Under a sequential
    design the test cases are first those of the look the results are (or, when they are
    no look of it, that error alone)."""
    if "sequential" in context.spec and context.spec["sequential"] is not None:
        error = _look(context)
        if error is not None:
            yield "results", error
            return
    all_case_ids = {case["id"] for case in context.cases["cases"]}
    in_order: Dict[int, Optional[List[JSONObject]]] = {}
    for index, system in enumerate(context.loaded_results()["systems"]):
        errors, in_order[index] = _system_coverage(system, context.test_index, all_case_ids)
        for error in errors:
            yield "results", error.prefixed(("systems", index))
    found = context.systems
    if found is not None:
        found.baseline_records = in_order[found.baseline_index]
        found.candidate_records = in_order[found.candidate_index]


def _look(context: Context) -> Optional[ContractError]:
    """Find the look of the sequential design the results are: the test cases the records
    name are the first ``tasks`` of the frozen pool of a look whose ``trials`` is the
    candidate's trial count. Sets :attr:`Context.look` and narrows the test cases to the
    look's; else the error, naming the looks."""
    design = design_of(context.spec)
    found = context.systems
    if design is None or found is None:  # no design; or the roles rule failed: it says so
        return None
    named: Set[str] = set()
    for system in context.loaded_results()["systems"]:
        named.update(record["case_id"] for record in system["records"]
                     if record["case_id"] in context.test_index)
    trials = found.candidate["protocol"]["trial_count"]
    ordered = pool_order(list(context.test_index), design.block["order_seed"])
    index = design.look_of(len(named), trials)
    first = set(ordered[:len(named)])
    if index is not None and named == first:
        context.look = index
        context.test_index = {case_id: position for position, case_id in enumerate(
            case_id for case_id in context.test_index if case_id in named)}
        return None
    looks = "; ".join("%d: %d x %d" % (number, tasks, count)
                      for number, (tasks, count) in enumerate(design.looks, 1))
    if index is None:
        problem = ("its records name %d test task%s and its candidate ran %d trials of each, "
                   "which is no look of the design" % (len(named), "" if len(named) == 1
                                                      else "s", trials))
    else:
        outside = [case_id for case_id in context.test_index
                   if case_id in named and case_id not in first]
        problem = ("its records name %d test tasks, but not the first %d of the frozen pool "
                   "(%s %s not among them)" % (
                       len(named), len(named), ", ".join(quote(case_id) for case_id in
                                                         outside[:MAX_LISTED_IDS]),
                       "is" if len(outside) == 1 else "are"))
    return SEQUENTIAL_LOOK.error(
        "the results are not a look of the spec's sequential design: %s (looks, as tasks x "
        "trials: %s)" % (problem, looks), ("systems",))


def _system_coverage(system: JSONObject, test_index: Dict[str, int], all_case_ids: Set[str]
                     ) -> Tuple[List[ContractError], Optional[List[JSONObject]]]:
    """(errors, the records in canonical order: None unless coverage holds)."""
    trials = system["protocol"]["trial_count"]
    slots = bytearray(len(test_index) * trials)
    ordered: List[Optional[JSONObject]] = [None] * len(slots)
    first_at = array("q", bytes(8 * len(slots)))  # a slot's first record, for duplicates
    errors: List[ContractError] = []
    advance = watcher()
    for position, record in enumerate(system["records"]):
        if advance is not None and position and not position % BATCH:
            advance(BATCH)
        case_id = record["case_id"]
        trial_id = record["trial_id"]
        task = test_index.get(case_id)
        if task is None:
            if case_id in all_case_ids:
                errors.append(NOT_TEST_CASE.error(
                    "record for %s, which is not a test case: only test cases are ranked"
                    % quote(case_id), ("records", position, "case_id")))
            else:
                errors.append(UNKNOWN_CASE.error("record for unknown case id %s" % quote(
                    case_id), ("records", position, "case_id")))
            continue
        if trial_id > trials:
            errors.append(TRIAL_OUT_OF_RANGE.error(
                "trial_id %d is beyond this system's trial_count %d" % (trial_id, trials),
                ("records", position, "trial_id")))
            continue
        slot = task * trials + trial_id - 1
        if slots[slot]:
            errors.append(DUPLICATE_RECORD.error(
                "duplicate record for case %s trial %d (first at records[%d])" % (
                    quote(case_id), trial_id, first_at[slot]), ("records", position)))
        else:
            slots[slot] = 1
            first_at[slot] = position
            ordered[slot] = record
    if advance is not None and system["records"]:
        advance((len(system["records"]) - 1) % BATCH + 1)  # the records since the last
    missing_count = slots.count(0)
    if missing_count:
        case_ids = list(test_index)
        listed: List[str] = []
        slot = slots.find(0)
        while slot != -1 and len(listed) < MAX_LISTED_IDS:
            listed.append("%s trial %d" % (quote(case_ids[slot // trials]), slot % trials + 1))
            slot = slots.find(0, slot + 1)
        more = missing_count - len(listed)
        errors.append(MISSING_RECORD.error(
            "%d (case, trial) record%s missing for system %s: %s%s; nothing is dropped to "
            "make a denominator smaller" % (
                missing_count, "" if missing_count == 1 else "s", quote(system["system_id"]),
                ", ".join(listed), " and %d more" % more if more else ""), ("records",)))
    # Without errors every slot holds its record.
    return errors, (None if errors else cast("List[JSONObject]", ordered))


def rules_of(check: Callable[[Context], Found], *codes: str) -> Tuple[CrossFileRule, ...]:
    """The rules of ``codes``, in that order, that share one ``check`` (it runs once for
    them all, see :func:`_run`)."""
    return tuple(Rule(code, check) for code in codes)


VERSIONS = Rule("version.mismatch", _versions)
DUPLICATE_CASE_ID = Rule("cases.duplicate_id", _duplicate_case_ids)
MISSING_SPLIT, ABSENT_SPLIT_PRESENT = rules_of(_missing_splits, "cases.missing_split",
                                               "cases.absent_split_present")
SPLIT_CONTAMINATION = Rule("cases.split_contamination", _split_contamination)
DUPLICATE_SYSTEM_ID = Rule("results.duplicate_system_id", _duplicate_system_ids)
ROLES_RULE, UNKNOWN_CANDIDATE = rules_of(_roles, "results.roles", "cli.unknown_candidate")
(SEQUENTIAL_LOOK, MISSING_RECORD, DUPLICATE_RECORD, UNKNOWN_CASE, NOT_TEST_CASE,
 TRIAL_OUT_OF_RANGE) = rules_of(
    _coverage, "sequential.look", "coverage.missing", "coverage.duplicate",
    "coverage.unknown_case", "coverage.not_test_case", "coverage.trial_out_of_range")
SEQUENTIAL_POOL = Rule("sequential.pool", _sequential_pool)

# In the order they are checked and listed: the cases' rules, then the results'.
CASES_RULES = (VERSIONS, DUPLICATE_CASE_ID, MISSING_SPLIT, ABSENT_SPLIT_PRESENT,
               SPLIT_CONTAMINATION, SEQUENTIAL_POOL)
RESULTS_RULES = (VERSIONS, DUPLICATE_SYSTEM_ID, ROLES_RULE, UNKNOWN_CANDIDATE, SEQUENTIAL_LOOK,
                 MISSING_RECORD, DUPLICATE_RECORD, UNKNOWN_CASE, NOT_TEST_CASE,
                 TRIAL_OUT_OF_RANGE)
CROSS_FILE_RULES = CASES_RULES + RESULTS_RULES[1:]


def _run(rules: Sequence[CrossFileRule], context: Context) -> List[Tuple[str, ContractError]]:
    found: List[Tuple[str, ContractError]] = []
    done: Set[Callable[..., object]] = set()
    for rule in rules:
        if rule.check not in done:
            done.add(rule.check)
            found.extend(rule.iter_errors(context))
    return found


def cases_errors(cases: JSONObject) -> List[ContractError]:
    """The cases' own rules across their cases (ids, splits, contamination), without a spec:
    for a cases file read on its own (``diff``)."""
    context = Context({}, cases)
    return [error for _kind, error in _run(CASES_RULES[1:], context)]


def cross_file_errors(context: Context) -> List[Tuple[str, ContractError]]:
    """(kind, error) for every rule across files: the cases' rules, then, when they hold
    and the results are in ``context``, the results' rules (which find
    :attr:`Context.systems`)."""
    results = context.results
    context.results = None
    found = _run(CASES_RULES, context)
    context.results = results
    if results is not None and not found:
        found = _run(RESULTS_RULES, context)
    return found
