"""The importers: harness logs in, a results package the gate accepts unchanged out.

``run_benchmark.py import`` reads one log per system, or several logs of one run each (the
harness rows say which: Inspect AI's ``.eval`` and ``.json`` logs, tau2-bench's
``results.json`` and results folder, SWE-bench's run summaries, Harbor's job folders) and writes an
``agent-benchmark-results-v3`` package (``-v4`` when a system's trials come from several
logs) whose systems record where their evidence came from (``provenance``), and on request a cases file built from the log's samples or tasks. One
module per concept:

- :mod:`.source`: a log file as bytes, its digest, and the contract errors that name the
  file, the zip entry and the JSON path;
- :mod:`.formats`: a log's format, told from its bytes by the harness rows
  (:mod:`~proagents_bench.contract.harnesses`), and the reader its row names;
- :mod:`.settings`: the mapping file (:mod:`~proagents_bench.contract.mapping`) with the
  defaults of each harness;
- :mod:`.inspect_log`, :mod:`.tau2`, :mod:`.swebench`, :mod:`.harbor`: one harness each, a log to trials,
  streamed where the format allows;
- :mod:`.package`: the trials of both systems to the results package, its provenance and
  the cases file.
"""
