"""The choice attack on the final board, without any feedback (``bench attack --strategy
complement``, :mod:`.attack_bench`): each of ``--pairs`` teams submits a random vector and its
complement (every case's other state) and chooses both for the final board, as many as the
phase takes, on a server whose phase takes the default number of final choices and on one
whose phase takes two (the same vectors on both). A team's final row is its best chosen
submission, so with two choices its final score is max(K, n - K) / n for K ~ Binomial(n,
1/2) on the n private cases: a gain of E[max(K, n - K)] / n - 1/2 over the truth, about
sqrt(2 / pi) = 0.80 standard errors; with one choice the final score is one submission's,
chosen before the private part is scored, and the gain is 0. The table gives the measured
mean gain in standard errors, with its Monte Carlo error, beside the exact figure
(:func:`complement_gain`).
"""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from typing import Callable, Dict, List, Optional, cast

from proagents_bench.jsonio import JSONObject
from proagents_bench.service import client, phases, teams

from .attack_setup import (STATES, TRUTH, Context, Failed, Server, board_scores,
                           close_and_read, in_threads, mean_and_error, right_share, start_all,
                           submission)
from .service_bench import UNSPENDABLE_BUDGET


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


def choice_attack(context: Context, server: Callable[[str, bool, int], Server],
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
    start_all(context, list(started.values()))

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

    in_threads(work, len(choices_list))
    failed = [pair for listed in teams_of.values() for pair in listed if pair.failure]
    if failed:
        raise Failed("the choice attack failed: team %s: %s" % (failed[0].team,
                                                                 failed[0].failure))
    context.made[0] += 2 * pairs * len(choices_list)
    read = close_and_read(context, [started[choices] for choices in choices_list], True)
    _report_choices(context, teams_of, dict(zip(choices_list, read)), choices_list)


def _report_choices(context: Context, teams_of: Dict[int, List[Pair]],
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
    honest = [right_share(pair.answers, context.expected, private)
              for pair in teams_of[choices_list[0]]]
    mean, spread = mean_and_error([(score - 0.5) / error for score in honest])
    say("| one random submission (the honest reference) | 1 | %.3f | %+.3f%s | 0 |" % (
        sum(honest) / len(honest), mean, spread))
    for choices in choices_list:
        final = board_scores(boards[choices], "final")
        scores = [final.get(pair.team) for pair in teams_of[choices]]
        if any(score is None for score in scores):
            raise Failed("the final board lacks a team of the choice attack")
        values = [float(cast("float", score)) for score in scores]
        mean, spread = mean_and_error([(score - 0.5) / error for score in values])
        say("| a submission and its complement, %s | %d%s | %.3f | %+.3f%s | %s |" % (
            "both chosen" if choices > 1 else "the first chosen", choices,
            " (the default)" if choices == phases.DEFAULT_CHOICES else "",
            sum(values) / len(values), mean, spread,
            "0" if choices == 1 else "%.3f" % complement_gain(len(private))))
    say("(two independent random submissions, both chosen, would gain %.3f exactly)"
        % independent_gain(len(private)))


