"""Write the SWE-bench fixture of the explain tests with SWE-bench's own code (swebench
5.0.2): a working folder as SWE-bench's evaluation leaves it, each run's summary
(``make_run_report``) beside ``logs/run_evaluation/<run_id>/<model>/<instance>/`` with the
instance's ``patch.diff``, ``test_output.txt`` and ``report.json``, the report graded from
the test output by SWE-bench itself (``get_eval_report`` with its pytest log parser, the
tests' status included, as ``run_evaluation`` writes it).

Not part of the suite and not a dependency of the product: evaluating patches needs Docker
and the repositories, so the tests' output is scripted; run this by hand in a virtual
environment where swebench is installed (``python -m pip install swebench==5.0.2``)::

    python make_swebench_explain.py [OUTPUT_FOLDER]

Two instances of a made-up repository, two runs per system (a run is one attempt per
instance), written to ``OUTPUT_FOLDER/swebench_explain/``:

- the baseline (``acme/agent-v1``) resolves both in both runs;
- the candidate (``acme/agent-v2``) resolves ``acme__widgets-202`` and not
  ``acme__widgets-201``: its patch leaves the test the instance is about failing
  (``FAIL_TO_PASS``), and in its second run breaks a test that passed (``PASS_TO_PASS``).
"""

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from swebench.harness.constants import (END_TEST_OUTPUT, LOG_REPORT, LOG_TEST_OUTPUT,
                                        RUN_EVALUATION_LOG_DIR, START_TEST_OUTPUT)
from swebench.harness.grading import get_eval_report
from swebench.harness.reporting import make_run_report
from swebench.harness.utils import make_test_spec

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = {
    "acme__widgets-201": (["tests/test_widgets.py::test_resize_keeps_ratio"],
                          ["tests/test_widgets.py::test_create"]),
    "acme__widgets-202": (["tests/test_widgets.py::test_rename_strips_spaces"],
                          ["tests/test_widgets.py::test_create"]),
}
PATCHES = {
    ("acme/agent-v1", "acme__widgets-201"): "--- a/widgets.py\n+++ b/widgets.py\n@@ -10 +10 @@\n"
                                            "-    height = width\n+    height = width / ratio\n",
    ("acme/agent-v2", "acme__widgets-201"): "--- a/widgets.py\n+++ b/widgets.py\n@@ -10 +10 @@\n"
                                            "-    height = width\n+    height = width * 2\n",
}
DEFAULT_PATCH = ("--- a/widgets.py\n+++ b/widgets.py\n@@ -20 +20 @@\n"
                 "-    self.name = name\n+    self.name = name.strip()\n")
# Per system, per run: the tests that fail, by instance.
RUNS = {
    "acme/agent-v1": [{}, {}],
    "acme/agent-v2": [{"acme__widgets-201": ["tests/test_widgets.py::test_resize_keeps_ratio"]},
                      {"acme__widgets-201": ["tests/test_widgets.py::test_resize_keeps_ratio",
                                             "tests/test_widgets.py::test_create"]}],
}


def instance(instance_id):
    fail_to_pass, pass_to_pass = TESTS[instance_id]
    return {"instance_id": instance_id, "image": "acme/widgets:%s" % instance_id,
            "eval_script": "#!/bin/bash\npytest tests/test_widgets.py\n",
            "repo": "acme/widgets", "version": "1.0", "FAIL_TO_PASS": json.dumps(fail_to_pass),
            "PASS_TO_PASS": json.dumps(pass_to_pass), "log_parser": "parse_log_pytest",
            "eval_type": "pass_and_fail"}


def write_run(model, run_id, failing):
    """One run in the working folder: each instance's patch, test output and report, then
    the run's summary; returns the summary's path."""
    predictions = {}
    for instance_id in sorted(TESTS):
        patch = PATCHES.get((model, instance_id), DEFAULT_PATCH)
        prediction = {"instance_id": instance_id, "model_name_or_path": model,
                      "model_patch": patch}
        predictions[instance_id] = prediction
        folder = Path(RUN_EVALUATION_LOG_DIR, run_id, model.replace("/", "__"), instance_id)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "patch.diff").write_text(patch)
        failed = failing.get(instance_id, [])
        lines = ["%s %s" % ("FAILED" if test in failed else "PASSED", test)
                 for tests in TESTS[instance_id] for test in tests]
        (folder / LOG_TEST_OUTPUT).write_text("\n".join(
            [START_TEST_OUTPUT] + lines + [END_TEST_OUTPUT]) + "\n")
        report = get_eval_report(make_test_spec(instance(instance_id)), prediction,
                                 str(folder / LOG_TEST_OUTPUT), include_tests_status=True)
        (folder / LOG_REPORT).write_text(json.dumps(report, indent=4))
    dataset = [{"instance_id": instance_id} for instance_id in sorted(TESTS)]
    return make_run_report(predictions, dataset, run_id, None, os.getcwd())


def main(output):
    target = os.path.join(os.path.abspath(output), "swebench_explain")
    start = os.getcwd()
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)
        try:
            for model, runs in sorted(RUNS.items()):
                role = "baseline" if model.endswith("v1") else "candidate"
                for number, failing in enumerate(runs, 1):
                    write_run(model, "%s-run%d" % (role, number), failing)
        finally:
            os.chdir(start)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(work, target)
    print(sorted(os.listdir(target)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "fixtures"))
