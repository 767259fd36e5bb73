"""The boosting attack against the private-test service: ``run_benchmark.py bench attack``.

Blum & Hardt 2015 ("The Ladder: A Reliable Leaderboard for Machine Learning Competitions",
section 3.1, the boosting attack) climb a leaderboard without learning anything: submit k
random answer vectors, keep those whose feedback says they scored above 1/2, submit their
per-case majority. Every vector's true score is 1/2, and so is the majority's on cases the
feedback never depended on; on the cases it did depend on, the majority scores well above.

Here each of ``--cases`` test cases has one of two expected final states, drawn from the
seed; a submission gives one state per case (every trial the same), so its task passes are
a random 0/1 vector. The benchmark writes the package, starts two real ``serve`` processes
on loopback (one with every gate passing, one with a hard gate on the candidate's primary
rate just above 1/2, which turns a verdict into a one-bit score oracle), opens a phase with
``--private-share`` of the cases private (0: no phase; every case is public), and runs, per
level and ``--repetitions`` times, a team that makes ``--submissions`` random submissions
then the majority of those it kept. The attacker keeps a submission when its own answer
says so: a score released with it above 1/2, or its own verdict PASS with the gate near the
score (a verdict the answer repeats from an earlier submission says nothing of this one).
The same random vectors are used at every level (repetition r draws from seed + r).

Then ``phase close`` runs, and the public and final boards are read from
``GET /v1/leaderboard``. The table gives each level's mean board score over the repetitions,
its inflation over the truth (1/2) and the Monte Carlo standard error of that mean, beside
the standard error of one score, sqrt(1/4 / n), for the public and private parts.

The choice attack (``--strategy complement``) needs no feedback at all: each of ``--pairs``
teams submits a random vector and its complement (every case's other state) and chooses
both for the final board, as many as the phase takes, on a server whose phase takes the
default number of final choices and on one whose phase takes two (the same vectors on
both). A team's final row is its best chosen submission, so with two choices its final score
is max(K, n - K) / n for K ~ Binomial(n, 1/2) on the n private cases: a gain of
E[max(K, n - K)] / n - 1/2 over the truth, about sqrt(2 / pi) = 0.80 standard errors; with
one choice the final score is one submission's, chosen before the private part is scored,
and the gain is 0. The table gives the measured mean gain in standard errors, with its
Monte Carlo error, beside the exact figure (:func:`complement_gain`).
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction
from typing import Callable, Dict, List, Optional, Sequence, Tuple, cast

from ..jsonio import JSONObject
from ..service import client, database, parts, phases, teams
from .bench import PACKAGE_ROOT
from .service_bench import UNSPENDABLE_BUDGET, ServeChild, write_files

STATES = ("state-a", "state-b")
TRIALS = 2
BOOTSTRAP_SAMPLES = 200
PHASE_NAME = "attack"
BOTH = "both"
BOOSTING = "boosting"
COMPLEMENT = "complement"
STRATEGIES = (BOTH, BOOSTING, COMPLEMENT)
DEFAULT_PAIRS = 200
TRUTH = Fraction(1, 2)
# (label, level, whether the server's spec has a gate near the team's score)
CONFIGURATIONS = (
    ("full", "full", False),
    ("rounded", "rounded", False),
    ("ladder, every gate passing", "ladder", False),
    ("ladder, a gate near the team's score", "ladder", True),
    ("verdict, a gate near the team's score", "verdict", True),
)


def make_benchmark(cases: int, seed: int, near_threshold: Optional[str]
                   ) -> Tuple[JSONObject, JSONObject, JSONObject, Dict[str, str]]:
    """(spec, cases, baseline package, the expected state of each test case): every gate
    passes any submission, but for ``near_threshold`` (a decimal) on the primary rate."""
    draw = random.Random(seed)
    expected = {"test-%04d" % index: draw.choice(STATES) for index in range(cases)}
    protocol = {"protocol_version": "attack-1", "environment_id": "attack-env",
                "toolset_id": "attack-tools", "reset_policy": "fresh", "max_steps": 1,
                "timeout_seconds": 1, "retry_limit": 0, "trial_count": TRIALS}
    spec: JSONObject = {
        "schema_version": "agent-benchmark-spec-v1", "benchmark_id": "boosting-attack",
        "benchmark_version": "1.0.0", "claim": "A benchmark to attack.",
        "target_population": "Random binary answers.", "baseline_system_id": "baseline",
        "private_test_frozen": True, "primary_metric": "task_success_rate",
        "protocol": protocol,
        "gates": {"task_min_trial_success_rate": 0.5,
                  "critical_task_min_trial_success_rate": 0.5,
                  "min_primary_task_success_rate": 0, "min_final_state_trial_rate": 0,
                  "min_side_effect_free_trial_rate": 0, "min_trial_stability_rate": 0,
                  "max_slice_task_success_gap": 1, "max_mean_latency_ms": 1000000,
                  "max_p95_latency_ms": 1000000, "max_mean_cost_units": 1000000,
                  "min_paired_delta_ci_low": -1},
        "bootstrap": {"samples": BOOTSTRAP_SAMPLES, "seed": 1, "confidence": 0.95}}
    if near_threshold is not None:
        spec["gates"]["min_primary_task_success_rate"] = float(near_threshold)
    listed = [_case("train-0", "train", "family-train", "state-a"),
              _case("dev-0", "development", "family-dev", "state-a")]
    listed += [_case(case_id, "test", "family-" + case_id, state)
               for case_id, state in expected.items()]
    cases_file = {"schema_version": "agent-benchmark-cases-v1",
                  "benchmark_id": "boosting-attack", "benchmark_version": "1.0.0",
                  "dataset_version": "attack-%d" % seed, "cases": listed}
    baseline = {"schema_version": "agent-benchmark-results-v1",
                "benchmark_id": "boosting-attack", "benchmark_version": "1.0.0",
                "dataset_version": cases_file["dataset_version"], "result_set_version": "1",
                "systems": [_system("baseline", "baseline", protocol, expected),
                            _system("candidate", "candidate", protocol, expected)]}
    return spec, cases_file, baseline, expected


def _case(case_id: str, split: str, family: str, state: str) -> JSONObject:
    return {"id": case_id, "family_id": family, "split": split, "slice": "all",
            "critical": False, "task_type": "binary", "is_private": split == "test",
            "initial_state": "a choice", "expected_final_state": state,
            "allowed_tools": ["choose"], "forbidden_side_effects": ["harm"]}


def _system(system_id: str, role: str, protocol: JSONObject,
            answers: Dict[str, str]) -> JSONObject:
    return {"system_id": system_id, "role": role, "protocol": protocol, "records": [
        {"case_id": case_id, "trial_id": trial, "status": "success", "final_state": state,
         "side_effects": [], "tools_used": ["choose"], "latency_ms": 1, "cost_units": 0}
        for case_id, state in answers.items() for trial in range(1, TRIALS + 1)]}


def submission(protocol: JSONObject, versions: Tuple[str, str, str],
               answers: Dict[str, str]) -> bytes:
    return json.dumps({
        "schema_version": "agent-benchmark-results-v1", "benchmark_id": versions[0],
        "benchmark_version": versions[1], "dataset_version": versions[2],
        "result_set_version": "attack", "systems": [
            _system("attacker", "candidate", protocol, answers)]}).encode("utf-8")


def near_threshold(public_cases: int) -> str:
    """A decimal t with: k / n >= t exactly when k / n > 1/2 (n = ``public_cases``): PASS
    means the score is above one half."""
    above = Fraction(public_cases // 2 + 1, public_cases)
    half_way = (Fraction(public_cases // 2, public_cases) + above) / 2
    return "%.6f" % (math.ceil(half_way * 10 ** 6) / Fraction(10 ** 6))


class Attack:
    """One team's attack: its answers, what it kept, and what its answers said."""

    def __init__(self, label: str, level: str, near: bool, repetition: int, token: str) -> None:
        self.label = label
        self.level = level
        self.near = near
        self.repetition = repetition
        self.token = token
        self.team = "%s-%d" % (level + ("-near" if near else ""), repetition)
        self.kept = 0
        self.releases = 0
        self.final_answers: Dict[str, str] = {}
        self.failure: Optional[str] = None


def observed_above_half(answer: JSONObject, near: bool) -> Tuple[bool, bool]:
    """(whether the answer says this submission scored above 1/2, whether it released a
    score of its own)."""
    score = None
    own_verdict = True
    if "decision" in answer:
        score = answer["decision"]["candidate_metrics"]["primary_task_success_rate"]
    elif "rounded" in answer:
        score = answer["rounded"]["primary_task_success_rate"]
    elif "ladder" in answer:
        own_verdict = answer["ladder"]["new_score_released"]
        score = answer["ladder"]["score"] if own_verdict else None
    keep = (score is not None and Fraction(repr(score)) > TRUTH) or (
        near and own_verdict and answer["action"] == "PASS")
    return keep, score is not None and "ladder" in answer


def run_attack(attack: Attack, url: str, case_ids: List[str], submissions: int, seed: int,
               protocol: JSONObject, versions: Tuple[str, str, str]) -> None:
    """Make the team's submissions over HTTP (sequentially) and its final majority."""
    draw = random.Random(seed * 1000003 + attack.repetition)
    votes = {case_id: 0 for case_id in case_ids}
    for _ in range(submissions):
        answers = {case_id: draw.choice(STATES) for case_id in case_ids}
        reply = client.request(client.submissions_url(url), attack.token,
                               submission(protocol, versions, answers))
        if reply.status != 200:
            attack.failure = "HTTP %d: %s" % (reply.status, reply.document.get("detail"))
            return
        keep, released = observed_above_half(reply.document, attack.near)
        attack.releases += int(released)
        if keep:
            attack.kept += 1
            for case_id, state in answers.items():
                votes[case_id] += 1 if state == STATES[0] else -1
    tie = random.Random(seed * 7919 + attack.repetition)
    attack.final_answers = {case_id: STATES[0] if votes[case_id] > 0 else STATES[1]
                            if votes[case_id] < 0 else tie.choice(STATES)
                            for case_id in case_ids}
    reply = client.request(client.submissions_url(url), attack.token,
                           submission(protocol, versions, attack.final_answers))
    if reply.status != 200:
        attack.failure = "HTTP %d: %s" % (reply.status, reply.document.get("detail"))


def _mean_and_error(values: List[float]) -> Tuple[float, str]:
    """The mean and its Monte Carlo standard error (as `` +- E``; none for one value)."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, ""
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - 1)
    return mean, " +- %.3f" % math.sqrt(variance / len(values))


class Server:
    """One ``serve`` child on its own benchmark files and data folder (a phase open on it
    when the share is above 0); ``url`` None when it did not start."""

    def __init__(self, folder: str, name: str, spec: JSONObject, cases_value: JSONObject,
                 baseline: JSONObject) -> None:
        self.where = os.path.join(folder, name)
        os.makedirs(self.where)
        self.paths = write_files(self.where, spec, cases_value, baseline)
        self.data = os.path.join(self.where, "data")
        self.database = database.open_database(self.data)
        self.child: Optional[ServeChild] = None
        self.url = ""

    def start(self, python: str) -> Optional[str]:
        """Start the server; None when it runs, else why it did not."""
        self.child = ServeChild(python, self.paths, self.data,
                                os.path.join(self.where, "serve.log"))
        if self.child.port is None:
            return self.child.failure()
        self.url = "http://127.0.0.1:%d" % self.child.port
        return None

    def maintainer(self, python: str, command: List[str]) -> Optional[str]:
        return _maintainer(python, command, self.paths, self.data)

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()


def attack_benchmark(cases: int, submissions: int, repetitions: int, private_share: str,
                     seed: int, python: str, say: Callable[[str], None],
                     strategy: str = BOTH, pairs: int = DEFAULT_PAIRS) -> bool:
    """Run the attacks of ``strategy`` (the boosting attack at every level, the choice of a
    submission and its complement, or both) and ``say`` their tables; False when something
    failed."""
    started = time.perf_counter()
    folder = tempfile.mkdtemp(prefix="proagents-attack-bench-")
    servers: List[Server] = []
    try:
        share = Fraction(private_share)
        _spec, cases_file, _baseline, expected = make_benchmark(cases, seed, None)
        split_seed = ("%064x" % seed)
        private = (set(parts.split_test_cases(cases_file, bytes.fromhex(split_seed), share))
                   if share else set())
        public_ids = [case_id for case_id in expected if case_id not in private]
        threshold = near_threshold(len(public_ids))
        made = [0]

        def server(name: str, near: bool, choices: int) -> Server:
            spec, cases_value, baseline, _ = make_benchmark(
                cases, seed, threshold if near else None)
            started_server = Server(folder, name, spec, cases_value, baseline)
            servers.append(started_server)
            if share:
                done = started_server.maintainer(python, [
                    "phase", "open", "--name", PHASE_NAME, "--private-share", private_share,
                    "--seed", split_seed, "--choices", str(choices)])
                if done is not None:
                    raise _Failed(done)
            return started_server

        context = _Context(expected, public_ids, sorted(private), seed, python, say, made,
                           _spec["protocol"], (_spec["benchmark_id"],
                                               _spec["benchmark_version"],
                                               cases_file["dataset_version"]))
        if strategy in (BOTH, BOOSTING):
            _boosting(context, server, submissions, repetitions, bool(share), threshold)
        if strategy in (BOTH, COMPLEMENT):
            if not share:
                say("the choice attack needs a final board: a phase, --private-share above 0")
                if strategy == COMPLEMENT:
                    return False
            else:
                _choice_attack(context, server, pairs)
        say("time: %.0f s for %d submissions over HTTP (%s %s)" % (
            time.perf_counter() - started, made[0], os.path.basename(python), sys.platform))
        return True
    except _Failed as failure:
        say(str(failure))
        return False
    finally:
        for running in servers:
            running.stop()
        shutil.rmtree(folder, ignore_errors=True)


class _Failed(Exception):
    """A step of the benchmark that failed; the message says what it said."""


class _Context:
    """What every attack of one run shares: the expected states, the parts, the seed, the
    servers' interpreter, where to say the results and the count of submissions made."""

    def __init__(self, expected: Dict[str, str], public_ids: List[str], private_ids: List[str],
                 seed: int, python: str, say: Callable[[str], None], made: List[int],
                 protocol: JSONObject, versions: Tuple[str, str, str]) -> None:
        self.expected = expected
        self.public_ids = public_ids
        self.private_ids = private_ids
        self.seed = seed
        self.python = python
        self.say = say
        self.made = made
        self.protocol = protocol
        self.versions = versions


def _start_all(context: _Context, started: List[Server]) -> None:
    for running in started:
        problem = running.start(context.python)
        if problem is not None:
            raise _Failed(problem)


def _close_and_read(context: _Context, started: List[Server], split: bool) -> List[JSONObject]:
    """Close each server's phase (when there is one) and read its boards."""
    boards = []
    for running in started:
        if split:
            done = running.maintainer(context.python, ["phase", "close"])
            if done is not None:
                raise _Failed(done)
        boards.append(client.request(running.url + "/v1/leaderboard").document)
    return boards


def _boosting(context: _Context, server: Callable[[str, bool, int], Server],
              submissions: int, repetitions: int, split: bool, threshold: str) -> None:
    """The boosting attack at every level, on two servers (every gate passing; a gate near
    the team's score), the final choice the majority (one choice: its last)."""
    by_server: Dict[bool, List[Attack]] = {False: [], True: []}
    started: Dict[bool, Server] = {}
    for near in (False, True):
        started[near] = server("near" if near else "passing", near, 1)
        for label, level, needs_near in CONFIGURATIONS:
            if needs_near != near:
                continue
            for repetition in range(repetitions):
                attack = Attack(label, level, near, repetition, "")
                attack.token = teams.add(started[near].database, attack.team,
                                         UNSPENDABLE_BUDGET, level)
                by_server[near].append(attack)
    _start_all(context, [started[False], started[True]])

    def work(near: bool) -> None:
        for attack in by_server[near]:
            run_attack(attack, started[near].url, list(context.expected), submissions,
                       context.seed, context.protocol, context.versions)

    _in_threads(lambda index: work(bool(index)), 2)
    failed = [attack for near in by_server for attack in by_server[near] if attack.failure]
    if failed:
        raise _Failed("the attack failed: team %s: %s" % (failed[0].team, failed[0].failure))
    context.made[0] += (submissions + 1) * repetitions * len(CONFIGURATIONS)
    read = _close_and_read(context, [started[False], started[True]], split)
    _report(by_server, {False: read[0], True: read[1]}, context.expected, context.public_ids,
            context.private_ids, submissions, repetitions, split, threshold, context.say)


def _in_threads(work: Callable[[int], None], count: int) -> None:
    """``work(0)`` .. ``work(count - 1)`` at once, each in a thread of its own (one per
    server: the servers work side by side)."""
    threads = [threading.Thread(target=work, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def complement(answers: Dict[str, str]) -> Dict[str, str]:
    """The other state of every case: a submission that passes exactly the cases
    ``answers`` fails."""
    return {case_id: STATES[1] if state == STATES[0] else STATES[0]
            for case_id, state in answers.items()}


def complement_gain(cases: int) -> float:
    """The expected gain, in standard errors of one score, of choosing a random submission
    and its complement when the final score is the better of the two: over n private cases
    the two score K/n and 1 - K/n with K ~ Binomial(n, 1/2), so the gain is
    E[max(K, n - K)] / n - 1/2 (exact), over the standard error 1 / (2 sqrt(n)). It tends
    to E|Z| = sqrt(2 / pi) = 0.798 for a standard normal Z."""
    total = sum(math.comb(cases, k) * max(k, cases - k) for k in range(cases + 1))
    gain = Fraction(total, 2 ** cases * cases) - TRUTH
    return float(gain) * 2 * math.sqrt(cases)


def independent_gain(cases: int) -> float:
    """The same for two independent random submissions: E[max(K1, K2)] / n - 1/2 over the
    standard error (tends to 1 / sqrt(pi) = 0.564)."""
    below = Fraction(0)  # P(K <= k - 1), k from 1
    expected_max = Fraction(0)
    for k in range(1, cases + 1):
        below += Fraction(math.comb(cases, k - 1), 2 ** cases)
        expected_max += 1 - below * below  # P(max >= k)
    return float(expected_max / cases - TRUTH) * 2 * math.sqrt(cases)


class Pair:
    """One team of the choice attack: a random submission, its complement, its choice and
    the final board's score."""

    def __init__(self, team: str, token: str, answers: Dict[str, str]) -> None:
        self.team = team
        self.token = token
        self.answers = answers
        self.failure: Optional[str] = None


def _choice_attack(context: _Context, server: Callable[[str, bool, int], Server],
                   pairs: int) -> None:
    """A team with no feedback at all submits a random vector and its complement and
    chooses both for the final board (as many as the phase takes), on a server with the
    default number of final choices and on one with two. The same vectors on both."""
    choices_list = [phases.DEFAULT_CHOICES, 2] if phases.DEFAULT_CHOICES != 2 else [2]
    started = {choices: server("choices-%d" % choices, False, choices)
               for choices in choices_list}
    draw = random.Random(context.seed * 7001 + 17)
    vectors = [{case_id: draw.choice(STATES) for case_id in context.expected}
               for _ in range(pairs)]
    teams_of: Dict[int, List[Pair]] = {}
    for choices, running in started.items():
        teams_of[choices] = [Pair("pair-%d" % index, teams.add(
            running.database, "pair-%d" % index, UNSPENDABLE_BUDGET), vector)
            for index, vector in enumerate(vectors)]
    _start_all(context, list(started.values()))

    def work(index: int) -> None:
        choices = choices_list[index]
        running = started[choices]
        for pair in teams_of[choices]:
            ids = []
            for answers in (pair.answers, complement(pair.answers)):
                reply = client.request(client.submissions_url(running.url), pair.token,
                                       submission(context.protocol, context.versions,
                                                  answers))
                if reply.status != 200:
                    pair.failure = "HTTP %d: %s" % (reply.status, reply.document.get("detail"))
                    return
                ids.append(reply.document["submission_id"])
            reply = client.request(running.url + "/v1/final", pair.token, json.dumps(
                {"submission_ids": ids[:choices]}).encode("ascii"), method="PUT")
            if reply.status != 200:
                pair.failure = "HTTP %d: %s" % (reply.status, reply.document.get("detail"))
                return

    _in_threads(work, len(choices_list))
    failed = [pair for listed in teams_of.values() for pair in listed if pair.failure]
    if failed:
        raise _Failed("the choice attack failed: team %s: %s" % (failed[0].team,
                                                                 failed[0].failure))
    context.made[0] += 2 * pairs * len(choices_list)
    read = _close_and_read(context, [started[choices] for choices in choices_list], True)
    _report_choices(context, teams_of, dict(zip(choices_list, read)), choices_list)


def _report_choices(context: _Context, teams_of: Dict[int, List[Pair]],
                    boards: Dict[int, JSONObject], choices_list: List[int]) -> None:
    private = context.private_ids
    error = math.sqrt(0.25 / len(private))
    say = context.say
    say("")
    say("choice attack without feedback: %d teams, each a random submission and its "
        "complement, choosing as many as the phase takes; %d private cases, one score's "
        "standard error %.3f; truth %s" % (len(teams_of[choices_list[0]]), len(private), error,
                                           float(TRUTH)))
    say("")
    say("| strategy | final choices | final board | gain over the truth, in standard errors "
        "| exact |")
    say("|---|---|---|---|---|")
    honest = [_share(pair.answers, context.expected, private)
              for pair in teams_of[choices_list[0]]]
    mean, spread = _mean_and_error([(score - 0.5) / error for score in honest])
    say("| one random submission (the honest reference) | 1 | %.3f | %+.3f%s | 0 |" % (
        sum(honest) / len(honest), mean, spread))
    for choices in choices_list:
        final = _board_scores(boards[choices], "final")
        scores = [final.get(pair.team) for pair in teams_of[choices]]
        if any(score is None for score in scores):
            raise _Failed("the final board lacks a team of the choice attack")
        values = [float(cast("float", score)) for score in scores]
        mean, spread = _mean_and_error([(score - 0.5) / error for score in values])
        say("| a submission and its complement, %s | %d%s | %.3f | %+.3f%s | %s |" % (
            "both chosen" if choices > 1 else "the first chosen", choices,
            " (the default)" if choices == phases.DEFAULT_CHOICES else "",
            sum(values) / len(values), mean, spread,
            "0" if choices == 1 else "%.3f" % complement_gain(len(private))))
    say("(two independent random submissions, both chosen, would gain %.3f exactly)"
        % independent_gain(len(private)))


def _maintainer(python: str, command: List[str], paths: Dict[str, str],
                data: str) -> Optional[str]:
    """Run a maintainer's command as a child process (as a maintainer would, the service
    running); None when it succeeded, else what it said."""
    arguments = [python, "-B", os.path.join(PACKAGE_ROOT, "run_benchmark.py")] + command
    if command[0] == "phase":
        arguments += ["--spec", paths["spec"], "--cases", paths["cases"], "--baseline",
                      paths["baseline"]]
    completed = subprocess.run(arguments + ["--data", data], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if completed.returncode != 0:
        return "%s failed: %s" % (" ".join(command), completed.stderr.decode(
            "utf-8", "replace").strip())
    return None


def _board_scores(document: JSONObject, kind: str) -> Dict[str, Optional[float]]:
    for board in document["boards"]:
        if board["board"] == kind:
            return {entry["team"]: entry["score"] for entry in board["entries"]}
    return {}


def _share(answers: Dict[str, str], expected: Dict[str, str], ids: List[str]) -> float:
    return sum(answers[case_id] == expected[case_id] for case_id in ids) / len(ids)


def _score_cells(scores: Sequence[Optional[float]]) -> List[str]:
    """A board's mean score of the attacks and its distance from 0.5 (with their Monte Carlo
    errors), or "not released" when a team's score is not shown."""
    released = [score for score in scores if score is not None]
    if len(released) < len(scores):
        return ["not released", "-"]
    mean, error = _mean_and_error([float(score) for score in released])
    return ["%.3f" % mean, "%+.3f%s" % (mean - 0.5, error)]


def _report(by_server: Dict[bool, List[Attack]], boards: Dict[bool, JSONObject],
            expected: Dict[str, str], public_ids: List[str], private_ids: List[str],
            submissions: int, repetitions: int, split: bool, threshold: str,
            say: Callable[[str], None]) -> None:
    public_se = math.sqrt(0.25 / len(public_ids))
    say("boosting attack: %d test cases (%d public, %d private), %d random submissions and "
        "their majority per team, %d repetitions per level; truth %s" % (
            len(expected), len(public_ids), len(private_ids), submissions, repetitions,
            float(TRUTH)))
    say("one score's standard error sqrt(1/4/n): public part %.3f%s; the near gate: primary "
        "rate >= %s" % (public_se, ", private part %.3f" % math.sqrt(0.25 / len(private_ids))
                        if private_ids else "", threshold))
    say("")
    say("| level | public board | inflation | majority's hidden public score | final board "
        "| inflation | kept | Ladder releases |")
    say("|---|---|---|---|---|---|---|---|")
    for label, level, near in CONFIGURATIONS:
        attacks = [attack for attack in by_server[near] if attack.level == level]
        public = _board_scores(boards[near], "public" if split else "all")
        final = _board_scores(boards[near], "final")
        shown = [public.get(attack.team) for attack in attacks]
        hidden = [_share(attack.final_answers, expected, public_ids) for attack in attacks]
        steps = sorted({entry["rounding_step"] for board in boards[near]["boards"]
                        for entry in board["entries"] if entry["team"] in {
                            attack.team for attack in attacks} and entry["rounding_step"]})
        cells = [label + (" (step %s)" % ", ".join(steps) if steps else "")]
        cells += _score_cells(shown)
        mean, error = _mean_and_error(hidden)
        cells.append("%.3f%s" % (mean, error))
        if split:
            cells += _score_cells([final.get(attack.team) for attack in attacks])
        else:
            cells += ["no phase", "-"]
        cells.append("%.1f of %d" % (sum(attack.kept for attack in attacks) / len(attacks),
                                     submissions))
        cells.append("%.1f" % (sum(attack.releases for attack in attacks) / len(attacks))
                     if level == "ladder" else "-")
        say("| " + " | ".join(cells) + " |")
