"""Statistics, knowing nothing of the contract: exact numbers and their correctly rounded
doubles (``exact``), nearest-rank quantiles (``quantiles``), pass^k and pass@k (``passk``), the
paired comparison's tests and standard errors (``paired``), an exact binomial sampler
(``binomial``) and the fixed-seed bootstrap (``bootstrap``). Every result is the same bit for
bit on every platform, Python version and hash seed."""
