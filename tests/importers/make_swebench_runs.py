"""Write the SWE-bench fixtures with SWE-bench's own report code: each run summary is written
by ``swebench.harness.reporting.make_run_report`` (swebench 5.0.2), from the run's
predictions and the per-instance ``report.json`` files its evaluation leaves under
``logs/run_evaluation/<run_id>/<model>/<instance>/`` (the map ``get_eval_report`` returns:
``{instance: {"patch_is_None": ..., "patch_exists": ..., "patch_successfully_applied": ...,
"resolved": ...}}``), and the instance's ``test_output.txt``, from which SWE-bench itself
classifies an environment failure (``infra_failure_ids``).

Not part of the suite and not a dependency of the product: evaluating patches needs Docker
and the repositories, so the outcomes are scripted; run this by hand in a virtual
environment where swebench is installed (``python -m pip install swebench==5.0.2``)::

    python make_swebench_runs.py [OUTPUT_FOLDER]

Five instances of a made-up repository (``acme__widgets-101`` to ``-105``), three runs per
system (a run is one attempt per instance):

- ``swebench_baseline_run1.json`` .. ``run3.json`` (model ``acme/agent-v1``): resolves 101
  and 102 in every run, 103 in one, never 104 (its patch fails the tests) nor 105 (no
  patch in run 1: ``empty_patch_ids``);
- ``swebench_candidate_run1.json`` .. ``run3.json`` (model ``acme/agent-v2``): resolves
  101, 102, 103 and 104 in every run and 105 in two; in run 2 instance 105's container
  could not start (``Cannot connect to the Docker daemon``): an error that SWE-bench
  classifies as an environment failure (``infra_failure_ids``);
- ``swebench_incomplete.json``: a baseline run whose predictions lack instance 104
  (``incomplete_ids``);
- ``swebench_subset_baseline_run1.json`` .. ``run3.json`` and ``swebench_subset_candidate_
  run1.json`` .. ``run3.json``: the same runs evaluated against a dataset of twenty instances
  (``acme__widgets-101`` to ``-120``), of which the runs submitted the five: a run on part
  of a dataset, its other fifteen instances in ``incomplete_ids``.

Runs that are not evidence, and the reference runs (the validity audit), of ten instances of
another made-up repository (``acme__gadgets-201`` to ``-210``), two runs per system:

- ``swebench_errors_baseline_run1.json`` and ``run2.json`` (``acme/agent-v1``): resolves
  201 to 206, not 207 to 209; in run 2 instance 210's image did not build (``error_ids``);
- ``swebench_errors_candidate_run1.json`` and ``run2.json`` (``acme/agent-v2``): in run 1
  nine of the ten instances errored (the evaluation wrote no report: their images did not
  build), 201 resolved; run 2 resolves 201 to 207;
- ``swebench_gold_run1.json`` and ``run2.json``: SWE-bench's gold patches (``gold``, the
  reference solutions): every instance resolved but 207, whose gold patch fails its own
  tests (a broken task);
- ``swebench_empty_run1.json`` and ``run2.json``: a do-nothing agent (``empty``): no patch
  for any instance (``empty_patch_ids``).
"""

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from swebench.harness.constants import (LOG_REPORT, LOG_TEST_OUTPUT,
                                        RUN_EVALUATION_LOG_DIR)
from swebench.harness.reporting import make_run_report

HERE = os.path.dirname(os.path.abspath(__file__))
INSTANCES = ["acme__widgets-%d" % number for number in range(101, 106)]
# The dataset of the subset runs: the five instances and fifteen more none of them ran.
DATASET = ["acme__widgets-%d" % number for number in range(101, 121)]
# Per run, per instance: "resolved", "unresolved", "empty" (no patch), "infra" (the
# container never started: no report, an environment failure in its log), or None (no
# prediction at all).
BASELINE = [
    {"101": "resolved", "102": "resolved", "103": "resolved", "104": "unresolved",
     "105": "empty"},
    {"101": "resolved", "102": "resolved", "103": "unresolved", "104": "unresolved",
     "105": "unresolved"},
    {"101": "resolved", "102": "resolved", "103": "unresolved", "104": "unresolved",
     "105": "unresolved"},
]
CANDIDATE = [
    {"101": "resolved", "102": "resolved", "103": "resolved", "104": "resolved",
     "105": "resolved"},
    {"101": "resolved", "102": "resolved", "103": "resolved", "104": "resolved",
     "105": "infra"},
    {"101": "resolved", "102": "resolved", "103": "resolved", "104": "resolved",
     "105": "resolved"},
]
INCOMPLETE = {"101": "resolved", "102": "resolved", "103": "resolved", "104": None,
              "105": "unresolved"}


# The validity runs' instances, and per run, per instance (by its number) its outcome, as
# above, or "error": the evaluation wrote no report (the image did not build), in words
# SWE-bench's classifier does not take for an environment failure.
GADGETS = ["acme__gadgets-%d" % number for number in range(201, 211)]
ERRORS_BASELINE = [
    dict({str(number): "resolved" for number in range(201, 207)},
         **{"207": "unresolved", "208": "unresolved", "209": "unresolved",
            "210": "unresolved"}),
    dict({str(number): "resolved" for number in range(201, 207)},
         **{"207": "unresolved", "208": "unresolved", "209": "unresolved", "210": "error"}),
]
ERRORS_CANDIDATE = [
    dict({str(number): "error" for number in range(202, 211)}, **{"201": "resolved"}),
    dict({str(number): "resolved" for number in range(201, 208)},
         **{"208": "unresolved", "209": "unresolved", "210": "unresolved"}),
]
GOLD = [dict({str(number): "resolved" for number in range(201, 211)}, **{"207": "unresolved"})
        ] * 2
EMPTY = [{str(number): "empty" for number in range(201, 211)}] * 2


def write_run(work, model, run_id, outcomes, name, output, dataset_ids=INSTANCES,
              instances=INSTANCES):
    """One run: its predictions, the evaluation's per-instance files, then SWE-bench's
    summary of it against the dataset ``dataset_ids``, copied to ``output/name``."""
    os.chdir(work)
    predictions = {}
    for instance in instances:
        outcome = outcomes[instance.rsplit("-", 1)[1]]
        if outcome is None:
            continue
        patch = "" if outcome == "empty" else "diff --git a/widgets.py b/widgets.py\n"
        predictions[instance] = {"instance_id": instance, "model_name_or_path": model,
                                 "model_patch": patch}
        if outcome == "empty":
            continue  # no patch: the evaluation never runs it
        folder = Path(RUN_EVALUATION_LOG_DIR, run_id, model.replace("/", "__"), instance)
        folder.mkdir(parents=True, exist_ok=True)
        if outcome == "infra":
            (folder / LOG_TEST_OUTPUT).write_text(
                "docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock.\n")
            continue
        if outcome == "error":
            (folder / LOG_TEST_OUTPUT).write_text(
                "BuildImageError: failed to build image sweb.eval.x86_64.%s\n" % instance)
            continue
        report = {instance: {"patch_is_None": False, "patch_exists": True,
                             "patch_successfully_applied": True,
                             "resolved": outcome == "resolved"}}
        (folder / LOG_REPORT).write_text(json.dumps(report, indent=4))
    dataset = [{"instance_id": instance} for instance in dataset_ids]
    written = make_run_report(predictions, dataset, run_id, None, str(work))
    shutil.copyfile(written, os.path.join(output, name))


def main():
    output = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                             os.path.join(HERE, "fixtures"))
    start = os.getcwd()
    with tempfile.TemporaryDirectory() as work:
        try:
            for role, model, runs in (("baseline", "acme/agent-v1", BASELINE),
                                      ("candidate", "acme/agent-v2", CANDIDATE)):
                for number, outcomes in enumerate(runs, 1):
                    write_run(work, model, "%s-run%d" % (role, number), outcomes,
                              "swebench_%s_run%d.json" % (role, number), output)
            write_run(work, "acme/agent-v1", "baseline-short", INCOMPLETE,
                      "swebench_incomplete.json", output)
            for role, model, runs in (("baseline", "acme/agent-v1", BASELINE),
                                      ("candidate", "acme/agent-v2", CANDIDATE)):
                for number, outcomes in enumerate(runs, 1):
                    write_run(work, model, "%s-subset-run%d" % (role, number), outcomes,
                              "swebench_subset_%s_run%d.json" % (role, number), output,
                              DATASET)
            for role, model, runs in (("errors_baseline", "acme/agent-v1", ERRORS_BASELINE),
                                      ("errors_candidate", "acme/agent-v2", ERRORS_CANDIDATE),
                                      ("gold", "gold", GOLD), ("empty", "empty", EMPTY)):
                for number, outcomes in enumerate(runs, 1):
                    write_run(work, model, "%s-run%d" % (role, number), outcomes,
                              "swebench_%s_run%d.json" % (role, number), output, GADGETS,
                              GADGETS)
        finally:
            os.chdir(start)


if __name__ == "__main__":
    main()
