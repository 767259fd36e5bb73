"""Reference implementations the tests hold the fast paths to (never used by the product).

Each is the plain, obviously correct way to compute what the package computes fast:
index resampling for the multinomial bootstrap, a second pass for the canonical record order,
the resampled means expanded from their counts, the paired and clustered variances summed
one Fraction at a time.
"""

from collections import Counter
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

    O(G B); the reference every faster resampler must agree with in distribution. Returns
    {(sum of differences, tasks drawn): how many of the B samples}.
    """
    count = len(clusters)
    counts = Counter()
    for _ in range(samples):
        total = size = 0
        for _ in range(count):
            cluster_sum, cluster_size = clusters[_below(rng, count)]
            total += cluster_sum
            size += cluster_size
        counts[(total, size)] += 1
    return dict(counts)


def means(interval):
    """The B resampled means of a PairedInterval, sorted, expanded from their counts."""
    return [mean for mean, count in interval.pairs for _ in range(count)]


def ordered_records(system, cases):
    """The system's records in canonical order (test cases in file order, then trial id), by
    a second pass: the coverage rules give the same order from their one pass."""
    trials = system["protocol"]["trial_count"]
    test_index = {}
    for case in cases["cases"]:
        if case["split"] == "test":
            test_index[case["id"]] = len(test_index)
    ordered = [None] * (len(test_index) * trials)
    for record in system["records"]:
        ordered[test_index[record["case_id"]] * trials + record["trial_id"] - 1] = record
    return ordered


def paired_variance(differences):
    """The variance of the mean paired difference, sum (d - mean)**2 / (n (n - 1)), summed
    in Fractions one value at a time (the definition)."""
    values = [Fraction(d) for d in differences]
    mean = sum(values, Fraction(0)) / len(values)
    return sum(((d - mean) ** 2 for d in values), Fraction(0)) / (len(values) * (len(values) - 1))


def clustered_variance(differences, clusters):
    """CR1: sum over clusters of (sum of deviations)**2 / n**2, times G / (G - 1)."""
    values = [Fraction(d) for d in differences]
    mean = sum(values, Fraction(0)) / len(values)
    totals = {}
    for value, cluster in zip(values, clusters):
        totals[cluster] = totals.get(cluster, Fraction(0)) + value - mean
    groups = len(totals)
    return (sum((total ** 2 for total in totals.values()), Fraction(0)) / len(values) ** 2
            * Fraction(groups, groups - 1))
