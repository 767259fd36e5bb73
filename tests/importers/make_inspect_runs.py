"""Write the Inspect AI fixtures of the runs a release gate must not take at face value, with
Inspect AI itself (the same order agent, scripted ``mockllm`` model and tools as
``make_inspect_logs.py``, which this script reuses).

Not part of the suite and not a dependency of the product: run it by hand in a virtual
environment that has ``inspect-ai`` installed (``python -m pip install inspect-ai``)::

    python make_inspect_runs.py OUTPUT_FOLDER

Every log holds the example's five test tasks only (no train or development sample: what a
typical log holds) and is written with deflate (as ``make_inspect_logs.py`` explains):

- ``unfinished.eval``: two epochs, ``fail_on_error=True``; the model fails on
  ``test-status``, so Inspect stops the run with status ``error`` after four samples;
- ``no_samples.eval``: two epochs with ``log_samples=False``: a finished run whose log keeps
  no sample;
- ``test_only_baseline.eval`` and ``test_only_candidate.eval``: three epochs, a message and
  a time limit, the cases' fields in the sample metadata; the candidate calls the forbidden
  ``refund_order`` on the critical ``test-safety``;
- ``default_limits.eval``: Inspect's defaults: one epoch, no message limit, no time limit;
- ``defaults_baseline.eval`` and ``defaults_candidate.eval``: Inspect's default output but for
  the one value a comparison cannot do without, three epochs (``--epochs 3``): no message
  limit, no time limit, Inspect's own compression (zstd), the cases' fields in the sample
  metadata; the candidate calls the forbidden ``refund_order`` on the critical
  ``test-safety``;
- ``errored_candidate.eval``: the candidate of ``test_only_candidate.eval`` on a day its
  model provider failed: three epochs, ``fail_on_error=False``; the first four calls of
  ``test-status`` and ``test-refund`` raise (the provider unavailable), so four of their six
  samples end in error (Inspect's ``error``, unscored) and the run finishes.
"""

import os
import shutil
import sys
import tempfile
import zipfile

from inspect_ai import Task, eval as inspect_eval
from inspect_ai.model import get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate, use_tools

import make_inspect_logs as made

HERE = os.path.dirname(os.path.abspath(__file__))


def test_samples():
    found = [sample for sample in made.samples() if sample.metadata["split"] == "test"]
    for sample in found:
        del sample.metadata["split"]  # a test-only log says nothing of splits
    return found


def run(folder, scripts, failing, task_options, **eval_options):
    expected = {sample.id: sample.target for sample in made.samples()}
    model = get_model("mockllm/model", custom_outputs=made.scripted_model(
        scripts, expected, failing))
    task = Task(dataset=test_samples(), solver=[use_tools([made.make_tool(name) for name in
                                                           made.TOOL_NAMES]), generate()],
                scorer=match(location="exact"), name="order_agent", version=1,
                **task_options)
    logs = inspect_eval(task, model=model, log_dir=folder, display="none", max_samples=1,
                        retry_on_error=0, log_images=False, **eval_options)
    return logs[0].location


LIMITS = {"message_limit": 8, "time_limit": 30}
RUNS = {
    "unfinished.eval": (made.SCRIPTS, {"test-status": [1]}, dict(LIMITS, epochs=2),
                        {"fail_on_error": True}),
    "no_samples.eval": (made.SCRIPTS, {}, dict(LIMITS, epochs=2), {"log_samples": False}),
    "test_only_baseline.eval": (made.SCRIPTS, {}, dict(LIMITS, epochs=3),
                                {"fail_on_error": False}),
    "test_only_candidate.eval": (made.CANDIDATE_SCRIPTS, {}, dict(LIMITS, epochs=3),
                                 {"fail_on_error": False}),
    "default_limits.eval": (made.SCRIPTS, {}, {}, {}),
    "errored_candidate.eval": (made.CANDIDATE_SCRIPTS,
                               {"test-status": [1, 2, 3, 4], "test-refund": [1, 2, 3, 4]},
                               dict(LIMITS, epochs=3), {"fail_on_error": False}),
}


# Inspect's default output: only the epochs are given (``eval(..., epochs=3)``, as
# ``inspect eval --epochs 3``), and Inspect's own compression is kept.
DEFAULT_OUTPUT = {
    "defaults_baseline.eval": made.SCRIPTS,
    "defaults_candidate.eval": made.CANDIDATE_SCRIPTS,
}


def run_with_defaults(folder, scripts):
    expected = {sample.id: sample.target for sample in made.samples()}
    model = get_model("mockllm/model", custom_outputs=made.scripted_model(scripts, expected, {}))
    task = Task(dataset=test_samples(), solver=[use_tools([made.make_tool(name) for name in
                                                           made.TOOL_NAMES]), generate()],
                scorer=match(location="exact"), name="order_agent", version=1)
    logs = inspect_eval(task, model=model, log_dir=folder, display="none", epochs=3)
    return logs[0].location


def main(output):
    import inspect_ai._util.zipfile as inspect_zip
    os.makedirs(output, exist_ok=True)
    work = tempfile.mkdtemp()
    default = dict(inspect_zip.zipfile_compress_kwargs)
    inspect_zip.zipfile_compress_kwargs.update(compression=zipfile.ZIP_DEFLATED,
                                               compresslevel=9)
    written = []
    try:
        for name, (scripts, failing, task_options, eval_options) in RUNS.items():
            written.append((name, run(os.path.join(work, name), scripts, failing,
                                      task_options, **eval_options)))
        inspect_zip.zipfile_compress_kwargs.clear()
        inspect_zip.zipfile_compress_kwargs.update(default)
        for name, scripts in DEFAULT_OUTPUT.items():
            written.append((name, run_with_defaults(os.path.join(work, name), scripts)))
        for name, location in written:
            target = os.path.join(output, name)
            made.rezip_without_local_paths(location, target)
            print(name, os.path.getsize(target))
    finally:
        inspect_zip.zipfile_compress_kwargs.clear()
        inspect_zip.zipfile_compress_kwargs.update(default)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "fixtures"))
