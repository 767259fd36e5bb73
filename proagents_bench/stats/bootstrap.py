"""The fixed-seed paired bootstrap, over tasks or over families, in O(B m).

The contract: d_i = candidate task pass (0/1) - baseline task pass (0/1) for every test task
i; the bootstrap resamples tasks (never trials) with replacement ``samples`` (B) times and the
interval is the nearest-rank (1-c)/2 and 1-(1-c)/2 quantiles of the resampled means: the
ceil(p B)-th smallest of the B means (at least the first).

Spec v2 may resample whole families instead (``bootstrap.unit = "family"``): each sample draws
G families with replacement, G being the number of test families, and its mean is the sum of
the drawn families' task differences over the number of tasks drawn. The resampled units are
*clusters* of (sum of differences, task count); resampling tasks is the special case where
every cluster is one task. So when every test family has one task, the family bootstrap sees
exactly the same clusters, makes the same draws from the same stream and gives the same
interval; when families hold several tasks, a family's correlated tasks stay together and the
interval is (usually) wider.

**The algorithm** (:func:`multinomial_resample`, the default). A resample's mean depends only on
how often each cluster is drawn, and clusters with the same (sum, size) are interchangeable.
So the G clusters are merged into m categories j with multiplicities c_j, and one sample is
the vector of category counts (X_1..X_m) ~ Multinomial(G; c_1/G, ..., c_m/G), the law of the
counts of G uniform draws with replacement (Efron and Tibshirani 1993, "An Introduction to the
Bootstrap", section 6.2; Davison and Hinkley 1997, "Bootstrap Methods and their Application",
section 2.3). Its mean is sum_j X_j sum_j / sum_j X_j size_j. The counts are drawn as
sequential conditional binomials, X_j ~ Binomial(G - X_1 - ... - X_{j-1},
c_j / (c_j + ... + c_m)), the last category taking the rest (Davis 1993, "The computer
generation of multinomial random variates", Comput. Statist. Data Anal. 16:205-217), with the
exact sampler of :mod:`proagents_bench.binomial` (inversion for small n p, Hoermann's BTRS
otherwise). Categories are taken in ascending (multiplicity, sum, size) order, so the largest
one takes the rest without a draw. Each sample costs at most m - 1 binomial variates, each
O(1) expected, whatever G: O(B m) in all, against O(B G) for drawing indexes. Task
differences take three values (-1, 0, 1), so for the task unit m <= 3.

The B means are kept as counts of exact (sum, size) pairs; the distinct means (at most B, and
at most 2G + 1 for tasks) are sorted as Fractions and the nearest-rank quantiles read off the
cumulative counts: no sort of B values.

Randomness comes only from a private ``random.Random(seed)``, through ``random()``, whose
stream is the same on every Python version and implementation (``randrange``, ``choices`` and
``binomialvariate`` are not promised to be). Means are exact fractions.

The algorithm is swappable: :func:`paired_interval` takes any function
``resample(clusters, samples, rng) -> {(sum, size): how many of the B samples}``; plain index
resampling (B times, G uniform draws with replacement, O(B G)) lives in the tests as the
reference this one is held to.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Callable, Dict, List, Sequence, Tuple

from .binomial import Sampler, ratio_sampler
from .exact import Exact
from .quantiles import nearest_rank_index  # the one nearest-rank rule, shared with p95

# A resampled unit: (the sum of its task differences, how many tasks it holds).
Cluster = Tuple[int, int]
# resample(clusters, samples, rng) -> {(sum, size): how many of the B samples}
Resample = Callable[[Sequence[Cluster], int, random.Random], Dict[Cluster, int]]


def categories(clusters: Sequence[Cluster]) -> List[Tuple[Cluster, int]]:
    """The distinct (sum, size) clusters with their multiplicities, in drawing order:
    ascending (multiplicity, sum, size), so that the largest category comes last."""
    multiplicity: Dict[Cluster, int] = {}
    for cluster in clusters:
        multiplicity[cluster] = multiplicity.get(cluster, 0) + 1
    return sorted(multiplicity.items(), key=lambda item: (item[1], item[0]))


def multinomial_resample(clusters: Sequence[Cluster], samples: int,
                         rng: random.Random) -> Dict[Cluster, int]:
    """B samples of Multinomial category counts by conditional binomials (module docstring)."""
    total_clusters = len(clusters)
    ordered = categories(clusters)
    (last_sum, last_size), _ = ordered[-1]
    # per drawn category: sum, size, chance given the rest (c_j / rest), samplers
    plan: List[Tuple[int, int, int, int, Dict[int, Sampler]]] = []
    rest = total_clusters
    for (cluster_sum, cluster_size), multiplicity in ordered[:-1]:
        plan.append((cluster_sum, cluster_size, multiplicity, rest, {}))
        rest -= multiplicity
    uniform = rng.random
    counts: Dict[Cluster, int] = {}
    for _ in range(samples):
        left = total_clusters
        total = size = 0
        for cluster_sum, cluster_size, multiplicity, rest, samplers in plan:
            draw = samplers.get(left)
            if draw is None:
                draw = samplers[left] = ratio_sampler(left, multiplicity, rest)
            drawn = draw(uniform)
            total += drawn * cluster_sum
            size += drawn * cluster_size
            left -= drawn
            if not left:
                break
        key = (total + left * last_sum, size + left * last_size)
        counts[key] = counts.get(key, 0) + 1
    return counts


def task_clusters(differences: Sequence[int]) -> List[Cluster]:
    """Every task its own cluster."""
    return [(difference, 1) for difference in differences]


def family_clusters(differences: Sequence[int], families: Sequence[str]) -> List[Cluster]:
    """One cluster per family (first appearance order): (sum of differences, task count)."""
    position: Dict[str, int] = {}
    clusters: List[List[int]] = []
    for difference, family in zip(differences, families):
        index = position.get(family)
        if index is None:
            position[family] = len(clusters)
            clusters.append([difference, 1])
        else:
            clusters[index][0] += difference
            clusters[index][1] += 1
    return [(cluster[0], cluster[1]) for cluster in clusters]


def distribution_of(counts: Dict[Cluster, int]) -> List[Tuple[Fraction, int]]:
    """Sorted (mean, count) pairs from {(sum, size): count}; equal means merged."""
    merged: Dict[Fraction, int] = {}
    for (total, size), count in counts.items():
        mean = Fraction(total, size)
        merged[mean] = merged.get(mean, 0) + count
    return sorted(merged.items())


def quantile(distribution: Sequence[Tuple[Fraction, int]], index: int) -> Fraction:
    """The value at zero-based ``index`` of the sorted values that ``distribution`` counts."""
    seen = 0
    for value, count in distribution:
        seen += count
        if index < seen:
            return value
    raise IndexError("quantile index beyond the sample")


class PairedInterval:
    """The bootstrap interval of the mean paired difference, as exact fractions;
    ``pairs`` is the B resampled means as sorted (mean, count) pairs."""

    def __init__(self, low: Fraction, high: Fraction,
                 pairs: List[Tuple[Fraction, int]]) -> None:
        self.low = low
        self.high = high
        self.pairs = pairs

    def distribution(self) -> List[Tuple[Fraction, int]]:
        """The resampled means as sorted (mean, count) pairs (for a histogram)."""
        return list(self.pairs)


def paired_interval(clusters: Sequence[Cluster], samples: int, seed: int, confidence: Exact,
                    resample: Resample = multinomial_resample) -> PairedInterval:
    """Bootstrap interval of the mean difference over ``clusters`` (see :func:`task_clusters`
    and :func:`family_clusters`); ``confidence`` is exact (Decimal or Fraction).
    ``resample(clusters, samples, rng)`` gives {(sum, size): how many of the B samples}."""
    if not clusters:
        raise ValueError("no clusters to resample")
    rng = random.Random(seed)
    pairs = distribution_of(resample(clusters, samples, rng))
    tail = (1 - Fraction(confidence)) / 2
    return PairedInterval(quantile(pairs, nearest_rank_index(tail, samples)),
                          quantile(pairs, nearest_rank_index(1 - tail, samples)), pairs)
