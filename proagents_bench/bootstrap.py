"""The fixed-seed paired bootstrap, over tasks or over families.

The contract: d_i = candidate task pass (0/1) - baseline task pass (0/1) for every test task
i; the bootstrap resamples tasks (never trials) with replacement ``samples`` times and the
interval is the nearest-rank (1-c)/2 and 1-(1-c)/2 quantiles of the resampled means: the
ceil(p B)-th smallest of the B means (at least the first).

Spec v2 may resample whole families instead (``bootstrap.unit = "family"``): each sample draws
G families with replacement, G being the number of test families, and its mean is the sum of
the drawn families' task differences over the number of tasks drawn. The resampled units are
*clusters* of (sum of differences, task count); resampling tasks is the special case where
every cluster is one task. So when every test family has one task, the family bootstrap makes
exactly the same draws from the same stream as the task bootstrap and gives the same interval;
when families hold several tasks, the draws keep a family's correlated tasks together and the
interval is (usually) wider.

Randomness comes only from a private ``random.Random(seed)`` through ``getrandbits``, whose
stream is the same on every Python version and implementation (``randrange`` and ``choices``
are not promised to be). Means are exact fractions.

The algorithm is swappable: :data:`RESAMPLERS` maps a name to a function
``resample(clusters, samples, rng) -> list of B means (Fractions)``.
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


def index_resample(clusters, samples, rng):
    """Plain index resampling: B times, draw G cluster indexes uniformly with replacement.

    O(G B); the reference every faster resampler must agree with in distribution.
    """
    count = len(clusters)
    means = []
    for _ in range(samples):
        total = size = 0
        for _ in range(count):
            cluster_sum, cluster_size = clusters[_below(rng, count)]
            total += cluster_sum
            size += cluster_size
        means.append(Fraction(total, size))
    return means


RESAMPLERS = {"index": index_resample}
DEFAULT_RESAMPLER = "index"


def task_clusters(differences):
    """Every task its own cluster."""
    return [(difference, 1) for difference in differences]


def family_clusters(differences, families):
    """One cluster per family (first appearance order): (sum of differences, task count)."""
    position = {}
    clusters = []
    for difference, family in zip(differences, families):
        index = position.get(family)
        if index is None:
            position[family] = len(clusters)
            clusters.append([difference, 1])
        else:
            clusters[index][0] += difference
            clusters[index][1] += 1
    return [tuple(cluster) for cluster in clusters]


def nearest_rank_index(fraction, count):
    """Zero-based index of the ceil(fraction * count)-th smallest of ``count`` values."""
    rank = -((-fraction.numerator * count) // fraction.denominator)
    return max(rank, 1) - 1


class PairedInterval:
    """The bootstrap interval of the mean paired difference, as exact fractions."""

    def __init__(self, low, high, means):
        self.low = low
        self.high = high
        self.means = means  # the B resampled means, sorted

    def distribution(self):
        """The resampled means as sorted (mean, count) pairs (for a histogram)."""
        pairs = []
        for mean in self.means:
            if pairs and pairs[-1][0] == mean:
                pairs[-1][1] += 1
            else:
                pairs.append([mean, 1])
        return [tuple(pair) for pair in pairs]


def paired_interval(clusters, samples, seed, confidence, resampler=DEFAULT_RESAMPLER):
    """Bootstrap interval of the mean difference over ``clusters`` (see :func:`task_clusters`
    and :func:`family_clusters`); ``confidence`` is exact (Decimal or Fraction)."""
    rng = random.Random(seed)
    means = sorted(RESAMPLERS[resampler](clusters, samples, rng))
    tail = (1 - Fraction(confidence)) / 2
    return PairedInterval(means[nearest_rank_index(tail, samples)],
                          means[nearest_rank_index(1 - tail, samples)], means)
