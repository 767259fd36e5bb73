"""Student's t quantile, as the double nearest a 60-digit decimal value: the same bit for bit
on every platform (the decimal module's operations are specified exactly; no libm call).

Two methods, by the degrees of freedom nu:

- nu <= :data:`SERIES_MAX_DF`: Newton's method on the exact distribution function, whose
  finite closed form for an integer nu is Abramowitz and Stegun (1964), "Handbook of
  Mathematical Functions", 26.7.3 (odd nu) and 26.7.4 (even nu): with theta = atan(t /
  sqrt(nu)), A(t | nu) = P(|T| <= t) is

  - nu even: sin(theta) (1 + cos^2/2 + 1*3 cos^4 / (2*4) + ... + 1*3*..*(nu-3) cos^(nu-2) /
    (2*4*..*(nu-2)));
  - nu = 1: 2 theta / pi; nu odd > 1: (2/pi) (theta + sin(theta) (cos + 2/3 cos^3 + ... +
    2*4*..*(nu-3) cos^(nu-2) / (1*3*..*(nu-2)))),

  where sin(theta) = t / sqrt(nu + t^2) and cos^2(theta) = nu / (nu + t^2) are algebraic; only
  theta itself (odd nu) needs an arctangent, computed here by argument halving and its
  Taylor series. The density's constant Gamma((nu+1)/2) / (sqrt(nu pi) Gamma(nu/2)) is a
  ratio of factorials. F(t) is concave for t >= 0, so Newton's iterates from the normal
  quantile (always below t_p for p > 1/2) rise monotonically to the root, as in
  :mod:`.exact`.
- nu > :data:`SERIES_MAX_DF`: the Cornish-Fisher expansion of t_p in powers of 1/nu around
  z = Phi^-1(p) (Fisher and Cornish 1960, Technometrics 2:209-225; A&S 26.7.5 gives the first
  four terms, Hill 1970, CACM 13:617-619, the fifth). With five terms the error is of order
  g6(z) / nu^6: below 1e-16 relative for nu > 1000 and p <= 0.9995.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache
from typing import Tuple
from math import factorial

from .exact import Exact, _PI, _context, _normal_quantile_decimal, to_float

SERIES_MAX_DF = 1000


def _atan(value: Decimal) -> Decimal:
    """arctan(value) for value >= 0, in the current (60-digit) context: halve the argument
    (atan x = 2 atan(x / (1 + sqrt(1 + x^2)))) until it is below 1/8, then sum the Taylor
    series x - x^3/3 + x^5/5 - ..., whose terms shrink 64-fold each."""
    doublings = 0
    while value > Decimal("0.125"):
        value = value / (1 + (1 + value * value).sqrt())
        doublings += 1
    square = value * value
    term = value
    total = value
    odd = 1
    while True:
        term = -term * square
        odd += 2
        grown = total + term / odd
        if grown == total:
            break
        total = grown
    return total * (1 << doublings)


def _density_constant(df: int) -> Decimal:
    """Gamma((nu+1)/2) / (sqrt(nu pi) Gamma(nu/2)) for an integer nu >= 1, from factorials:
    nu = 2k even: Gamma(k + 1/2) / Gamma(k) = (2k)! sqrt(pi) / (4^k k! (k-1)!); nu = 2k + 1
    odd: Gamma(k + 1) / Gamma(k + 1/2) = 4^k k!^2 / ((2k)! sqrt(pi))."""
    root_pi = _PI.sqrt()
    if df % 2 == 0:
        k = df // 2
        ratio = (Decimal(factorial(2 * k)) * root_pi
                 / (Decimal(4 ** k) * factorial(k) * factorial(k - 1)))
    else:
        k = (df - 1) // 2
        ratio = Decimal(4 ** k) * factorial(k) ** 2 / (Decimal(factorial(2 * k)) * root_pi)
    return ratio / (Decimal(df) * _PI).sqrt()


def _cdf_and_density(t: Decimal, df: int, constant: Decimal) -> Tuple[Decimal, Decimal]:
    """(F(t), f(t)) for t >= 0 (module docstring)."""
    nu = Decimal(df)
    spread = nu + t * t
    sine = t / spread.sqrt()
    cos_square = nu / spread
    if df % 2 == 0:
        term = total = Decimal(1)
        for j in range(1, df // 2):
            term = term * cos_square * (2 * j - 1) / (2 * j)
            total += term
        inside = sine * total
    else:
        theta = _atan(t / nu.sqrt())
        if df == 1:
            inside = 2 * theta / _PI
        else:
            cosine = cos_square.sqrt()
            term = total = cosine
            for j in range(1, (df - 1) // 2):
                term = term * cos_square * (2 * j) / (2 * j + 1)
                total += term
            inside = 2 * (theta + sine * total) / _PI
    # (1 + t^2/nu)^(-(nu+1)/2) = (nu / spread)^((nu+1)/2)
    if df % 2 == 1:
        kernel = cos_square ** ((df + 1) // 2)
    else:
        kernel = cos_square ** (df // 2) * cos_square.sqrt()
    return (1 + inside) / 2, constant * kernel


def _cornish_fisher(z: Decimal, df: int) -> Decimal:
    """t_p ~ z + g1/nu + ... + g5/nu^5 (module docstring)."""
    nu = Decimal(df)
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    g5 = (((((27 * z2 + 339) * z2 + 930) * z2 - 1782) * z2 - 765) * z2 + 17955) * z / 368640
    return z + g1 / nu + g2 / nu ** 2 + g3 / nu ** 3 + g4 / nu ** 4 + g5 / nu ** 5


def _quantile_decimal(probability: Fraction, df: int) -> Decimal:
    if probability == Fraction(1, 2):
        return Decimal(0)
    if probability < Fraction(1, 2):
        return -_quantile_decimal(1 - probability, df)
    z = _normal_quantile_decimal(probability)
    with localcontext(_context()):
        if df > SERIES_MAX_DF:
            return +_cornish_fisher(z, df)
        target = Decimal(probability.numerator) / Decimal(probability.denominator)
        constant = _density_constant(df)
        tolerance = Decimal(10) ** -50
        t = z
        for _ in range(400):
            cdf, density = _cdf_and_density(t, df, constant)
            step = (target - cdf) / density
            t += step
            if abs(step) < tolerance * max(Decimal(1), abs(t)):
                break
        return +t


@lru_cache(maxsize=256)
def _cached(probability: Fraction, df: int) -> float:
    return to_float(_quantile_decimal(probability, df))


def student_t_quantile(probability: Exact, df: int) -> float:
    """t_p with ``df`` degrees of freedom (an int >= 1; 0 < p < 1), as the double nearest
    the 60-digit value (Cornish-Fisher beyond :data:`SERIES_MAX_DF`, see the module
    docstring).

    >>> student_t_quantile(Fraction(39, 40), 1)
    12.706204736174705
    """
    probability = Fraction(probability)
    if not 0 < probability < 1:
        raise ValueError("a t quantile needs 0 < p < 1")
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError("degrees of freedom are an int >= 1")
    return _cached(probability, df)


def two_sided_t(confidence: Exact, df: int) -> float:
    """t_{1 - alpha/2, df} for alpha = 1 - confidence."""
    confidence = Fraction(confidence)
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie strictly between 0 and 1")
    return student_t_quantile(1 - (1 - confidence) / 2, df)
