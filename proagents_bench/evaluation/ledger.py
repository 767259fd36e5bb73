"""The ledger of looks, judged (``--ledger``; the file is :mod:`proagents_bench.contract.ledger`):
what a package is against the looks recorded before it, and the ledger with its look added.

Before a decision, :func:`examine` refuses (:class:`LedgerRefused`, exit 2) a package that
breaks the chain: under a sequential design, a trial an earlier look recorded that is
missing (``ledger.trial_dropped``), changed (``ledger.trial_changed``) or moved to another
trial id (``ledger.trial_reordered``), a look other than the next (``ledger.look_not_allowed``),
a spec, cases file or design changed since the first look (``ledger.design_changed``), a look
after the design decided (``ledger.closed``), another benchmark, baseline or candidate
(``ledger.other_run``), a ledger whose digests disagree with its contents (``ledger.damaged``:
the chain covers the ledger's head and every member of every look), or, under either kind
of design, a package none of whose new trials was measured (``ledger.look_unmeasured``: every
one ``unknown``, as init's results template; it carries no outcome, so it is no look, and not
counting it cannot raise the false pass). The package that is
the ledger's last look itself, unchanged, is judged again and adds nothing. Once the package
is graded, :func:`check_path` refuses it when an earlier look's units, discordant units or
wins, recomputed, are not those the ledger recorded (``ledger.path_changed``): whatever
changed the grading of the recorded trials, they were judged otherwise at their look.

Under a fixed design it finds the earlier judgments of the same candidate and baseline
(:class:`Earlier`), which :func:`repeated_look` turns into what the decision must say: the
gate's one-sided alpha holds for one look, and a candidate judged again on a subset of the
same trials, on fresh ones, or on the same trials under another spec or cases file, has a
larger chance of passing with no improvement (docs/statistics.md, "A fixed design looked at
again"). Only the same trials under the same spec and cases file are no new look.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Set, Tuple

from ..contract.ledger import CONTINUE, FIXED_KIND, SEQUENTIAL_KIND
from ..contract.sequential import boundary_sha256, pool_order, value_sha256
from ..contract.vocabulary import BASELINE_ROLE, CANDIDATE_ROLE, LEDGER_V1, UNKNOWN
from ..errors import ContractError, PathStep
from ..jsonio.canonical_reference import reference_text

if TYPE_CHECKING:  # for annotations only
    from ..contract.sequential import SequentialDesign
    from ..jsonio import JSONObject

# (file kind, error): where a refusal points (``ledger``, ``results`` or ``spec``).
Placed = Tuple[str, ContractError]
# (case id, role) -> the digests of trial ids 1, 2, ...
Digests = Dict[Tuple[str, str], List[str]]
# A trial as a ledger names it: (case id, role, trial id, digest).
Trial = Tuple[str, str, int, str]


class LedgerRefused(Exception):
    """The package breaks the ledger's chain: the errors, each with the file it is in."""

    def __init__(self, errors: List[Placed]) -> None:
        super().__init__("; ".join(error.message for _kind, error in errors))
        self.errors = errors


def record_digest(record: JSONObject) -> str:
    """SHA-256 of a record's RFC 8785 canonical JSON without its ``trial_id``."""
    value = {key: item for key, item in record.items() if key != "trial_id"}
    return hashlib.sha256(reference_text(value).encode("utf-8")).hexdigest()


class LookFacts:
    """What a ledger records of a checked package: who and what was judged (the spec's
    digest, the design and the look, under a sequential design), the test tasks judged in
    the order the ledger lists them (the frozen pool's, or the file's), and every trial's
    digest (:data:`Digests`)."""

    def __init__(self, spec: JSONObject, cases: JSONObject,
                 systems: Tuple[JSONObject, JSONObject],
                 records: Tuple[List[JSONObject], List[JSONObject]],
                 test_cases: List[JSONObject], design: Optional[SequentialDesign],
                 look: Optional[int]) -> None:
        baseline, candidate = systems
        self.benchmark_id: str = spec["benchmark_id"]
        self.identity = {"benchmark_version": spec["benchmark_version"],
                         "dataset_version": cases["dataset_version"],
                         "baseline_system_id": baseline["system_id"],
                         "candidate_system_id": candidate["system_id"]}
        self.spec_sha256 = value_sha256(spec)
        self.cases_sha256 = value_sha256(cases)
        self.design = design
        self.look = look
        self.tasks = len(test_cases)
        self.trials: int = candidate["protocol"]["trial_count"]
        ids = [case["id"] for case in test_cases]
        self.order = pool_order(ids, design.block["order_seed"]) if design else ids
        self.digests: Digests = {}
        # (case id, role) -> whether each trial was measured (a status other than unknown)
        self.measured: Dict[Tuple[str, str], List[bool]] = {}
        for role, system, ordered in ((BASELINE_ROLE, baseline, records[0]),
                                      (CANDIDATE_ROLE, candidate, records[1])):
            count = system["protocol"]["trial_count"]
            for index, case_id in enumerate(ids):
                trials = ordered[index * count:(index + 1) * count]
                self.digests[(case_id, role)] = [record_digest(record) for record in trials]
                self.measured[(case_id, role)] = [record["status"] != UNKNOWN
                                                  for record in trials]

    @property
    def kind(self) -> str:
        return SEQUENTIAL_KIND if self.design is not None else FIXED_KIND

    def trials_set(self) -> Set[Trial]:
        return {(case_id, role, trial, digest) for (case_id, role), digests in
                self.digests.items() for trial, digest in enumerate(digests, 1)}

    def _batch_slots(self) -> List[Tuple[str, str, int]]:
        """(case id, role, first trial id) of the trials this look adds to the look before
        (a fixed design: all), task by task in order, baseline first."""
        before_tasks = before_trials = 0
        if self.design is not None and self.look:
            before_tasks, before_trials = self.design.looks[self.look - 1]
        return [(case_id, role, before_trials + 1 if position < before_tasks else 1)
                for position, case_id in enumerate(self.order)
                for role in (BASELINE_ROLE, CANDIDATE_ROLE)]

    def batch(self) -> List[JSONObject]:
        """The ledger's ``records`` of this look: the trials it adds (:meth:`_batch_slots`)."""
        entries = []
        for case_id, role, first in self._batch_slots():
            digests = self.digests[(case_id, role)][first - 1:]
            if digests:
                entries.append({"case_id": case_id, "role": role,
                                "first_trial_id": first, "sha256": digests})
        return entries

    def batch_measured(self) -> Tuple[int, int]:
        """(the trials this look adds that were measured, all it adds), both systems'."""
        flags = [flag for case_id, role, first in self._batch_slots()
                 for flag in self.measured[(case_id, role)][first - 1:]]
        return sum(flags), len(flags)


def entry_trials(entry: JSONObject) -> List[Trial]:
    return [(entry["case_id"], entry["role"], entry["first_trial_id"] + offset, digest)
            for offset, digest in enumerate(entry["sha256"])]


def batch_sha256(entries: List[JSONObject]) -> str:
    """SHA-256 of a look's trials, one line each: the JSON array [case id, role, trial id,
    digest]."""
    lines = [json.dumps(list(trial)) for entry in entries for trial in entry_trials(entry)]
    return hashlib.sha256("\n".join(lines).encode("ascii")).hexdigest()


def head_sha256(value: JSONObject) -> str:
    """SHA-256 of the ledger's head: the canonical JSON of what it is of (its version, kind,
    benchmark and design); the first link of the chain."""
    return value_sha256({key: value[key] for key in ("schema_version", "kind", "benchmark_id",
                                                     "design")})


def chain_sha256(previous: str, look: JSONObject) -> str:
    """The chain up to ``look``: SHA-256 of the previous link followed by the SHA-256 of the
    look's canonical JSON without its ``chain_sha256`` (every other member), as hex text."""
    whole = value_sha256({key: item for key, item in look.items() if key != "chain_sha256"})
    return hashlib.sha256((previous + whole).encode("ascii")).hexdigest()


def is_closed(looks: List[JSONObject]) -> bool:
    """Whether the sequential design decided: the last look's state is not ``continue``
    (a fixed design's looks have none: never closed)."""
    return looks[-1]["state"] not in (None, CONTINUE)


class Earlier(NamedTuple):
    """What the ledger holds before this package: its ``value`` (None: a new ledger), whether
    the package is a look already recorded, unchanged (``repeat``: nothing to add), and under
    a fixed design the earlier judgments of the same candidate and baseline (each look
    record, with how its trials relate to the package's: ``same`` (under another spec or
    cases file), ``subset``, ``disjoint`` or ``overlap``)."""
    value: Optional[JSONObject]
    repeat: bool
    same_candidate: List[Tuple[JSONObject, str]]


def examine(value: Optional[JSONObject], facts: LookFacts) -> Earlier:
    """The package against the ledger ``value`` (None when the file does not exist yet), or
    :class:`LedgerRefused` (the module docstring)."""
    _measured(facts)
    if value is None:
        if facts.design is not None and facts.look:
            raise LedgerRefused([("results", ContractError(
                "ledger.look_not_allowed", "a new ledger starts at look 1, but the package is "
                "%s: judge the looks in order, each with the same --ledger" % (
                    facts.design.describe_look(facts.look)), ("systems",)))])
        return Earlier(None, False, [])
    _intact(value)
    if value["kind"] != facts.kind:
        raise LedgerRefused([("ledger", ContractError(
            "ledger.design_changed", "the ledger is of a %s design, but the spec's design is "
            "%s" % (value["kind"], facts.kind), ("kind",)))])
    if value["benchmark_id"] != facts.benchmark_id:
        raise LedgerRefused([("ledger", ContractError(
            "ledger.other_run", "the ledger is benchmark %s's, not %s's" % (
                json.dumps(value["benchmark_id"]), json.dumps(facts.benchmark_id)),
            ("benchmark_id",)))])
    if facts.design is None:
        return _fixed(value, facts)
    return _sequential(value, facts, facts.design)


def _measured(facts: LookFacts) -> None:
    """A package none of whose new trials was measured (every one ``unknown``, as init's
    results template) carries no outcome: it is not a look, and the ledger records nothing
    of it (docs/contract.md, "Looks and the ledger")."""
    measured, trials = facts.batch_measured()
    if not trials or measured:
        return
    design, look = facts.design, facts.look
    what = ("the package is look %d of %d, and all %d trials it adds" % (
        look + 1, len(design.looks), trials) if design is not None and look is not None
        else "all %d trials of the package" % trials)
    raise LedgerRefused([("results", ContractError(
        "ledger.look_unmeasured", "no trial was measured: %s, both systems', have status "
        "\"unknown\", as in init's results template; a package that carries no outcome is "
        "not a look, and the ledger records nothing of it (check such a package without "
        "--ledger; judge with --ledger the package the batch's run produces)" % what,
        ("systems",)))])


def _intact(value: JSONObject) -> None:
    """The ledger's looks numbered 1, 2, ..., their batch digests those of their records,
    their chain that of the head and every look up to theirs, and ``closed`` what the last
    look's state says."""
    chain = head_sha256(value)
    for index, look in enumerate(value["looks"]):
        chain = chain_sha256(chain, look)
        for key, expected in (("look", index + 1), ("batch_sha256",
                                                    batch_sha256(look["records"])),
                              ("chain_sha256", chain)):
            if look[key] != expected:
                raise LedgerRefused([("ledger", ContractError(
                    "ledger.damaged", "the ledger's look %d has %s %s, but its contents (its "
                    "head's and the looks' up to it) give %s: the ledger was edited" % (
                        index + 1, key, json.dumps(look[key]), json.dumps(expected)),
                    ("looks", index, key)))])
    closed = is_closed(value["looks"])
    if value["closed"] != closed:
        raise LedgerRefused([("ledger", ContractError(
            "ledger.damaged", "the ledger has closed %s, but its last look's state %s gives "
            "%s: the ledger was edited" % (json.dumps(value["closed"]), json.dumps(
                value["looks"][-1]["state"]), json.dumps(closed)), ("closed",)))])


def design_record(facts: LookFacts, design: SequentialDesign) -> JSONObject:
    """The ledger's ``design``: what the design and its boundary are at the first look."""
    statistics = design.statistics
    record: JSONObject = {
        "spec_sha256": facts.spec_sha256, "cases_sha256": facts.cases_sha256,
        "design_sha256": value_sha256(design.block),
        "boundary_sha256": boundary_sha256(design.boundary()),
        "method": design.block["method"], "unit": design.unit,
        "alpha": str(design.alpha), "theta0": str(design.theta0),
        "win_share": str(statistics.theta1), "max_discordant": statistics.max_discordant,
        "pool_sha256": design.block["pool_sha256"], "looks": len(design.looks)}
    record.update(facts.identity)
    return record


def _sequential(value: JSONObject, facts: LookFacts, design: SequentialDesign) -> Earlier:
    recorded = value["design"]
    current = design_record(facts, design)
    for key in ("benchmark_version", "dataset_version", "baseline_system_id",
                "candidate_system_id"):
        if recorded[key] != current[key]:
            raise LedgerRefused([("ledger", ContractError(
                "ledger.other_run", "the ledger's design was run with %s %s, this package "
                "has %s: a ledger holds one run of one design" % (
                    key, json.dumps(recorded[key]), json.dumps(current[key])),
                ("design", key)))])
    for key, what in (("design_sha256", "the spec's sequential design"),
                      ("boundary_sha256", "the boundary rebuilt from the design (another "
                                          "version of proagents-bench computes it otherwise)"),
                      ("spec_sha256", "the spec"), ("cases_sha256", "the cases file")):
        if recorded[key] != current[key]:
            raise LedgerRefused([("cases" if key == "cases_sha256" else "spec", ContractError(
                "ledger.design_changed", "%s changed after the first look (the ledger's %s "
                "is %s, now %s): a design is frozen before its first look, and the earlier "
                "looks' trials are graded against the cases they were judged with; a new "
                "design starts a new ledger and a new pool of trials" % (
                    what, key, recorded[key], current[key]),
                ("sequential",) if key in ("design_sha256", "boundary_sha256") else ()))])
    looks = value["looks"]
    number = facts.look + 1 if facts.look is not None else 1
    if number > len(looks) + 1:
        raise LedgerRefused([("results", ContractError(
            "ledger.look_not_allowed", "the package is %s, but the ledger holds looks 1-%d: "
            "the next is %s" % (design.describe_look(number - 1), len(looks),
                                design.describe_look(len(looks))), ("systems",)))])
    if number < len(looks):
        entry = looks[number]["records"][0]  # a look has records (the ledger's shape)
        raise LedgerRefused([("ledger", ContractError(
            "ledger.trial_dropped", "the package is %s, but the ledger already holds look "
            "%d: its trials are missing, the first of them task %s's %s %s" % (
                design.describe_look(number - 1), number + 1, json.dumps(entry["case_id"]),
                entry["role"], _trial_span(entry)), ("looks", number, "records", 0)))])
    _same_trials(looks, facts)
    if number == len(looks):
        return Earlier(value, True, [])
    if is_closed(looks):
        last = looks[-1]
        raise LedgerRefused([("ledger", ContractError(
            "ledger.closed", "the design decided at look %d (%s, state %s): no look after it; "
            "a new design starts a new ledger" % (last["look"], last["action"],
                                                  last["state"]), ("closed",)))])
    return Earlier(value, False, [])


def _trial_span(entry: JSONObject) -> str:
    """The trial ids a ledger entry holds, in words: ``trial 2`` or ``trials 1 to 3``."""
    first = entry["first_trial_id"]
    last = first + len(entry["sha256"]) - 1
    return "trial %d" % first if first == last else "trials %d to %d" % (first, last)


def _same_trials(looks: List[JSONObject], facts: LookFacts) -> None:
    """Every trial the looks recorded is in the package, unchanged, at its trial id; a
    (task, role) whose trials all are, but some at other trial ids, was reordered."""
    recorded: Dict[Tuple[str, str], Dict[int, Tuple[str, Tuple[PathStep, ...], int]]] = {}
    for index, look in enumerate(looks):
        for position, entry in enumerate(look["records"]):
            for case_id, role, trial, digest in entry_trials(entry):
                recorded.setdefault((case_id, role), {})[trial] = (
                    digest, ("looks", index, "records", position), index + 1)
    for (case_id, role), trials in recorded.items():
        found = facts.digests.get((case_id, role), [])
        for trial in sorted(trials):
            digest, where, number = trials[trial]
            named = "task %s, %s, trial %d (recorded by look %d)" % (
                json.dumps(case_id), role, trial, number)
            if trial > len(found):
                raise LedgerRefused([("ledger", ContractError(
                    "ledger.trial_dropped", "%s is not in the package: nothing an earlier "
                    "look judged may be dropped" % named, where))])
            if found[trial - 1] == digest:
                continue
            if Counter(item[0] for item in trials.values()) == Counter(
                    found[number - 1] for number in trials):
                raise LedgerRefused([("ledger", ContractError(
                    "ledger.trial_reordered", "%s is now the package's trial %d of that task "
                    "and system: trials may not move between trial ids" % (
                        named, found.index(digest) + 1), where))])
            raise LedgerRefused([("ledger", ContractError(
                "ledger.trial_changed", "%s was changed after that look judged it (its "
                "record's digest was %s, now %s)" % (named, digest, found[trial - 1]),
                where))])


def check_path(value: JSONObject, earlier: List[Tuple[Tuple[int, int, int], bool]],
               this: Tuple[int, int, int]) -> None:
    """The ledger's looks' (units, discordant, wins) against those recomputed from the
    package (a sequential design's path): ``earlier``, each look before this one with
    whether the path decided at it, then ``this`` look's; or :class:`LedgerRefused`. The
    chain's trials unchanged and the same spec and cases file give the same path, so a
    difference (``ledger.path_changed``) means the recorded trials are graded otherwise now
    than at their look; a path that crossed a boundary at an earlier look closed the design
    there, whatever the ledger says (``ledger.closed``)."""
    recomputed = [counts for counts, _decided in earlier] + [this]
    for index, (look, counts) in enumerate(zip(value["looks"], recomputed)):
        keys = ("units", "discordant", "wins")
        recorded = tuple(look[key] for key in keys)
        if recorded != counts:
            first = next(key for key, was, now in zip(keys, recorded, counts) if was != now)
            raise LedgerRefused([("ledger", ContractError(
                "ledger.path_changed", "the ledger's look %d recorded %d units, %d discordant, "
                "%d won by the candidate; the package gives %d, %d and %d: the trials it "
                "judged are graded otherwise now, and a look already taken cannot be taken "
                "again" % ((index + 1,) + recorded + counts), ("looks", index, first)))])
    for index, (_counts, decided) in enumerate(earlier):
        if decided:
            raise LedgerRefused([("ledger", ContractError(
                "ledger.closed", "the path of the looks recorded crossed a boundary at look "
                "%d: the design decided there, and no look comes after it (the ledger's look "
                "%d says %s)" % (index + 1, index + 1, json.dumps(
                    value["looks"][index]["state"])), ("looks", index, "state")))])


def _fixed(value: JSONObject, facts: LookFacts) -> Earlier:
    """The earlier judgments of the same candidate and baseline on this benchmark (of any
    version), up to one identical to this package (the same trials, spec and cases file:
    then a repeat). The same trials under another spec or cases file are the same question
    asked again (``same``)."""
    current = facts.trials_set()
    same: List[Tuple[JSONObject, str]] = []
    for look in value["looks"]:
        if any(look[key] != facts.identity[key] for key in ("baseline_system_id",
                                                            "candidate_system_id")):
            continue
        trials = {trial for entry in look["records"] for trial in entry_trials(entry)}
        if trials == current and (look["spec_sha256"], look["cases_sha256"]) == (
                facts.spec_sha256, facts.cases_sha256):
            return Earlier(value, True, same)
        relation = ("same" if trials == current else "subset" if trials < current
                    else "disjoint" if not trials & current else "overlap")
        same.append((look, relation))
    return Earlier(value, False, same)


def appended(earlier: Earlier, facts: LookFacts, action: str, state: Optional[str],
             counts: Tuple[int, int, int], decided_at: Optional[int],
             fingerprint: str, version: str) -> JSONObject:
    """The ledger with this look added (``counts``: units, discordant, wins); ``closed``
    is what its ``state`` says."""
    previous = earlier.value
    looks = list(previous["looks"]) if previous is not None else []
    entries = facts.batch()
    batch = batch_sha256(entries)
    units, discordant, wins = counts
    look: JSONObject = {
        "look": len(looks) + 1, "spec_sha256": facts.spec_sha256,
        "cases_sha256": facts.cases_sha256, "tasks": facts.tasks,
        "trials": facts.trials, "units": units, "discordant": discordant, "wins": wins,
        "action": action, "state": state, "decided_at": decided_at,
        "evidence_fingerprint": fingerprint, "tool_version": version,
        "batch_sha256": batch, "records": entries}
    look.update(facts.identity)
    design = facts.design
    value: JSONObject = {
        "schema_version": LEDGER_V1, "kind": facts.kind, "benchmark_id": facts.benchmark_id,
        "design": (previous["design"] if previous is not None else
                   design_record(facts, design) if design is not None else None),
        "closed": is_closed([look]), "looks": looks + [look]}
    look["chain_sha256"] = chain_sha256(looks[-1]["chain_sha256"] if looks else
                                        head_sha256(value), look)
    return value


def nested_by_tasks(same: List[Tuple[JSONObject, str]], facts: LookFacts) -> bool:
    """Whether every earlier judgment is this package cut to some of its tasks (all their
    trials, unchanged), and they grow one from the next: nested looks that add whole tasks,
    whose discordant tasks are then a growing sequence (McNemar's test at each is
    :func:`~proagents_bench.stats.sequential_fixed.repeated_look_false_pass`'s)."""
    tasks: List[Set[str]] = []
    for look, relation in same:
        if relation != "subset" or look["spec_sha256"] != facts.spec_sha256:
            return False
        for entry in look["records"]:
            if entry["sha256"] != facts.digests.get((entry["case_id"], entry["role"])):
                return False
        tasks.append({entry["case_id"] for entry in look["records"]})
    ordered = sorted(tasks, key=len)
    return all(first <= second for first, second in zip(ordered, ordered[1:]))
