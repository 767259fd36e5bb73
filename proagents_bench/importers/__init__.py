"""The importers: harness logs in, a results package the gate accepts unchanged out.

``run_benchmark.py import`` reads one log per system, or several logs of one run each (the
harness rows say which: Inspect AI's ``.eval`` and ``.json`` logs, tau2-bench's
``results.json`` and results folder, SWE-bench's run summaries, Harbor's job folders,
promptfoo's ``results.json``, JSON lines) and writes an ``agent-benchmark-results-v3``
package (``-v4`` when a system's trials come from several logs; ``-v5``, asked for, with each
record's trace reference) whose systems record where their evidence came from
(``provenance``), and on request a cases file built from the log's samples or tasks; the
trace readers read a trial's steps back from its log at its trace reference, for
``explain``. One module per concept, in three rooms:

- the toolkit every reader uses: :mod:`.source` (a log file as bytes, its digest, and the
  contract errors that name the file, the zip entry and the JSON path), :mod:`.values` (a
  log's values: a field of its kind, a time, a cost, a final state), :mod:`.trial` (what a
  reader gives back), :mod:`.settings` (the mapping file with the defaults of each
  harness), :mod:`.zstd` and :mod:`.zstd_tables` (a Zstandard decoder), :mod:`.trace` (the
  one trace model: steps), :mod:`.json_excerpt` (the parts of a JSON document wanted, read
  as it streams) and :mod:`.trace_bytes` (the bytes a trace is read from, held to their
  digest);
- the readers, one harness each, a log to trials, streamed where the format allows:
  :mod:`.inspect_log` and :mod:`.inspect_eval`, :mod:`.tau2` (with :mod:`.tau2_tools`),
  :mod:`.swebench`, :mod:`.harbor` (with :mod:`.harbor_trials`), :mod:`.promptfoo`,
  :mod:`.jsonl`; beside them the trace readers, :mod:`.inspect_trace`, :mod:`.tau2_trace`,
  :mod:`.swebench_trace`, :mod:`.harbor_trace`, :mod:`.promptfoo_trace`; each imports the
  toolkit and the contract, never another harness's module;
- the import, stage by stage: :mod:`.formats` (a log's format, told from its bytes by the
  harness rows of :mod:`~proagents_bench.contract.harnesses`, and its reader, from
  :mod:`.readers`), :mod:`.imported` (what one log becomes), :mod:`.headers` (what the headers
  decide), :mod:`.samples` (the trials), :mod:`.coverage` (across the logs),
  :mod:`.results` (the package and its provenance), :mod:`.cases` (the built cases file),
  and :mod:`.package` (the import, start to end); :mod:`.scaffold` builds a new benchmark's
  first files on it.
"""
