"""``python -m proagents_bench``: the same command as ``run_benchmark.py``."""

from .cli import run

if __name__ == "__main__":  # not when a child process imports it (multiprocessing's spawn)
    run()
