"""The sequential design's exact tables (docs/statistics.md, "Sequential decisions"):
``python -B -m devtools bench sequential`` prints them as Markdown.

- ``guarantee``: for each design of the grid (one-sided alpha 2.5% and 5%, the planned share
  of wins 0.6, 0.7, 0.8 on the discordant units, power 80%, the largest sample N 1.5 and 2
  times the fixed design's), the exact false pass over the whole design at any stopping it
  allows (futility ignored), the same with futility obeyed, the exact power, the expected
  discordant units at no effect and at the effect, their largest over the chances 0.30-0.95,
  and the fixed design of the same power;
- ``batches``: the 1.5x designs run in equal batches of units (tasks or trial pairs), each
  discordant with chance 0.3: the exact chance of a PASS with no effect and at the effect,
  the expected units run at both, unit by unit, and the fixed design in units of the same
  power;
- ``repeated``: a fixed gate (McNemar's exact one-sided test at 2.5%) looked at again after
  every batch, k equally spaced nested looks: its exact false pass.

Every figure is a rounding of an exact fraction (:mod:`proagents_bench.stats.sequential` and
the modules beside it); ``tests/devtools/test_sequential_tables.py`` holds the docs' tables
to these functions.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from math import ceil
from typing import Callable, List, NamedTuple, Sequence, Tuple

from proagents_bench.stats.discordant_paths import HALF, crossings
from proagents_bench.stats.sequential import Boundary, Design, design_boundary
from proagents_bench.stats.sequential_fixed import (characteristics, fixed_design, fixed_units,
                                                    repeated_look_false_pass)
from proagents_bench.stats.sequential_looks import looks_characteristics

ALPHAS = (Fraction(1, 40), Fraction(1, 20))
WIN_SHARES = (Fraction(3, 5), Fraction(7, 10), Fraction(4, 5))
FACTORS = (Fraction(3, 2), Fraction(2))
POWER = Fraction(4, 5)
GRID = tuple(Fraction(k, 100) for k in range(30, 96))
DISCORDANCE = Fraction(3, 10)
BATCHES = (5, 10, 20)
REPEATED_TOTALS = (20, 50, 100, 200, 500, 1000)
REPEATED_LOOKS = (1, 2, 3, 5, 10)
TABLES = ("guarantee", "batches", "repeated")


def design(alpha: Fraction, win_share: Fraction, factor: Fraction) -> Boundary:
    """The grid's design: N ``factor`` times the fixed design of power 80%."""
    fixed, _, _ = fixed_design(alpha, HALF, win_share, POWER)
    return design_boundary(Design(alpha, 1 - POWER, HALF, win_share, ceil(factor * fixed)))


def _percent(value: Fraction, places: int = 4) -> str:
    return "%.*f%%" % (places, 100 * value)


def _ratio(value: Fraction) -> str:
    return "%.1f%%" % (100 * value)


class GuaranteeRow(NamedTuple):
    alpha: Fraction
    win_share: Fraction
    factor: Fraction
    cells: Tuple[str, ...]


def guarantee_rows(alphas: Sequence[Fraction] = ALPHAS,
                   win_shares: Sequence[Fraction] = WIN_SHARES,
                   factors: Sequence[Fraction] = FACTORS) -> List[GuaranteeRow]:
    rows = []
    for alpha in alphas:
        for win_share in win_shares:
            for factor in factors:
                boundary = design(alpha, win_share, factor)
                found = characteristics(boundary, GRID)
                size = found.max_discordant
                rows.append(GuaranteeRow(alpha, win_share, factor, (
                    _percent(alpha, 1), "%s (+%s)" % (_share(win_share),
                                                     _share(win_share - HALF)),
                    "%d (%sx)" % (size, _share(factor)),
                    _percent(found.false_pass), _percent(found.false_pass_obeyed),
                    _percent(found.power, 2), "%.1f" % found.expected_null,
                    "%.1f" % found.expected_alternative,
                    "%.1f (%s)" % (found.largest_expected, _share(found.largest_expected_at)),
                    "%d" % found.fixed_size,
                    _ratio(found.expected_alternative / found.fixed_size),
                    _ratio(found.expected_null / found.fixed_size),
                    "%.2f" % (Fraction(size, found.fixed_size)))))
    return rows


def _share(value: Fraction) -> str:
    text = "%.2f" % value
    return text.rstrip("0").rstrip(".")


GUARANTEE_HEADER = (
    "| alpha | win share (effect on the discordant scale) | N (x fixed) | exact false pass, "
    "futility ignored: the guarantee | futility obeyed | power | E[n] no effect | E[n] at "
    "the effect | largest E[n] (at share) | fixed n, same power | E[n] at the effect / "
    "fixed | E[n] no effect / fixed | worst / fixed |\n"
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


class BatchRow(NamedTuple):
    alpha: Fraction
    win_share: Fraction
    batches: int
    saving: Fraction
    cells: Tuple[str, ...]


def batch_rows(alphas: Sequence[Fraction] = ALPHAS, win_shares: Sequence[Fraction] = WIN_SHARES,
               counts: Sequence[int] = BATCHES,
               rate: Fraction = DISCORDANCE) -> List[BatchRow]:
    rows = []
    for alpha in alphas:
        for win_share in win_shares:
            boundary = design(alpha, win_share, Fraction(3, 2))
            size = boundary.design.max_discordant
            last = ceil(size / rate)
            unit_by_unit = crossings(boundary, win_share).expected_discordant() / rate
            for count in counts:
                step = ceil(Fraction(last, count))
                looks = [step * k for k in range(1, count + 1)]
                null_pass, null_units = looks_characteristics(boundary, looks, rate, HALF)
                power, units = looks_characteristics(boundary, looks, rate, win_share)
                fixed, _ = fixed_units(alpha, HALF, win_share, power, rate)
                saving = units / fixed
                rows.append(BatchRow(alpha, win_share, count, saving, (
                    _percent(alpha, 1), "%s (+%s)" % (_share(win_share), _share(
                        rate * (2 * win_share - 1))), "%d" % size,
                    "%d x %d (%d)" % (count, step, looks[-1]), _percent(null_pass),
                    _percent(power, 2), "%.1f" % null_units, "%.1f" % units,
                    "%.1f" % unit_by_unit, "%d" % fixed, _ratio(saving),
                    _ratio(null_units / fixed), "%.2f" % Fraction(looks[-1], fixed))))
    return rows


BATCH_HEADER = (
    "| alpha | win share (effect at q = 0.3) | N | looks x units (last) | P(PASS) no effect "
    "| power | E[units] no effect | E[units] at the effect | unit by unit (E[n]/q) | fixed "
    "units, same power | E at the effect / fixed | E no effect / fixed | worst / fixed |\n"
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def repeated_rows(totals: Sequence[int] = REPEATED_TOTALS,
                  looks: Sequence[int] = REPEATED_LOOKS,
                  alpha: Fraction = Fraction(1, 40)) -> List[Tuple[str, ...]]:
    rows = []
    for total in totals:
        cells = ["%d" % total]
        for count in looks:
            sizes = sorted(set(max(1, (total * k) // count) for k in range(1, count + 1)))
            cells.append(_percent(repeated_look_false_pass(sizes, alpha), 2))
        rows.append(tuple(cells))
    return rows


def repeated_header(looks: Sequence[int] = REPEATED_LOOKS) -> str:
    return ("| discordant units at the last look | %s |\n|---:|%s" % (
        " | ".join("%d look%s" % (count, "" if count == 1 else "s") for count in looks),
        "---:|" * len(looks)))


def table(kind: str) -> str:
    """The Markdown table ``kind`` (one of :data:`TABLES`)."""
    if kind == "guarantee":
        return _markdown(GUARANTEE_HEADER, [row.cells for row in guarantee_rows()])
    if kind == "batches":
        return _markdown(BATCH_HEADER, [row.cells for row in batch_rows()])
    if kind == "repeated":
        return _markdown(repeated_header(), repeated_rows())
    raise ValueError("no table %r" % kind)


def _markdown(header: str, rows: Sequence[Sequence[str]]) -> str:
    return header + "\n" + "\n".join("| %s |" % " | ".join(row) for row in rows) + "\n"


def sequential_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """``bench sequential [--table KIND]``: the tables, as Markdown, on stdout."""
    for kind in ([options.table] if options.table else TABLES):
        say(table(kind))
    return True
