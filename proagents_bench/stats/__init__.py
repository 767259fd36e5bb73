"""Statistics, knowing nothing of the contract: exact numbers and their correctly rounded
doubles (``exact``), nearest-rank quantiles (``quantiles``), pass^k and pass@k (``passk``), the
paired comparison's tests and standard errors (``paired``), Student's t quantile
(``student``), the normal distribution function from basic operations (``normal``), an exact
binomial sampler (``binomial``), the fixed-seed bootstrap (``bootstrap``) and its exact
B -> infinity limit (``ideal_bootstrap``), and the gate's power for planning (``power``).
Every result is the same bit for bit on every platform, Python version and hash seed."""

# The largest sample a sequential design may have, in discordant units (sequential.py): its
# exact computations are O(N^2) integer operations on N-bit integers (docs/statistics.md gives
# their times). Here, so that the contract's bound on ``max_discordant`` is this one without
# loading the design's modules into every run of the gate.
MAX_DISCORDANT = 10000
