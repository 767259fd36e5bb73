"""For the people who develop and measure proagents-bench; never imported by it.

The development commands (``python -B -m devtools bench KIND ...``, ``python -B -m devtools
publish``: :mod:`devtools.commands`), the benchmarks they run, the generators of synthetic
packages and logs the tests and the benchmarks share, the false-pass enumeration and the
planner's check against the gate. Everything here imports the product (``proagents_bench``)
and nothing in the product imports it (tests/test_layers.py holds it): the wheel does not
ship it; the sdist does, for its tests.
"""

from __future__ import annotations

import os

# The checkout: the folder that holds this package, proagents_bench/, docs/ and examples/.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
