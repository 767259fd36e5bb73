"""An exact binomial sampler on ``random.Random.random``, the same stream on every Python.

:func:`sampler` returns ``draw(random) -> int`` for Binomial(n, p), ``random`` being a
``random.Random(seed).random`` bound method (53-bit uniforms in [0, 1), the same sequence for
the same seed on every CPython from 3.2 and on PyPy). ``random.binomialvariate`` is new in
3.12 and its stream is not promised stable, so the bootstrap cannot use it.

``p`` is exact (an int, Fraction or float; a float is taken as the exact value it holds). By
symmetry the work is done for p' = min(p, 1 - p) and n - k returned when p > 1/2. Two regimes:

- **Inversion** (n p' < 10): algorithm BINV of Kachitvichyanukul and Schmeiser (1988,
  "Binomial random variate generation", Comm. ACM 31(2):216-222): one uniform u, then walk
  k = 0, 1, ... subtracting f(k) from u, with f(0) = q^n and f(k) = f(k-1) ((n+1) s / k - s),
  s = p/q, until u <= f(k). Expected work O(n p'). Only +, -, *, / are used (q^n by repeated
  squaring, not the platform's ``pow``), so every step is the same IEEE operation everywhere.
  If rounding lets u outlast f(0..n) (a chance near 1e-16), a new u is drawn.
- **BTRS** (n p' >= 10): transformed rejection with squeeze, Hoermann (1993, "The generation
  of binomial random variables", J. Statist. Comput. Simul. 46:101-110), with the constants of
  his paper (b = 1.15 + 2.53 sqrt(npq), a = -0.0873 + 0.0248 b + 0.01 p, c = np + 0.5,
  v_r = 0.92 - 4.2/b, alpha = (2.83 + 5.1/b) sqrt(npq)). Per try: u = U - 1/2, us = 1/2 - |u|,
  k = floor((2a/us + b) u + c); reject k outside 0..n; accept at once when us >= 0.07 and
  V <= v_r (the squeeze: most tries end here); else accept when
  V alpha / (a/us^2 + b) <= f(k)/f(m), m = floor((n+1)p) the mode. (The paper's step 3.3
  compares V with the log of that ratio; the log of V is meant, as CPython's
  ``binomialvariate`` notes too.) Measured: 2.3 to 2.7 uniforms per variate for n p from 10
  to 500,000, so O(1) whatever n.

The acceptance test is *defined* as the exact comparison of the double X = V alpha /
(a/us^2 + b) (made of IEEE operations only) with the exact ratio
f(k)/f(m) = m!(n-m)!/(k!(n-k)!) (p/q)^(k-m). It is evaluated in floating point as
log X <= lgamma terms + (k-m) log(p/q), and only when the two sides are within a tolerance
(1e-9 plus 1e-12 of the magnitudes involved, thousands of times the error of ``log`` and
``lgamma``) is it decided exactly, in integers. So the platform's ``log`` and ``lgamma``,
which may differ in the last bit between C libraries, never change a draw: the sampler returns
the same variates on CPython 3.9+ and PyPy, on any platform, and they follow Binomial(n, p)
exactly up to the resolution of the 53-bit uniforms and the rounding of the hat's own
arithmetic, as any floating-point sampler does (the tests compare them with the exact pmf).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, List, Union

# random() -> a uniform in [0, 1); a sampler draws a variate from such uniforms.
Uniform = Callable[[], float]
Sampler = Callable[[Uniform], int]

# Below this n * min(p, 1 - p) inversion is faster than BTRS (Hoermann: BTRS needs np >= 10).
INVERSION_LIMIT = 10

# The float acceptance test decides only outside this band around the boundary (see above).
TOLERANCE = 1e-9
RELATIVE_TOLERANCE = 1e-12

# Hoermann's constants (BTRS, section 2 of the paper).
_B0, _B1 = 1.15, 2.53
_A0, _A1, _A2 = -0.0873, 0.0248, 0.01
_VR0, _VR1 = 0.92, 4.2
_ALPHA0, _ALPHA1 = 2.83, 5.1
_SQUEEZE_US = 0.07


def sampler(n: int, p: Union[int, Fraction, float]) -> Sampler:
    """``draw(random) -> int``: a Binomial(n, p) variate from the uniforms ``random()``.

    ``n`` is an int >= 0, ``p`` an exact number in [0, 1] (int, Fraction or float). The
    contract: the same seed gives the same variates on every Python from 3.9, CPython or
    PyPy, on any platform; every variate lies in 0..n; p = 0 and p = 1 give 0 and n without
    drawing:

    >>> import random
    >>> draw = sampler(1000, Fraction(1, 3))
    >>> uniform = random.Random(7).random
    >>> [draw(uniform) for _ in range(5)]
    [326, 340, 335, 303, 294]
    >>> sampler(5, 0)(uniform), sampler(5, 1)(uniform)
    (0, 5)
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError("n must be an int >= 0")
    ratio = Fraction(p)
    if not 0 <= ratio <= 1:
        raise ValueError("p must lie in [0, 1]")
    return ratio_sampler(n, ratio.numerator, ratio.denominator)


def ratio_sampler(n: int, top: int, bottom: int) -> Sampler:
    """:func:`sampler` for p = top / bottom, ints with 0 <= top <= bottom, bottom > 0 (not
    checked: for callers that already hold the ratio, such as the multinomial bootstrap,
    which makes tens of thousands of samplers)."""
    if 2 * top > bottom:
        draw = ratio_sampler(n, bottom - top, bottom)
        return lambda random: n - draw(random)
    if n == 0 or top == 0:
        return _zero
    if n * top < INVERSION_LIMIT * bottom:
        return _inversion(n, top, bottom)
    return _btrs(n, top, bottom)


def _zero(random: Uniform) -> int:
    return 0


def power(base: float, exponent: int) -> float:
    """base ** exponent by repeated squaring: IEEE products only, the same everywhere."""
    result = 1.0
    while exponent:
        if exponent & 1:
            result *= base
        base *= base
        exponent >>= 1
    return result


def pmf(count: int, chance: float) -> List[float]:
    """P(Binomial(count, chance) = k) for k = 0..count, from + - * / only: weights by ratios
    from the mode outwards (stopping where they underflow), normalized by their sum."""
    if chance <= 0.0 or count == 0:
        return [1.0] + [0.0] * count
    if chance >= 1.0:
        return [0.0] * count + [1.0]
    mode = min(count, int((count + 1) * chance))
    weights = [0.0] * (count + 1)
    weights[mode] = 1.0
    odds = chance / (1.0 - chance)
    for k in range(mode, count):
        weights[k + 1] = weights[k] * (count - k) / (k + 1) * odds
        if weights[k + 1] < 1e-300:
            break
    for k in range(mode, 0, -1):
        weights[k - 1] = weights[k] * k / (count - k + 1) / odds
        if weights[k - 1] < 1e-300:
            break
    total = sum(weights)
    return [weight / total for weight in weights]


def _inversion(n: int, top: int, bottom: int) -> Sampler:
    """BINV (Kachitvichyanukul and Schmeiser 1988), for n p < 10 and p <= 1/2."""
    pf = top / bottom  # correctly rounded, as float(Fraction(top, bottom))
    q = 1.0 - pf
    s = pf / q
    a = (n + 1) * s
    first = power(q, n)

    def draw(random: Uniform) -> int:
        while True:
            u = random()
            x = 0
            r = first
            while u > r:
                u -= r
                x += 1
                if x > n:
                    break  # rounding left u beyond the whole pmf: draw again
                r *= a / x - s
            else:
                return x

    return draw


def _btrs(n: int, top: int, bottom: int) -> Sampler:
    """BTRS (Hoermann 1993), for n p >= 10 and p <= 1/2."""
    pf = top / bottom  # correctly rounded, as float(Fraction(top, bottom))
    qf = 1.0 - pf
    spq = math.sqrt(n * pf * qf)
    b = _B0 + _B1 * spq
    a = _A0 + _A1 * b + _A2 * pf
    c = n * pf + 0.5
    vr = _VR0 - _VR1 / b
    two_a = 2.0 * a
    alpha = (_ALPHA0 + _ALPHA1 / b) * spq
    lpq = math.log(pf / qf)
    mode = (n + 1) * top // bottom  # floor((n+1) p), exactly
    h = math.lgamma(mode + 1) + math.lgamma(n - mode + 1)
    band = TOLERANCE + RELATIVE_TOLERANCE * h
    lgamma, log, floor = math.lgamma, math.log, math.floor

    def draw(random: Uniform) -> int:
        while True:
            u = random() - 0.5
            us = 0.5 - abs(u)
            if us == 0.0:
                continue  # u = -1/2 maps to k = -infinity: outside 0..n
            k = floor((two_a / us + b) * u + c)
            if k < 0 or k > n:
                continue
            v = random()
            if us >= _SQUEEZE_US and v <= vr:
                return k
            v *= alpha / (a / (us * us) + b)
            if v == 0.0:
                return k  # 0 <= any ratio
            step = (k - mode) * lpq
            difference = log(v) - (h - lgamma(k + 1) - lgamma(n - k + 1) + step)
            margin = band + RELATIVE_TOLERANCE * abs(step)
            if difference < -margin:
                return k
            if difference > margin:
                continue
            if exact_accept(v, n, mode, k, top, bottom):
                return k

    return draw


def exact_accept(x: float, n: int, mode: int, k: int, top: int, bottom: int) -> bool:
    """Whether the double ``x`` <= f(k)/f(mode) for Binomial(n, p = top/bottom), exactly.

    f(k)/f(m) = m!(n-m)!/(k!(n-k)!) (p/q)^(k-m), and with p = a/b, p/q = a/(b-a).
    """
    bottom = bottom - top
    numerator: int
    denominator: int
    if k >= mode:
        steps = k - mode
        numerator = math.prod(range(n - k + 1, n - mode + 1)) * top ** steps
        denominator = math.prod(range(mode + 1, k + 1)) * bottom ** steps
    else:
        steps = mode - k
        numerator = math.prod(range(k + 1, mode + 1)) * bottom ** steps
        denominator = math.prod(range(n - mode + 1, n - k + 1)) * top ** steps
    x_numerator, x_denominator = x.as_integer_ratio()
    return x_numerator * denominator <= numerator * x_denominator
