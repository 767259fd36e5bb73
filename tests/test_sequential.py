"""The sequential design's exact statistics (proagents_bench/stats/sequential.py and the
modules beside it: discordant_paths, sequential_looks, sequential_fixed), held to computations that share none of its shortcuts: every path of up to 14 discordant units (and
every sequence of concordant and discordant units of a few looks) enumerated one by one, a
plain dictionary recursion in fractions for longer paths, McNemar's one-sided test from the
gate's own code. The guarantee is checked on a grid of designs, and shown to break when the
pass boundary is loosened by one win at any point."""

import doctest
import hashlib
import itertools
import os
import random
import subprocess
import sys
import unittest
from decimal import ROUND_DOWN, getcontext, localcontext
from fractions import Fraction as F
from math import ceil, comb

from proagents_bench.stats import discordant_paths, sequential, sequential_fixed, sequential_looks
from proagents_bench.stats.exact_tests import sign_test_p
from proagents_bench.stats.discordant_paths import HALF
from proagents_bench.stats.sequential import Boundary, Design
from proagents_bench.stats.sequential_looks import CONTINUE, FUTILITY, PASS
from tests.support import ROOT


def load_tests(loader, tests, pattern):
    """The module's docstring examples are tests too."""
    for module in (discordant_paths, sequential, sequential_fixed, sequential_looks):
        tests.addTests(doctest.DocTestSuite(module))
    return tests


# Small designs whose every path can be enumerated: theta0 = 1/2 (superiority) and
# theta0 = 2/5 (a non-inferiority margin), with and without futility stops.
SMALL = (
    Design(F(1, 40), F(1, 5), HALF, F(9, 10), 14),
    Design(F(1, 20), F(3, 10), HALF, F(17, 20), 12),
    Design(F(1, 10), F(1, 5), F(2, 5), F(4, 5), 14),
    Design(F(1, 10), F(1, 5), HALF, F(9, 10), 12, futility=False),
)
# The grid of the docs' tables: alpha 2.5% and 5%, effects +0.1, +0.2, +0.3 on the
# discordant scale, power 80%, the largest sample 1.5 times the fixed design's.
GRID = tuple(Design(alpha, F(1, 5), HALF, theta1, 0)
             for alpha in (F(1, 40), F(1, 20)) for theta1 in (F(3, 5), F(7, 10), F(4, 5)))


def sized(design, factor=F(3, 2)):
    """``design`` with its largest sample ``factor`` times the fixed design of its power."""
    fixed, _, _ = sequential_fixed.fixed_design(design.alpha, design.theta0, design.theta1,
                                          1 - design.beta)
    return design._replace(max_discordant=ceil(factor * fixed))


def enumerate_paths(boundary, theta, size=None):
    """Every path of ``size`` (default N) discordant units decided one by one: the chance
    of ever reaching the pass boundary (futility ignored), of passing and of stopping for
    futility (first crossing decides), the expected units to a decision, and for each n the
    chance of being undecided after n."""
    passing, futile = boundary.passing, boundary.futile
    size = len(passing) - 1 if size is None else size
    chance = [theta ** wins * (1 - theta) ** (size - wins) for wins in range(size + 1)]
    ever = passed = stopped = expected = F(0)
    undecided = [F(0)] * (size + 1)
    for path in itertools.product((0, 1), repeat=size):
        weight = chance[sum(path)]
        wins, crossed, decided = 0, False, None
        for n, outcome in enumerate(path, 1):
            wins += outcome
            crossed = crossed or wins >= passing[n]
            if decided is None:
                if wins >= passing[n]:
                    decided, passed = n, passed + weight
                elif wins <= futile[n]:
                    decided, stopped = n, stopped + weight
            if decided is None:
                undecided[n] += weight
        ever += weight if crossed else 0
        expected += weight * (decided if decided is not None else size)
    undecided[0] = F(1)
    return ever, passed, stopped, expected, undecided


def naive_law(boundary, theta):
    """P(pass), P(futility), E[units] by a plain recursion over {wins: chance} dictionaries,
    futility obeyed."""
    passing, futile = boundary.passing, boundary.futile
    alive = {0: F(1)}
    passed = stopped = expected = F(0)
    for n in range(1, len(passing)):
        expected += sum(alive.values())
        following = {}
        for wins, chance in alive.items():
            for step, weight in ((1, theta), (0, 1 - theta)):
                following[wins + step] = following.get(wins + step, F(0)) + chance * weight
        alive = {}
        for wins, chance in following.items():
            if wins >= passing[n]:
                passed += chance
            elif wins <= futile[n]:
                stopped += chance
            else:
                alive[wins] = chance
    return passed, stopped, expected


def closing_by_enumeration(boundary, size):
    """The least c with P(crossing before ``size``, or not and wins at ``size`` >= c) <=
    alpha under theta0, every path of ``size`` units enumerated."""
    design = boundary.design
    theta = design.theta0
    crossed_before = F(0)
    at = [F(0)] * (size + 1)  # P(not crossed before size, wins at size = s)
    for path in itertools.product((0, 1), repeat=size):
        weight = theta ** sum(path) * (1 - theta) ** (size - sum(path))
        wins, crossed = 0, False
        for n, outcome in enumerate(path, 1):
            wins += outcome
            if n < size and wins >= boundary.passing[n]:
                crossed = True
        if crossed:
            crossed_before += weight
        else:
            at[wins] += weight
    for threshold in range(size + 2):
        if crossed_before + sum(at[threshold:]) <= design.alpha:
            return threshold
    raise AssertionError("the whole tail cannot exceed alpha")


class SmallDesignTests(unittest.TestCase):
    """Every path enumerated: the dynamic programmes must agree exactly."""

    def test_the_programmes_equal_every_path_enumerated(self):
        for design in SMALL:
            boundary = sequential.design_boundary(design)
            for theta in (design.theta0, design.theta1, F(1, 3), F(13, 20)):
                with self.subTest(design=design, theta=theta):
                    ever, passed, stopped, expected, undecided = enumerate_paths(boundary,
                                                                                 theta)
                    law = discordant_paths.crossings(boundary, theta)
                    self.assertEqual(discordant_paths.ever_crossing(boundary.passing, theta), ever)
                    self.assertEqual(law.pass_probability(), passed)
                    self.assertEqual(law.futility_probability(), stopped)
                    self.assertEqual(law.expected_discordant(), expected)
                    self.assertEqual([F(law.undecided[n], law.base ** n)
                                      for n in range(len(undecided))], undecided)
                    self.assertEqual(passed + stopped, 1)  # the boundaries meet at N

    def test_arbitrary_boundaries_equal_every_path_enumerated(self):
        # Boundaries no design would make (falling, jumping, empty), to reach every branch.
        draw = random.Random(30)
        for trial in range(40):
            size = draw.randint(1, 11)
            passing = [1] + [draw.randint(0, n + 1) for n in range(1, size + 1)]
            futile = [-1] + [draw.randint(-1, passing[n] - 1) for n in range(1, size + 1)]
            futile[size] = passing[size] - 1
            design = Design(F(1, 4), F(1, 4), HALF, F(3, 4), size)
            boundary = Boundary(design, tuple(passing), tuple(futile))
            for theta in (HALF, F(2, 7)):
                with self.subTest(trial=trial, theta=theta, passing=passing, futile=futile):
                    ever, passed, stopped, expected, _ = enumerate_paths(boundary, theta)
                    law = discordant_paths.crossings(boundary, theta)
                    self.assertEqual(discordant_paths.ever_crossing(passing, theta), ever)
                    self.assertEqual((law.pass_probability(), law.futility_probability(),
                                      law.expected_discordant()), (passed, stopped, expected))

    def test_closing_thresholds_equal_every_path_enumerated(self):
        for design in SMALL[:3]:
            boundary = sequential.design_boundary(design)
            closing = sequential_looks.closing_boundaries(boundary)
            for size in range(1, design.max_discordant + 1):
                with self.subTest(design=design, n=size):
                    self.assertEqual(closing[size], closing_by_enumeration(boundary, size))
                    self.assertLessEqual(closing[size], boundary.passing[size])
            self.assertEqual(closing[-1], boundary.passing[-1])  # nothing is left to spend

    def test_closing_weights_equal_every_path_enumerated(self):
        design = SMALL[0]
        boundary = sequential.design_boundary(design)
        closing = sequential_looks.closing_boundaries(boundary)
        law = discordant_paths.crossings(boundary, design.theta1, closing)
        theta = design.theta1
        for size in range(1, design.max_discordant):
            reached = F(0)
            for path in itertools.product((0, 1), repeat=size):
                wins, decided = 0, False
                for n, outcome in enumerate(path, 1):
                    wins += outcome
                    decided = decided or wins >= boundary.passing[n] or \
                        wins <= boundary.futile[n]
                if not decided and wins >= closing[size]:
                    reached += theta ** wins * (1 - theta) ** (size - wins)
            self.assertEqual(F(law.closed[size], law.base ** size), reached, size)


class GuaranteeTests(unittest.TestCase):
    """The false pass over the whole design is at most alpha, and only just."""

    def test_the_false_pass_is_at_most_alpha_on_the_grid(self):
        for design in GRID + tuple(SMALL):
            design = sized(design) if design.max_discordant == 0 else design
            with self.subTest(design=design):
                boundary = sequential.design_boundary(design)
                false_pass = sequential.check_boundary(boundary)
                self.assertLessEqual(false_pass, design.alpha)
                self.assertEqual(false_pass, discordant_paths.ever_crossing(boundary.passing,
                                                                      design.theta0))
                obeyed = discordant_paths.crossings(boundary, design.theta0).pass_probability()
                self.assertLessEqual(obeyed, false_pass)
                power = discordant_paths.crossings(boundary, design.theta1).pass_probability()
                self.assertGreaterEqual(power, 1 - design.beta)

    def test_loosening_the_pass_boundary_anywhere_breaks_the_guarantee(self):
        # The boundary is maximal: one win fewer at any single point lets the false pass
        # exceed alpha, and the check a gate runs refuses the loosened boundary.
        for design in (sized(GRID[1]), Design(F(1, 20), F(1, 5), F(2, 5), F(4, 5), 40),
                       SMALL[0]):
            boundary = sequential.design_boundary(design)
            for n in range(1, design.max_discordant + 1):
                if boundary.passing[n] == 1:
                    continue  # a pass needs a win
                with self.subTest(design=design, n=n):
                    loosened = list(boundary.passing)
                    loosened[n] -= 1
                    self.assertGreater(discordant_paths.ever_crossing(loosened, design.theta0),
                                       design.alpha)
                    futile = list(boundary.futile)
                    futile[n] = min(futile[n], loosened[n] - 1)
                    with self.assertRaisesRegex(ValueError, "exceeds alpha"):
                        sequential.check_boundary(Boundary(design, tuple(loosened),
                                                           tuple(futile)))

    def test_the_null_is_worst_at_theta0(self):
        # A candidate worse than the baseline crosses less often: the guarantee covers the
        # whole null theta <= theta0.
        for design in SMALL[:3]:
            boundary = sequential.design_boundary(design)
            at_null = discordant_paths.ever_crossing(boundary.passing, design.theta0)
            for theta in (design.theta0 - F(1, 10), design.theta0 / 2):
                self.assertLess(discordant_paths.ever_crossing(boundary.passing, theta), at_null)

    def test_every_pass_point_is_a_pass_of_mcnemars_test(self):
        # P(S_n >= a_n) <= P(ever crossing) <= alpha, so the fixed gate's small-sample rule
        # (McNemar's exact one-sided test, the gate's own code) holds wherever the design
        # passes.
        for design in (sized(GRID[0]), sized(GRID[5]), SMALL[0], SMALL[1]):
            boundary = sequential.design_boundary(design)
            for n in range(1, design.max_discordant + 1):
                wins = boundary.passing[n]
                if wins <= n:
                    self.assertLessEqual(sign_test_p(wins, n - wins), design.alpha, n)

    def test_the_closing_look_keeps_the_guarantee(self):
        # A last look at n < N units passing at the closing threshold: the false pass, every
        # path enumerated, stays within alpha, and one win fewer would exceed it.
        for design, sizes in ((SMALL[0], (6, 9, 12)), (SMALL[2], (3, 5, 8, 12))):
            boundary = sequential.design_boundary(design)
            closing = sequential_looks.closing_boundaries(boundary)
            theta = design.theta0
            for size in sizes:
                total = looser = F(0)
                for path in itertools.product((0, 1), repeat=size):
                    wins = sum(path)
                    weight = theta ** wins * (1 - theta) ** (size - wins)
                    state = sequential_looks.path_state(boundary, path, final=True, closing=closing)
                    total += weight if state.state == PASS else 0
                    crossed = any(sum(path[:n]) >= boundary.passing[n] for n in range(1, size))
                    looser += weight if crossed or wins >= closing[size] - 1 else 0
                with self.subTest(design=design, n=size):
                    self.assertLessEqual(total, design.alpha)
                    self.assertGreater(looser, design.alpha)


class CharacteristicsTests(unittest.TestCase):
    """Power and expected sample against a plain recursion; the fixed design; the saving."""

    def test_power_and_expected_sample_equal_a_plain_recursion(self):
        for design in (sized(GRID[2]), sized(GRID[4], F(2))):
            boundary = sequential.design_boundary(design)
            for theta in (design.theta0, design.theta1, F(13, 20)):
                with self.subTest(design=design, theta=theta):
                    law = discordant_paths.crossings(boundary, theta)
                    self.assertEqual((law.pass_probability(), law.futility_probability(),
                                      law.expected_discordant()), naive_law(boundary, theta))

    def test_the_fixed_design_is_the_least_of_its_power(self):
        for alpha, theta1, power in ((F(1, 40), F(4, 5), F(4, 5)), (F(1, 20), F(7, 10),
                                                                     F(9, 10))):
            size, critical, reached = sequential_fixed.fixed_design(alpha, HALF, theta1, power)

            def power_of(n):
                c = sequential_fixed.critical_value(n, alpha)
                return sum((F(comb(n, s)) * theta1 ** s * (1 - theta1) ** (n - s)
                            for s in range(c, n + 1)), F(0))
            self.assertEqual(reached, power_of(size))
            self.assertGreaterEqual(reached, power)
            self.assertTrue(all(power_of(n) < power for n in range(1, size)))
            # The critical value is McNemar's one-sided test at alpha, as the gate computes it.
            self.assertLessEqual(sign_test_p(critical, size - critical), alpha)
            self.assertGreater(sign_test_p(critical - 1, size - critical + 1), alpha)

    def test_the_expected_sample_at_the_planned_effect_is_at_most_70_percent(self):
        # The bar: at the effect planned for, the expected discordant units to a
        # decision are at most 70% of the fixed design with the same power (figures in
        # docs' tables), and the worst case is the design's largest sample.
        for design in GRID:
            design = sized(design)
            with self.subTest(design=design):
                figures = sequential_fixed.characteristics(sequential.design_boundary(design),
                                                     grid=())
                self.assertLessEqual(figures.expected_alternative,
                                     F(7, 10) * figures.fixed_size)
                self.assertLess(figures.expected_null, figures.expected_alternative)
                self.assertLessEqual(figures.largest_expected, figures.max_discordant)
                self.assertGreaterEqual(figures.fixed_power, figures.power)

    def test_the_largest_expected_sample_is_sought_over_the_grid(self):
        design = SMALL[0]
        boundary = sequential.design_boundary(design)
        grid = [F(k, 20) for k in range(1, 20)]
        figures = sequential_fixed.characteristics(boundary, grid)
        every = {theta: discordant_paths.crossings(boundary, theta).expected_discordant()
                 for theta in grid + [design.theta0, design.theta1]}
        self.assertEqual(figures.largest_expected, max(every.values()))
        self.assertEqual(every[figures.largest_expected_at], figures.largest_expected)

    def test_repeated_looks_at_a_fixed_rule_equal_every_path_enumerated(self):
        alpha = F(1, 20)
        for sizes in ([12], [6, 12], [5, 8, 10, 12], [7, 9, 11]):
            last = sizes[-1]
            expected = F(0)
            for path in itertools.product((0, 1), repeat=last):
                if any(sign_test_p(sum(path[:n]), n - sum(path[:n])) <= alpha
                       for n in sizes):
                    expected += F(1, 2 ** last)
            with self.subTest(sizes=sizes):
                self.assertEqual(sequential_fixed.repeated_look_false_pass(sizes, alpha), expected)
        one = sequential_fixed.repeated_look_false_pass([100], F(1, 40))
        five = sequential_fixed.repeated_look_false_pass([20, 40, 60, 80, 100], F(1, 40))
        self.assertLessEqual(one, F(1, 40))
        self.assertGreater(five, 2 * one)  # looking five times doubles it and more


class LooksTests(unittest.TestCase):
    """Units run in batches: every sequence of concordant units, wins and losses counted."""

    def test_pass_chance_and_units_run_equal_every_sequence_enumerated(self):
        # A design whose closing thresholds lie below its pass thresholds at 3, 5 and 8
        # units (so the last look's closing decides some paths).
        design = SMALL[2]
        boundary = sequential.design_boundary(design)
        closing = sequential_looks.closing_boundaries(boundary)
        self.assertLess(closing[8], boundary.passing[8])
        looks = [3, 6, 9]
        for rate, theta in ((F(1, 2), design.theta1), (F(2, 3), design.theta0)):
            chances = {None: 1 - rate, 1: rate * theta, 0: rate * (1 - theta)}
            passed = expected = F(0)
            for units in itertools.product((None, 1, 0), repeat=looks[-1]):
                weight = F(1)
                for unit in units:
                    weight *= chances[unit]
                run = looks[-1]
                outcome = None
                for number, end in enumerate(looks):
                    path = [unit for unit in units[:end] if unit is not None]
                    state = sequential_looks.path_state(boundary, path,
                                                  final=number == len(looks) - 1,
                                                  closing=closing)
                    if state.state != CONTINUE:
                        run, outcome = end, state.state
                        break
                passed += weight if outcome == PASS else 0
                expected += weight * run
            with self.subTest(rate=rate, theta=theta):
                self.assertEqual(sequential_looks.looks_characteristics(boundary, looks, rate, theta),
                                 (passed, expected))

    def test_the_fixed_design_in_units_is_the_least_of_its_power(self):
        alpha, theta1, power, rate = F(1, 20), F(9, 10), F(4, 5), F(1, 2)
        units, screened = sequential_fixed.fixed_units(alpha, HALF, theta1, power, rate)

        def mixed(count):
            total = F(0)
            for discordant in range(count + 1):
                c = sequential_fixed.critical_value(discordant, alpha)
                reach = sum((F(comb(discordant, s)) * theta1 ** s *
                             (1 - theta1) ** (discordant - s)
                             for s in range(c, discordant + 1)), F(0))
                total += F(comb(count, discordant)) * rate ** count * reach
            return total
        self.assertGreaterEqual(mixed(units), power)
        self.assertTrue(all(mixed(count) < power for count in range(units)))
        self.assertAlmostEqual(screened, float(mixed(units)), places=12)
        # Deciding every candidate exactly (a margin no double falls inside) agrees.
        exact_units, exact = sequential_fixed.fixed_units(alpha, HALF, theta1, power, rate,
                                                    margin=2.0)
        self.assertEqual((exact_units, exact), (units, float(mixed(units))))


class PathTests(unittest.TestCase):
    """Where a path stands at a look."""

    def setUp(self):
        self.design = SMALL[0]
        self.boundary = sequential.design_boundary(self.design)

    def test_the_first_boundary_crossed_decides(self):
        passing, futile = self.boundary.passing, self.boundary.futile
        first_pass = next(n for n in range(1, 15) if passing[n] <= n)
        state = sequential_looks.path_state(self.boundary, [1] * 14)
        self.assertEqual((state.state, state.decided_at, state.wins),
                         (PASS, first_pass, first_pass))
        first_stop = next(n for n in range(1, 15) if futile[n] >= 0)
        state = sequential_looks.path_state(self.boundary, [0] * first_stop + [1] * 14)
        self.assertEqual((state.state, state.decided_at, state.wins), (FUTILITY, first_stop, 0))

    def test_an_undecided_path_continues_and_its_last_look_closes_it(self):
        closing = sequential_looks.closing_boundaries(self.boundary)
        for path in itertools.product((0, 1), repeat=8):
            state = sequential_looks.path_state(self.boundary, path)
            if state.state != CONTINUE:
                continue
            self.assertEqual((state.decided_at, state.discordant, state.wins),
                             (None, 8, sum(path)))
            final = sequential_looks.path_state(self.boundary, path, final=True)
            self.assertEqual(final.state, PASS if sum(path) >= closing[8] else FUTILITY)
            self.assertEqual(final.pass_at, closing[8])

    def test_units_after_the_largest_sample_are_never_read(self):
        size = self.design.max_discordant
        last = next(path for path in itertools.product((0, 1), repeat=size)
                    if sequential_looks.path_state(self.boundary, path).decided_at == size)
        state = sequential_looks.path_state(self.boundary, list(last) + [7, 7])  # never read
        self.assertEqual(state.decided_at, size)
        self.assertNotEqual(state.state, CONTINUE)  # the boundaries meet at N
        # Even where they do not (a boundary made by hand), the path stops at N.
        open_end = self.boundary._replace(futile=self.boundary.futile[:-1] + (-1,))
        undecided = next(path for path in itertools.product((0, 1), repeat=size)
                         if sequential_looks.path_state(open_end, path).state == CONTINUE)
        state = sequential_looks.path_state(open_end, list(undecided) + [7])
        self.assertEqual((state.state, state.discordant), (CONTINUE, size))
        with self.assertRaisesRegex(ValueError, "0 or 1"):
            sequential_looks.path_state(self.boundary, [1, 2])


class DesignTests(unittest.TestCase):
    def test_a_design_is_refused_with_the_reason(self):
        good = SMALL[0]
        for change, words in (
                ({"alpha": 0.025}, "alpha must be an exact number"),
                ({"alpha": F(1, 2)}, "alpha must lie"),
                ({"beta": F(0)}, "beta must lie"),
                ({"theta1": HALF}, "theta0 < theta1"),
                ({"theta0": F(0)}, "theta0 < theta1"),
                ({"max_discordant": 0}, "max_discordant"),
                ({"max_discordant": True}, "max_discordant"),
                ({"max_discordant": sequential.MAX_DISCORDANT + 1}, "max_discordant"),
                ({"futility": 1}, "futility")):
            with self.subTest(change=change):
                with self.assertRaisesRegex(ValueError, words):
                    sequential.design_boundary(good._replace(**change))

    def test_a_sample_too_small_for_the_power_is_refused(self):
        with self.assertRaisesRegex(ValueError, r"cannot reach power 4/5 .* raise "
                                                r"max_discordant"):
            sequential.design_boundary(Design(F(1, 40), F(1, 5), HALF, F(7, 10), 40))

    def test_a_malformed_boundary_is_refused(self):
        boundary = sequential.design_boundary(SMALL[0])
        for passing, futile, words in (
                (boundary.passing[:-1], boundary.futile, "N \\+ 1"),
                (boundary.passing, boundary.futile[:-1] + (-1,), "meet"),
                (boundary.passing[:3] + (9,) + boundary.passing[4:], boundary.futile,
                 "out of range")):
            with self.subTest(words=words):
                with self.assertRaisesRegex(ValueError, words):
                    sequential.check_boundary(Boundary(SMALL[0], passing, futile))


class DeterminismTests(unittest.TestCase):
    def test_the_callers_decimal_context_changes_nothing(self):
        design = sized(GRID[4])
        plain = sequential.design_boundary(design)
        with localcontext() as context:
            context.prec, context.rounding = 6, ROUND_DOWN
            self.assertEqual(getcontext().prec, 6)
            self.assertEqual(sequential.design_boundary(design), plain)
        self.assertEqual(sequential.design_boundary(design), plain)

    def test_the_same_boundary_under_any_hash_seed(self):
        code = ("from fractions import Fraction as F; from proagents_bench.stats import "
                "sequential as s; b = s.design_boundary(s.Design(F(1, 20), F(1, 5), "
                "F(1, 2), F(7, 10), 56)); print(b.passing, b.futile)")
        outputs = set()
        for seed in ("0", "4242"):
            environment = dict(os.environ, PYTHONHASHSEED=seed)
            completed = subprocess.run([sys.executable, "-B", "-c", code], cwd=ROOT,
                                       env=environment, stdout=subprocess.PIPE, check=True)
            outputs.add(hashlib.sha256(completed.stdout).hexdigest())
        self.assertEqual(len(outputs), 1)
        boundary = sequential.design_boundary(Design(F(1, 20), F(1, 5), HALF, F(7, 10), 56))
        expected = ("%s %s\n" % (boundary.passing, boundary.futile)).encode("ascii")
        self.assertEqual(outputs, {hashlib.sha256(expected).hexdigest()})


if __name__ == "__main__":
    unittest.main()
