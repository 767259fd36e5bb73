"""The paired bootstrap as B -> infinity, for -1/0/+1 differences: the exact resampling
distribution's lower tail, and where its percentile lower bound lies against a gate.

n units (tasks, or families of equal size) carry differences +1 (``gains`` of them), -1
(``losses``) and 0. A bootstrap resample draws n units with replacement, so its counts of
gains X and losses Y are Multinomial(n; gains/n, losses/n, rest), and its mean is (X - Y) / n
(Efron and Tibshirani 1993, "An Introduction to the Bootstrap", section 6.2: the ideal
bootstrap is the B -> infinity limit the gate's B resamples estimate). The percentile interval's
lower bound at tail p is q_p = inf{x : F*(x) >= p}, the limit of the gate's nearest-rank
ceil(p B)-th smallest mean (:mod:`.bootstrap`), so

- q_p > g (the ``strict`` rule) exactly when F*(g) = P*(X - Y <= g n) < p, and
- q_p >= g (``inclusive``) exactly when P*(X - Y < g n) < p.

P*(X - Y <= k) = sum_s Binomial(s; n, D/n) P(Binomial(s, gains/D) <= floor((s + k) / 2)),
D = gains + losses, conditioning on the number s of discordant draws (X = the gains among
them). :func:`lower_tail` evaluates it in O(n) floating-point steps (the inner binomial
distribution functions follow each other by recurrences in s), with only + - * / (each
correctly rounded, so the same on every platform); :func:`lower_tail_exact` sums the
multinomial exactly; :func:`bound_passes` decides with the float and, when it lies within
:data:`MARGIN` of p, with the exact sum, so every decision is exact.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, floor, frexp, ldexp
from typing import Tuple

from .binomial import pmf
from .exact import Exact, to_float

# A float tail this close to the level is decided by the exact sum instead. The float's own
# error is below 1e-12 for n up to 10**5 (each of the O(n) steps rounds once).
MARGIN = 1e-9


def _split(value: Fraction) -> Tuple[float, int]:
    """(mantissa, exponent) with value ~ mantissa 2**exponent and mantissa near 1."""
    if value == 0:
        return 0.0, 0
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    return to_float(value / Fraction(2) ** exponent), exponent


def lower_tail(units: int, gains: int, losses: int, limit: int) -> float:
    """P*(X - Y <= limit) for the ideal bootstrap (module docstring), as a float whose error
    is far below :data:`MARGIN`.

    With m_s = floor((s + limit) / 2), the inner G_s = P(Binomial(s, theta) <= m_s) is 0
    while m_s < 0 and 1 while m_s >= s; from the first s with 0 <= m_s < s it is carried to
    s + 1 with h_s = P(Binomial(s, theta) = m_s): G(s+1, m) = G(s, m) - theta h(s, m),
    h(s+1, m) = h(s, m) (s + 1) (1 - theta) / (s + 1 - m), and when m_{s+1} = m_s + 1,
    h(s+1, m+1) = h(s+1, m) (s + 1 - m) theta / ((m + 1) (1 - theta)) is added. h is kept
    as a mantissa and a power of two, so it never underflows on its way up.
    """
    _check(units, gains, losses)
    discordant = gains + losses
    if discordant == 0:
        return 1.0 if limit >= 0 else 0.0
    outer = pmf(units, discordant / units)
    if gains == 0 or losses == 0:  # X - Y = s or -s
        sign = 1 if losses == 0 else -1
        return sum(outer[s] for s in range(units + 1) if sign * s <= limit)
    theta = gains / discordant
    exact_theta = Fraction(gains, discordant)
    total = 0.0
    carried = False
    cdf = mantissa = 0.0
    exponent = 0
    for s in range(units + 1):
        m = (s + limit) // 2
        if m < 0:
            continue
        if m >= s:
            total += outer[s]
            continue
        if not carried:
            terms = [comb(s, x) * exact_theta ** x * (1 - exact_theta) ** (s - x)
                     for x in range(m + 1)]
            cdf = to_float(sum(terms, Fraction(0)))
            mantissa, exponent = _split(terms[m])
            carried = True
        total += outer[s] * cdf
        if s == units:
            break
        cdf -= theta * ldexp(mantissa, exponent)
        mantissa = mantissa * (s + 1) * (1.0 - theta) / (s + 1 - m)
        if (s + 1 + limit) // 2 == m + 1:
            mantissa = mantissa * (s + 1 - m) * theta / ((m + 1) * (1.0 - theta))
            cdf += ldexp(mantissa, exponent)
        if mantissa != 0.0 and not 2.0 ** -500 < abs(mantissa) < 2.0 ** 500:
            scale = frexp(mantissa)[1]
            mantissa = ldexp(mantissa, -scale)
            exponent += scale
        cdf = min(max(cdf, 0.0), 1.0)
    return total


def lower_tail_exact(units: int, gains: int, losses: int, limit: int) -> Fraction:
    """P*(X - Y <= limit) exactly: the multinomial sum over x - y <= limit (O(n**2) terms)."""
    _check(units, gains, losses)
    rest = units - gains - losses
    total = 0
    for x in range(units + 1):
        for y in range(max(0, x - limit), units - x + 1):
            total += (comb(units, x) * comb(units - x, y) * gains ** x * losses ** y
                      * rest ** (units - x - y))
    return Fraction(total, units ** units)


def bound_passes(units: int, gains: int, losses: int, gate: Exact, strict: bool,
                 tail: Exact) -> bool:
    """Whether the ideal bootstrap's percentile lower bound at ``tail`` (exact) is above
    (``strict``) or at or above ``gate`` (exact): decided exactly (module docstring)."""
    gate, tail = Fraction(gate), Fraction(tail)
    scaled = gate * units
    limit = floor(scaled) if strict else -floor(-scaled) - 1  # X - Y <= g n, or < g n
    approximate = lower_tail(units, gains, losses, limit)
    if abs(approximate - float(tail)) > MARGIN:
        return approximate < float(tail)
    return lower_tail_exact(units, gains, losses, limit) < tail


def _check(units: int, gains: int, losses: int) -> None:
    if units < 1 or gains < 0 or losses < 0 or gains + losses > units:
        raise ValueError("need 0 <= gains + losses <= units, units >= 1")
