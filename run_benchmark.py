"""The release gate's command line: ``python -B run_benchmark.py [--spec F] [--cases F]
[--results F] [--candidate ID]``. Everything else lives in the ``proagents_bench`` package."""

import os
import sys

# Work from any directory: the package sits beside this file.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from proagents_bench.cli import main  # noqa: E402  (needs the path above)

if __name__ == "__main__":
    sys.exit(main())
