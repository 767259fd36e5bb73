"""The standard normal distribution function and density in floating point, from + - * /
only (each correctly rounded in IEEE arithmetic), so that every value is the same on every
platform: libm's ``exp`` and ``erfc`` are not promised to be. For the planner's power
(:mod:`.power`) and the normal limit of the randomization test (:mod:`.paired`); the exact
quantiles are :mod:`.exact`'s.
"""

from __future__ import annotations

from math import floor, ldexp

from .exact import marsaglia_series

# ln 2 split in two (Cody and Waite 1980): the high part has few bits, so k * _LN2_HIGH is
# exact.
_LN2_HIGH = 0.693147180369123816490
_LN2_LOW = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700
_ROOT_TWO_PI = 2.50662827463100050242


def exp_float(x: float) -> float:
    """e**x from + - * / only: x = k ln 2 + r with |r| <= ln 2 / 2 (Cody-Waite reduction),
    e**r by its Taylor series to r**17 / 17! (relative error below 1e-16), times 2**k."""
    if x < -745.0:
        return 0.0
    if x > 709.0:
        raise OverflowError("exp_float overflows")
    k = floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HIGH) - k * _LN2_LOW
    term = total = 1.0
    for j in range(1, 18):
        term = term * r / j
        total += term
    return ldexp(total, k)


def normal_density(x: float) -> float:
    return exp_float(-0.5 * x * x) / _ROOT_TWO_PI


def normal_cdf(x: float) -> float:
    """Phi(x): Marsaglia's positive series Phi(x) = 1/2 + phi(x) sum x**(2j+1) / (1 3 ..
    (2j+1)) for |x| <= 3 (Marsaglia 2004, J. Stat. Softw. 11(4)); beyond, the upper tail's
    continued fraction Q(x) = phi(x) / (x + 1 / (x + 2 / (x + 3 / (x + ...)))) (Laplace;
    evaluated backwards from 60 levels), Phi(x) = 1 - Q(x) or Q(-x)."""
    if x != x:
        raise ValueError("normal_cdf of NaN")
    if x < -38.0:
        return 0.0
    if x > 38.0:
        return 1.0
    if -3.0 <= x <= 3.0:
        return min(1.0, max(0.0, 0.5 + normal_density(x) * marsaglia_series(x)))
    t = abs(x)
    fraction = t
    for level in range(60, 0, -1):
        fraction = t + level / fraction
    tail = normal_density(t) / fraction
    return tail if x < 0 else 1.0 - tail
