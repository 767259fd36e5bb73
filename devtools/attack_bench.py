"""The boosting attack against the private-test service: ``python -B -m devtools bench attack``.

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

The choice attack (``--strategy complement``, :mod:`.attack_choice`) needs no feedback at
all; ``--strategy both`` (the default) runs both, on the same package.
"""

from __future__ import annotations

import math
import os
import random
import shutil
import sys
import tempfile
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple

from proagents_bench.jsonio import JSONObject
from proagents_bench.service import client, parts, teams

from .attack_choice import choice_attack
from .attack_setup import (PHASE_NAME, STATES, TRUTH, Context, Failed, Server, board_scores,
                           close_and_read, in_threads, make_benchmark, mean_and_error,
                           right_share, start_all, submission)
from .service_bench import UNSPENDABLE_BUDGET

if TYPE_CHECKING:  # for annotations only
    import argparse

BOTH = "both"
BOOSTING = "boosting"
COMPLEMENT = "complement"
STRATEGIES = (BOTH, BOOSTING, COMPLEMENT)
DEFAULT_PAIRS = 200
# (label, level, whether the server's spec has a gate near the team's score)
CONFIGURATIONS = (
    ("full", "full", False),
    ("rounded", "rounded", False),
    ("ladder, every gate passing", "ladder", False),
    ("ladder, a gate near the team's score", "ladder", True),
    ("verdict, a gate near the team's score", "verdict", True),
)


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



def attack_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """Run the attacks of ``options.strategy`` (the boosting attack at every level, the choice
    of a submission and its complement, or both; cases, submissions, repetitions,
    private_share, seed, python, pairs: the command line's ``bench attack``) and ``say`` their
    tables; False when something failed."""
    cases, seed, python, strategy = options.cases, options.seed, options.python, options.strategy
    private_share = options.private_share
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
                    raise Failed(done)
            return started_server

        context = Context(expected, public_ids, sorted(private), seed, python, say, made,
                           _spec["protocol"], (_spec["benchmark_id"],
                                               _spec["benchmark_version"],
                                               cases_file["dataset_version"]))
        if strategy in (BOTH, BOOSTING):
            _boosting(context, server, options.submissions, options.repetitions, bool(share),
                      threshold)
        if strategy in (BOTH, COMPLEMENT):
            if not share:
                say("the choice attack needs a final board: a phase, --private-share above 0")
                if strategy == COMPLEMENT:
                    return False
            else:
                choice_attack(context, server, options.pairs)
        say("time: %.0f s for %d submissions over HTTP (%s %s)" % (
            time.perf_counter() - started, made[0], os.path.basename(python), sys.platform))
        return True
    except Failed as failure:
        say(str(failure))
        return False
    finally:
        for running in servers:
            running.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _boosting(context: Context, server: Callable[[str, bool, int], Server],
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
    start_all(context, [started[False], started[True]])

    def work(near: bool) -> None:
        for attack in by_server[near]:
            run_attack(attack, started[near].url, list(context.expected), submissions,
                       context.seed, context.protocol, context.versions)

    in_threads(lambda index: work(bool(index)), 2)
    failed = [attack for near in by_server for attack in by_server[near] if attack.failure]
    if failed:
        raise Failed("the attack failed: team %s: %s" % (failed[0].team, failed[0].failure))
    context.made[0] += (submissions + 1) * repetitions * len(CONFIGURATIONS)
    read = close_and_read(context, [started[False], started[True]], split)
    _report(by_server, {False: read[0], True: read[1]}, context.expected, context.public_ids,
            context.private_ids, submissions, repetitions, split, threshold, context.say)



def _score_cells(scores: Sequence[Optional[float]]) -> List[str]:
    """A board's mean score of the attacks and its distance from 0.5 (with their Monte Carlo
    errors), or "not released" when a team's score is not shown."""
    released = [score for score in scores if score is not None]
    if len(released) < len(scores):
        return ["not released", "-"]
    mean, error = mean_and_error([float(score) for score in released])
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
        public = board_scores(boards[near], "public" if split else "all")
        final = board_scores(boards[near], "final")
        shown = [public.get(attack.team) for attack in attacks]
        hidden = [right_share(attack.final_answers, expected, public_ids) for attack in attacks]
        steps = sorted({entry["rounding_step"] for board in boards[near]["boards"]
                        for entry in board["entries"] if entry["team"] in {
                            attack.team for attack in attacks} and entry["rounding_step"]})
        cells = [label + (" (step %s)" % ", ".join(steps) if steps else "")]
        cells += _score_cells(shown)
        mean, error = mean_and_error(hidden)
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

