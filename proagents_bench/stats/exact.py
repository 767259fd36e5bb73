"""Exact numbers, and the doubles nearest them: the same bit for bit everywhere.

Everything that can be exact is a :class:`fractions.Fraction` or :class:`decimal.Decimal`. A
float appears only where a square root or a normal quantile is unavoidable, or when an exact
value is finally written, and every float is the correctly rounded value of an exact quantity,
so it is the same bit for bit under CPython and PyPy on any platform:

- square roots and Fraction-to-float conversions are done with integer arithmetic
  (:func:`math.isqrt`) and one round-half-even step (:func:`sqrt_float`, :func:`to_float`);
- the normal quantile is computed in :mod:`decimal` at 60 significant digits, whose operations
  (including ``exp`` and ``sqrt``) are specified exactly and correctly rounded, then rounded
  once to a float (:func:`normal_quantile`). It agrees with
  ``statistics.NormalDist().inv_cdf`` to within a few units in the last place, but that one
  uses the platform's ``log`` and, in CPython 3.10+, C code the compiler may contract into
  fused multiply-adds, so its last bit is not promised across platforms;
- sums of floats never happen: values are summed exactly (:func:`exact_sum`) and rounded once.
"""

from __future__ import annotations

import math
from decimal import (MAX_EMAX, MIN_EMIN, ROUND_HALF_EVEN, Context, Decimal, DivisionByZero, Inexact,
                     InvalidOperation, Overflow, localcontext)
from fractions import Fraction
from typing import Iterable, List, Optional, TypeVar, Union, cast

Exact = Union[int, Fraction, Decimal]
# A number the Marsaglia series takes: a Decimal, or a float for the fast path.
_Real = TypeVar("_Real", Decimal, float)

# Sums of written decimals are exact in this context (Inexact is trapped); only a hostile mix
# of magnitudes (1e300 with 1e-800) needs more digits, and then the sum falls back to Fraction.
_EXACT = Context(prec=1000, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[Inexact])


def exact_sum(values: Iterable[Union[int, Decimal]]) -> Fraction:
    """The exact sum of ints and Decimals, as a Fraction (``sum`` in the exact context: the
    additions of a loop over ``_EXACT.add``, in the same order, at C speed)."""
    values = values if isinstance(values, list) else list(values)
    try:
        with localcontext(_EXACT):
            return Fraction(sum(values, Decimal(0)))
    except Inexact:
        return sum((Fraction(value) for value in values), Fraction(0))


def _round_scaled(mantissa: int, exponent: int, inexact: bool) -> float:
    """The double nearest (mantissa + e) * 2**exponent, e in (0, 1) when ``inexact`` else 0.

    ``mantissa`` has at least 55 bits, so the discarded part is at least two bits wide and
    ``inexact`` acts as the sticky bit: round half to even, exactly as IEEE 754 does (for
    results in the normal range, as all of this module's are; a subnormal would round twice).
    """
    drop = mantissa.bit_length() - 53
    top = mantissa >> drop
    rest = mantissa - (top << drop)
    half = 1 << (drop - 1)
    if rest > half or (rest == half and (inexact or top & 1)):
        top += 1
    return math.ldexp(float(top), exponent + drop)  # top <= 2**53: both steps exact


def to_float(value: Exact) -> float:
    """``value`` (int, Fraction or Decimal) as the nearest double, by integer arithmetic."""
    value = Fraction(value)
    if value == 0:
        return 0.0
    numerator, denominator = abs(value.numerator), value.denominator
    shift = 55 - (numerator.bit_length() - denominator.bit_length())
    if shift >= 0:
        quotient, remainder = divmod(numerator << shift, denominator)
    else:
        quotient, remainder = divmod(numerator, denominator << -shift)
    result = _round_scaled(quotient, -shift, remainder != 0)
    return result if value > 0 else -result


def sqrt_float(value: Exact) -> float:
    """The double nearest sqrt(value) for a non-negative int, Fraction or Decimal.

    With value = p/q scaled by 4**k so that N = floor(p 4**k / q) >= 2**108, m = isqrt(N)
    satisfies m <= sqrt(value) 2**k < m + 1 and has at least 55 bits; the root is exact only
    when both the division and the isqrt are.
    """
    value = Fraction(value)
    if value < 0:
        raise ValueError("square root of a negative number")
    if value == 0:
        return 0.0
    numerator, denominator = value.numerator, value.denominator
    half_shift = (110 - (numerator.bit_length() - denominator.bit_length())) // 2 + 1
    if half_shift >= 0:
        scaled, remainder = divmod(numerator << (2 * half_shift), denominator)
    else:
        scaled, remainder = divmod(numerator, denominator << (-2 * half_shift))
    root = math.isqrt(scaled)
    return _round_scaled(root, -half_shift, remainder != 0 or root * root != scaled)


# The normal quantile, in decimal.

_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781640629")
_PRECISION = 60


def _context() -> Context:
    """A private decimal context, so the caller's context never changes a result."""
    return Context(prec=_PRECISION, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999,
                   capitals=1, clamp=0, flags=[],
                   traps=[InvalidOperation, DivisionByZero, Overflow])


def marsaglia_series(x: _Real) -> _Real:
    """sum_{j>=0} x**(2j+1) / (1*3*5*...*(2j+1)), summed until a term no longer changes the
    total: Phi(x) = 1/2 + phi(x) times it (Marsaglia 2004). For a Decimal (in the caller's
    context) or a float: the same operations in either."""
    square = x * x
    term = total = x
    odd = 1
    while True:
        odd += 2
        term = term * square / odd
        grown = total + term
        if grown == total:
            return total
        total = grown


def _normal_quantile_decimal(probability: Fraction) -> Decimal:
    """z with Phi(z) = probability (0 < probability < 1, a Fraction), at 60 digits.

    Phi(z) = 1/2 + phi(z) * sum_{j>=0} z**(2j+1) / (1*3*5*...*(2j+1)), phi(z) =
    exp(-z**2/2) / sqrt(2 pi): the positive-term series of Marsaglia (2004, "Evaluating the
    Normal Distribution", J. Stat. Softw. 11(4)), with no cancellation. Newton's method
    z <- z + (p - Phi(z)) / phi(z) starts at 0; for p > 1/2 Phi is concave on [0, inf), so the
    iterates rise monotonically to the root. p < 1/2 uses z(p) = -z(1 - p).
    """
    if probability == Fraction(1, 2):
        return Decimal(0)
    if probability < Fraction(1, 2):
        return -_normal_quantile_decimal(1 - probability)
    with localcontext(_context()):
        target = Decimal(probability.numerator) / Decimal(probability.denominator)
        root_two_pi = (2 * _PI).sqrt()
        half = Decimal(1) / 2
        tolerance = Decimal(10) ** (10 - _PRECISION)
        z = Decimal(0)
        for _ in range(200):
            square = z * z
            total = marsaglia_series(z)
            density = (-square / 2).exp() / root_two_pi
            step = (target - (half + density * total)) / density
            z += step
            if abs(step) < tolerance:
                break
        return +z


# Below this tail (p or 1 - p), Phi's series at 60 digits can no longer tell p from 0 or 1
# to a double's precision: the quantile is taken from the tail itself.
FAR_TAIL = Fraction(1, 10 ** 20)
# Levels of Mills' ratio continued fraction, evaluated backwards, for t > 9 (FAR_TAIL): far
# more than the 60 digits need (a test holds it to twice as many).
MILLS_LEVELS = 400


def mills_ratio(t: Decimal, levels: int = MILLS_LEVELS) -> Decimal:
    """R(t) = Q(t) / phi(t) = 1 / (t + 1 / (t + 2 / (t + 3 / (t + ...)))) for t > 0 (Laplace's
    continued fraction, evaluated backwards from ``levels``), in the caller's context."""
    fraction = t
    for level in range(levels, 0, -1):
        fraction = t + level / fraction
    return 1 / fraction


def _far_tail_quantile_decimal(tail: Fraction) -> Decimal:
    """t > 0 with Q(t) = 1 - Phi(t) = ``tail`` (0 < tail < FAR_TAIL, so t > 9), at 60 digits:
    Newton's method on ln Q(t) - ln tail, where Q(t) = phi(t) R(t) (:func:`mills_ratio`) and
    d ln Q / dt = -1 / R(t), from t = sqrt(-2 ln tail), which lies above the root
    (Q(t) < phi(t) / t < exp(-t**2 / 2) there); ln Q is concave, so the iterates fall to it
    monotonically. Every step is relative to the tail, which the series about 0 cannot be."""
    with localcontext(_context()):
        target = Decimal(tail.numerator).ln() - Decimal(tail.denominator).ln()
        log_root_two_pi = (2 * _PI).sqrt().ln()
        tolerance = Decimal(10) ** (10 - _PRECISION)
        t = (-2 * target).sqrt()
        for _ in range(200):
            ratio = mills_ratio(t)
            step = (-t * t / 2 - log_root_two_pi + ratio.ln() - target) * ratio
            t += step
            if abs(step) < tolerance:
                break
        return +t


def normal_quantile(probability: Exact) -> float:
    """The standard normal quantile z_p = Phi^-1(p) as the double nearest its exact value.

    ``probability`` is exact (Fraction, Decimal or int ratio); 0 < p < 1. Within FAR_TAIL of
    0 or 1 (beyond |z| = 9.26) it is solved on the tail itself
    (:func:`_far_tail_quantile_decimal`).
    """
    probability = Fraction(probability)
    if not 0 < probability < 1:
        raise ValueError("a normal quantile needs 0 < p < 1")
    if probability < FAR_TAIL:
        return -to_float(_far_tail_quantile_decimal(probability))
    if 1 - probability < FAR_TAIL:
        return to_float(_far_tail_quantile_decimal(1 - probability))
    return to_float(_normal_quantile_decimal(probability))


def two_sided_z(confidence: Exact) -> float:
    """z_{1 - alpha/2} for alpha = 1 - confidence."""
    confidence = Fraction(confidence)
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie strictly between 0 and 1")
    return normal_quantile(1 - (1 - confidence) / 2)


def group_sums(values: List[Optional[Union[int, Decimal]]], size: int) -> List[Optional[Exact]]:
    """The exact sum of each run of ``size`` consecutive ``values`` (ints and Decimals), None
    for a run holding a None (an unmeasured value is never read as 0). Each sum is a Decimal
    (or the int itself, for runs of one) when the decimal context holds it exactly, else a
    Fraction. Summed column by column (``size`` passes of C-level additions), not group by
    group.

    >>> group_sums([1, Decimal("0.5"), 2, Decimal("1.25")], 2)
    [Decimal('1.5'), Decimal('3.25')]
    >>> group_sums([1, Decimal("0.5"), 2, None], 2)
    [Fraction(3, 2), None]
    """
    if None not in values:
        measured = cast("List[Union[int, Decimal]]", values)  # no None among them
        sums = measured[0::size]
        try:
            for offset in range(1, size):
                sums = list(map(_EXACT.add, sums, measured[offset::size]))
            return list(sums)
        except Inexact:
            pass
    found: List[Optional[Exact]] = []
    for start in range(0, len(values), size):
        group = values[start:start + size]
        found.append(None if None in group else
                     sum((Fraction(value) for value in group if value is not None),
                         Fraction(0)))
    return found


def add_exact(total: Optional[Exact], value: Optional[Exact]) -> Optional[Exact]:
    """``total + value`` exactly (None when either is None): in the exact decimal context
    while it holds the sum, else as Fractions.

    >>> add_exact(Decimal("0.1"), Decimal("0.2")), add_exact(None, 1)
    (Decimal('0.3'), None)
    """
    if total is None or value is None:
        return None
    if isinstance(total, Fraction) or isinstance(value, Fraction):
        return Fraction(total) + Fraction(value)  # a sum the decimal context could not hold
    try:
        return _EXACT.add(total, value)
    except Inexact:
        return Fraction(total) + Fraction(value)
