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


def part_by_cut_files(spec_bytes, cases_bytes, baseline_bytes, body, test_ids=None):
    """The private-test service's decision as it was made from files: the maintainer's
    baseline system's text spliced into the submission's after its last system, the cases
    and that package cut down to the test cases ``test_ids`` (None: every one) as texts, and
    the gate run on the three files. Returns the :class:`~proagents_bench.pipeline.Evaluation`.
    """
    from proagents_bench import pipeline
    from proagents_bench.jsonio import load
    from proagents_bench.service import parts

    baseline = load.parse_bytes(baseline_bytes, "baseline.json")
    roles = [system["role"] for system in baseline.value["systems"]]
    start, end = baseline.span(("systems", roles.index("baseline")))
    submission = load.parse_bytes(body, "submission.json")
    text = submission.text
    close = submission.span(("systems",))[1] - 1
    combined = (text[:close] + ("," if submission.value["systems"] else "")
                + baseline.text[start:end] + text[close:]).encode("utf-8")
    if test_ids is not None:
        cases = load.parse_bytes(cases_bytes, "cases.json")
        cases_bytes = parts.cut(cases, {("cases",): [
            index for index, case in enumerate(cases.value["cases"])
            if case["split"] != "test" or case["id"] in test_ids]})
        results = load.parse_bytes(combined, "submission.json")
        combined = parts.cut(results, {
            ("systems", index, "records"): [position for position, record in
                                            enumerate(system["records"])
                                            if record["case_id"] in test_ids]
            for index, system in enumerate(results.value["systems"])})
    return pipeline.evaluate([
        pipeline.InputFile("spec", None, "spec.json", data=spec_bytes),
        pipeline.InputFile("cases", None, "cases.json", data=cases_bytes),
        pipeline.InputFile("results", None, "submission.json", data=combined)])
