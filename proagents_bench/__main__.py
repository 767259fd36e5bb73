"""``python -m proagents_bench``: the same command as ``run_benchmark.py``."""

from .cli import run

run()
