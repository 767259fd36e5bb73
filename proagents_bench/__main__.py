"""``python -m proagents_bench``: the same command as ``run_benchmark.py``."""

import sys

from .cli import main

sys.exit(main())
