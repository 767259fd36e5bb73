"""Shared helpers of the test suite: example packages, temporary files, running the gate.

One way to run a package, in three forms: :func:`run_package` (write the parts, run the
command line in this process, return its :class:`Run`: status, stdout, stderr, document),
:func:`evaluate_package` (the same through the library: the :class:`Evaluation`), and
:func:`run_subprocess` (the command line as a user runs it, in a child process).
"""

import copy
import io
import json
import os
import subprocess
import sys
import tempfile

from proagents_bench import cli, pipeline
from proagents_bench.cli import gate_command

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
RUN_BENCHMARK = os.path.join(ROOT, "run_benchmark.py")


def example_path(name):
    return os.path.join(EXAMPLES, name)


def load_example(name):
    """An example file as plain JSON data (floats, for editing in tests)."""
    with open(example_path(name), "rb") as handle:
        return json.loads(handle.read().decode("utf-8"))


def example_package():
    """Deep copies of the example spec, cases and PASS results."""
    return (load_example("benchmark_spec.json"), load_example("benchmark_cases.json"),
            load_example("benchmark_results_pass.json"))


EXAMPLE_FILES = {"--spec": "benchmark_spec.json", "--cases": "benchmark_cases.json",
                 "--results": "benchmark_results_pass.json"}


def with_example(arguments):
    """Gate ``arguments`` with the example's file named for every input they do not name: the
    gate lets the example complete only the example's own files (cli.missing_input)."""
    return list(arguments) + [word for option, name in EXAMPLE_FILES.items()
                              if option not in arguments
                              for word in (option, example_path(name))]


class TempDir:
    """A temporary directory for written packages, removed by ``cleanup``."""

    def __init__(self, test_case):
        self._dir = tempfile.TemporaryDirectory()
        test_case.addCleanup(self._dir.cleanup)
        self.path = self._dir.name

    def write_json(self, name, value):
        return self.write_bytes(name, json.dumps(value, indent=1).encode("utf-8"))

    def write_bytes(self, name, data):
        path = os.path.join(self.path, name)
        with open(path, "wb") as handle:
            handle.write(data)
        return path

    def package(self, spec=None, cases=None, results=None):
        """Write the given parts (the example's where None); return CLI arguments."""
        default_spec, default_cases, default_results = example_package()
        return [
            "--spec", self.write_json("spec.json", default_spec if spec is None else spec),
            "--cases", self.write_json("cases.json", default_cases if cases is None else cases),
            "--results", self.write_json("results.json",
                                         default_results if results is None else results),
        ]


class Run:
    """The outcome of one in-process CLI run."""

    def __init__(self, status, stdout, stderr):
        self.status = status
        self.stdout = stdout
        self.stderr = stderr

    @property
    def document(self):
        return json.loads(self.stdout.decode("ascii"))


def run_cli(args):
    """Run the CLI in this process with ``args``; capture stdout bytes and stderr text."""
    out = io.BytesIO()
    err = io.StringIO()
    status = cli.main(list(args), stdout=out, stderr=err)
    return Run(status, out.getvalue(), err.getvalue())


def run_subprocess(args, cwd=None, env=None, python=None, flags=(), timeout=120):
    """Run ``run_benchmark.py`` as a user would; return a :class:`Run` (stderr decoded).

    ``flags`` are interpreter options such as ``-O``."""
    command = [python or sys.executable, "-B"] + list(flags) + [RUN_BENCHMARK] + list(args)
    full_env = dict(os.environ)
    full_env.update(env or {})
    completed = subprocess.run(command, cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=timeout)
    return Run(completed.returncode, completed.stdout,
               completed.stderr.decode("utf-8", "replace"))


def run_package(test, spec=None, cases=None, results=None, arguments=()):
    """Write the given parts (the example's where None) to a temporary folder and run the
    gate on them with the extra ``arguments``; return the :class:`Run`."""
    return run_cli(TempDir(test).package(spec, cases, results) + list(arguments))


def evaluate_package(test, spec=None, cases=None, results=None, candidate=None):
    """Write the given parts (the example's where None) and evaluate them in this process;
    return the :class:`~proagents_bench.pipeline.Evaluation`."""
    arguments = TempDir(test).package(spec, cases, results)
    return pipeline.evaluate([pipeline.InputFile(kind, path) for kind, path in zip(
        pipeline.KINDS, arguments[1::2])], candidate)


def evaluate_arguments(arguments):
    """The Evaluation for gate arguments (the example's files where not given)."""
    given = dict(zip(arguments[::2], arguments[1::2]))
    return pipeline.evaluate(gate_command.default_inputs(
        given.get("--spec"), given.get("--cases"), given.get("--results")))


def codes(run):
    """The (code, path) pairs of a CONTRACT_ERROR run."""
    return [(error["code"], error["path"]) for error in run.document["errors"]]


def deep(value):
    return copy.deepcopy(value)


def gate_findings(document):
    """The findings of failed gates (informational findings are never gates)."""
    return [finding for finding in document["findings"] if finding["severity"] != "info"]


def outcome_package(baseline, candidate, trials=2, families=None, version=3,
                    lower_bound="strict", unit="task", gate=0.0, trial_gate=0.0):
    """A valid package whose test task i has ``baseline[i]`` and ``candidate[i]`` passing
    trials of ``trials`` (the first ones; the rest end in an error), every gate but the
    interval gates out of the way (a task passes with half its trials), in spec
    ``version`` (1 to 4; v3 on with ``lower_bound``, v2 on with ``unit``, v4 with
    ``trial_gate``). ``families``: each task's family id (default: one family per task).
    Returns (spec, cases, results) as plain JSON data."""
    from devtools.synthetic import make_package
    count = len(baseline)
    spec, cases, results = make_package(count, trial_count=trials, seed=3)
    spec["schema_version"] = "agent-benchmark-spec-v%d" % version
    spec["gates"].update(
        task_min_trial_success_rate=0.5, critical_task_min_trial_success_rate=0.5,
        min_primary_task_success_rate=0.0, min_final_state_trial_rate=0.0,
        min_side_effect_free_trial_rate=0.0, min_trial_stability_rate=0.0,
        max_slice_task_success_gap=1.0, max_mean_latency_ms=100000,
        max_p95_latency_ms=100000, max_mean_cost_units=100, min_paired_delta_ci_low=gate)
    if version >= 2:
        spec["bootstrap"]["unit"] = unit
    if version >= 3:
        spec["bootstrap"]["lower_bound"] = lower_bound
    if version >= 4:
        spec["gates"]["min_trial_delta_ci_low"] = trial_gate
    tests = [case for case in cases["cases"] if case["split"] == "test"]
    for index, case in enumerate(tests):
        case.update(critical=False, allowed_tools=[], forbidden_side_effects=[])
        case["family_id"] = families[index] if families else "family-%d" % index
    for system, passing in zip(results["systems"], (baseline, candidate)):
        for record in system["records"]:
            index = int(record["case_id"].split("-")[1])
            case = tests[index]
            clean = record["trial_id"] <= passing[index]
            record.update(status="success" if clean else "error",
                          final_state=case["expected_final_state"] if clean else None,
                          side_effects=[], tools_used=[], latency_ms=100, cost_units=0.01)
    return spec, cases, results
