"""The fixed-seed paired bootstrap over tasks.

The contract: d_i = candidate task pass (0/1) - baseline task pass (0/1) for every test task
i; the bootstrap resamples tasks (never trials) with replacement ``samples`` times and the
interval is the nearest-rank (1-c)/2 and 1-(1-c)/2 quantiles of the resampled means: the
ceil(p B)-th smallest of the B means (at least the first).

Randomness comes only from a private ``random.Random(seed)`` through ``getrandbits``, whose
stream is the same on every Python version and implementation (``randrange`` and ``choices``
are not promised to be). Means are exact fractions.

The algorithm is swappable: :data:`RESAMPLERS` maps a name to a function
``resample_sums(differences, samples, rng) -> list of B sums``; :func:`paired_interval` takes
the name.
"""

import random
from fractions import Fraction


def _below(rng, bound):
    """A uniform integer in [0, bound) by rejection on ``getrandbits`` (bound >= 1)."""
    bits = bound.bit_length()
    while True:
        value = rng.getrandbits(bits)
        if value < bound:
            return value


def index_resample_sums(differences, samples, rng):
    """Plain index resampling: B times, draw n task indexes uniformly with replacement.

    O(n B); the reference every faster resampler must agree with in distribution.
    """
    count = len(differences)
    sums = []
    for _ in range(samples):
        total = 0
        for _ in range(count):
            total += differences[_below(rng, count)]
        sums.append(total)
    return sums


RESAMPLERS = {"index": index_resample_sums}
DEFAULT_RESAMPLER = "index"


def nearest_rank_index(fraction, count):
    """Zero-based index of the ceil(fraction * count)-th smallest of ``count`` values."""
    rank = -((-fraction.numerator * count) // fraction.denominator)
    return max(rank, 1) - 1


class PairedInterval:
    """The bootstrap interval of the mean paired difference, as exact fractions."""

    def __init__(self, low, high, confidence, samples, seed):
        self.low = low
        self.high = high
        self.confidence = confidence
        self.samples = samples
        self.seed = seed


def paired_interval(differences, samples, seed, confidence, resampler=DEFAULT_RESAMPLER):
    """Bootstrap interval of mean(differences); ``confidence`` is exact (Decimal or Fraction)."""
    count = len(differences)
    rng = random.Random(seed)
    sums = sorted(RESAMPLERS[resampler](differences, samples, rng))
    tail = (1 - Fraction(confidence)) / 2
    low = Fraction(sums[nearest_rank_index(tail, samples)], count)
    high = Fraction(sums[nearest_rank_index(1 - tail, samples)], count)
    return PairedInterval(low, high, confidence, samples, seed)
