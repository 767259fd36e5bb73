"""pass^k and pass@k: how a task's k trials fare together, exactly.

Pure functions on (passing trials, trials) pairs; every value is a :class:`fractions.Fraction`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Dict, Iterable, Sequence, Tuple

# {(passing, trials): how many tasks}, and the number of tasks.
Tally = Tuple[Dict[Tuple[int, int], int], int]


def _check_task(passing: int, trials: int, k: int) -> None:
    for name, number in (("passing", passing), ("trials", trials), ("k", k)):
        if isinstance(number, bool) or not isinstance(number, int):
            raise TypeError("%s must be an int" % name)
    if not 0 <= passing <= trials:
        raise ValueError("passing must lie in 0..trials")
    if not 1 <= k <= trials:
        raise ValueError("k must lie in 1..trials")


def pass_hat_k(passing: int, trials: int, k: int) -> Fraction:
    """pass^k of one task: C(c, k) / C(n, k), c passing trials of n.

    The unbiased estimate of the chance that k trials drawn without replacement all pass
    (Yao et al. 2024, "tau-bench", section 5.1). C(c, k) = 0 when k > c.

    A task that passed 2 of 3 trials: pass^1 is its success rate, pass^2 one pair in three,
    pass^3 nothing:

    >>> pass_hat_k(2, 3, 1), pass_hat_k(2, 3, 2), pass_hat_k(2, 3, 3)
    (Fraction(2, 3), Fraction(1, 3), Fraction(0, 1))
    """
    _check_task(passing, trials, k)
    return Fraction(math.comb(passing, k), math.comb(trials, k))


def pass_at_k(passing: int, trials: int, k: int) -> Fraction:
    """pass@k of one task: 1 - C(n - c, k) / C(n, k).

    The unbiased estimate of the chance that at least one of k trials passes (Chen et al.
    2021, "Evaluating Large Language Models Trained on Code", equation 1).

    >>> pass_at_k(1, 3, 1), pass_at_k(1, 3, 2)
    (Fraction(1, 3), Fraction(2, 3))
    """
    _check_task(passing, trials, k)
    return 1 - Fraction(math.comb(trials - passing, k), math.comb(trials, k))


def _tally(pairs: Sequence[Tuple[int, int]]) -> Tally:
    """{(passing, trials): how many tasks} and the number of tasks.

    Tasks with equal counts have equal pass^k and pass@k, so a mean over ten thousand tasks
    costs one exact term per distinct pair (at most trial_count + 1 of them per system), and
    it is the same Fraction as the sum over tasks. Pairs of any type but int are checked one
    by one, so that a Boolean is refused as before even where it equals an int key.
    """
    tally: Dict[Tuple[int, int], int] = {}
    kinds = set()
    for passing, trials in pairs:
        kinds.add(type(passing))
        kinds.add(type(trials))
        key = (passing, trials)
        tally[key] = tally.get(key, 0) + 1
    if kinds - {int}:
        for passing, trials in pairs:
            _check_task(passing, trials, 1)
    return tally, sum(tally.values())


def _mean_over_tasks(per_task: Callable[[int, int, int], Fraction], tallied: Tally,
                     k: int) -> Fraction:
    tally, count = tallied
    if not count:
        raise ValueError("no tasks")
    return sum((per_task(passing, trials, k) * times
                for (passing, trials), times in tally.items()), Fraction(0)) / count


def mean_pass_hat_k(pairs: Iterable[Tuple[int, int]], k: int) -> Fraction:
    """The mean of :func:`pass_hat_k` over tasks given as (passing, trials) pairs."""
    return _mean_over_tasks(pass_hat_k, _tally(list(pairs)), k)


def mean_pass_at_k(pairs: Iterable[Tuple[int, int]], k: int) -> Fraction:
    """The mean of :func:`pass_at_k` over tasks given as (passing, trials) pairs."""
    return _mean_over_tasks(pass_at_k, _tally(list(pairs)), k)


def pass_k_table(pairs: Iterable[Tuple[int, int]],
                 trial_count: int) -> Dict[str, Dict[str, Fraction]]:
    """{"pass_hat_k": {"1": ..., ...}, "pass_at_k": {...}} for k = 1..trial_count.

    Keys are strings so that the table serialises as JSON; values are Fractions. At k = 1
    both equal the mean trial success rate.
    """
    if isinstance(trial_count, bool) or not isinstance(trial_count, int) or trial_count < 1:
        raise ValueError("trial_count must be an int >= 1")
    tally = _tally(list(pairs))
    keys = [str(k) for k in range(1, trial_count + 1)]
    return {
        "pass_hat_k": {key: _mean_over_tasks(pass_hat_k, tally, int(key)) for key in keys},
        "pass_at_k": {key: _mean_over_tasks(pass_at_k, tally, int(key)) for key in keys},
    }
