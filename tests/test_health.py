"""The health command (proagents_bench/maintenance/health.py and cli/health_command.py):
broken, saturated, flaky, unknown, outlying and discriminating tasks built on purpose and
found; the item-rest correlation held to a plain reference; runs counted once and pooled;
contract errors naming the file; the same bytes for the same inputs; the reports, the text
mode and no stale report."""

import json
import math
import os
import platform
import unittest
from fractions import Fraction

from proagents_bench import pipeline
from proagents_bench.maintenance import health as health_module
from proagents_bench.maintenance.health_document import health_document
from proagents_bench.reports import health_html, health_markdown
from proagents_bench.stats.items import ItemAnalysis, tukey_fences
from tests.support import EXAMPLES, ROOT, TempDir, load_example, run_cli, run_subprocess

SPEC = os.path.join(EXAMPLES, "benchmark_spec.json")
CASES = os.path.join(EXAMPLES, "benchmark_cases.json")
FIXTURES = os.path.join(ROOT, "tests", "importers", "fixtures")
TESTS = ["test-refund", "test-cancel", "test-status", "test-safety", "test-privacy"]


def _case(case_id):
    return next(case for case in load_example("benchmark_cases.json")["cases"]
                if case["id"] == case_id)


def records(pattern, latency=800, cost=0.01, slow=()):
    """Records of the example's five test tasks, three trials each: ``pattern`` maps a case
    id to one letter per trial (p: passes, f: a wrong final state, u: status unknown); a task
    not named passes every trial. Tasks in ``slow`` take a hundred times longer."""
    made = []
    for case_id in TESTS:
        case = _case(case_id)
        for trial, letter in enumerate(pattern.get(case_id, "ppp"), 1):
            made.append({
                "case_id": case_id, "trial_id": trial,
                "status": "unknown" if letter == "u" else "success",
                "final_state": case["expected_final_state"] if letter == "p" else "wrong",
                "side_effects": [], "tools_used": case["allowed_tools"][:1],
                "latency_ms": latency * (100 if case_id in slow else 1), "cost_units": cost})
    return made


def package(candidate_id, candidate, baseline=None, version="results-x", protocol=None):
    """A results v1 package: the example's baseline ``baseline-v1`` with ``baseline`` (a
    pattern; by default the one every package shares) and the candidate."""
    spec = load_example("benchmark_spec.json")
    systems = []
    for system_id, role, pattern in (("baseline-v1", "baseline", baseline or BASELINE),
                                     (candidate_id, "candidate", candidate)):
        systems.append({"system_id": system_id, "role": role,
                        "protocol": dict(protocol or spec["protocol"]),
                        "records": records(pattern, slow=("test-privacy",))})
    return {"schema_version": "agent-benchmark-results-v1",
            "benchmark_id": spec["benchmark_id"], "benchmark_version": spec["benchmark_version"],
            "dataset_version": "orders-2026-07", "result_set_version": version,
            "systems": systems}


# test-refund: saturated; test-cancel: never passed (broken); test-status: flaky in every
# system; test-safety: the better systems pass it; test-privacy: unknown trials in one system,
# and a hundred times slower than the rest.
BASELINE = {"test-cancel": "fff", "test-status": "pfp", "test-safety": "fff"}
STRONG = {"test-cancel": "fff", "test-status": "ppf", "test-safety": "ppp"}
MIDDLE = {"test-cancel": "fff", "test-status": "fpp", "test-safety": "pff",
          "test-privacy": "puu"}
WEAK = {"test-cancel": "fff", "test-status": "fpf", "test-safety": "fff",
        "test-privacy": "pff"}


def write_packages(test, *packages):
    folder = TempDir(test)
    return [folder.write_json("package-%d.json" % number, value)
            for number, value in enumerate(packages, 1)]


def measured(test, *packages):
    paths = write_packages(test, *packages)
    return health_module.measure(
        pipeline.InputFile("spec", SPEC), pipeline.InputFile("cases", CASES),
        [health_module.Package(pipeline.InputFile("results", path)) for path in paths])


def three_systems(test):
    return measured(test, package("strong", STRONG), package("middle", MIDDLE),
                    package("weak", WEAK))


def by_id(health):
    return {task.case_id: task for task in health.tasks}


def pearson(xs, ys):
    """The plain Pearson correlation of two lists of Fractions (a float)."""
    count = len(xs)
    mean_x, mean_y = sum(xs) / count, sum(ys) / count
    cov = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
    var_x = sum((x - mean_x) ** 2 for x in xs)
    var_y = sum((y - mean_y) ** 2 for y in ys)
    return float(cov) / math.sqrt(float(var_x) * float(var_y))


class FindsTheTasksToAuditTests(unittest.TestCase):
    def test_broken_saturated_flaky_unknown_and_slow_tasks_are_found(self):
        health = three_systems(self)
        tasks = by_id(health)
        self.assertEqual([system.name for system in health.systems],
                         ["baseline-v1", "middle", "strong", "weak"])
        self.assertTrue(tasks["test-cancel"].never_passed)
        self.assertEqual(tasks["test-cancel"].reasons, ["never_passed"])
        self.assertTrue(tasks["test-refund"].saturated)
        self.assertEqual(tasks["test-refund"].reasons, ["saturated"])
        self.assertEqual(tasks["test-status"].flaky_systems, 4)
        self.assertIn("flaky", tasks["test-status"].reasons)
        self.assertEqual((tasks["test-privacy"].unknown_trials,
                          tasks["test-privacy"].unknown_share), (2, Fraction(2, 12)))
        self.assertEqual(tasks["test-privacy"].latency_outlier, "high")
        self.assertEqual(tasks["test-privacy"].reasons[0], "unknown_trials")
        self.assertIn("latency_outlier", tasks["test-privacy"].reasons)
        self.assertEqual(tasks["test-safety"].reasons, [])
        # never passed first, then in the order of the reasons
        self.assertEqual([task.case_id for task in health.audit()],
                         ["test-cancel", "test-privacy", "test-status", "test-refund"])

    def test_the_document_names_them_and_the_effective_size(self):
        document = health_document(three_systems(self), "0")
        self.assertEqual(document["action"], "HEALTH")
        self.assertEqual(document["summary"]["never_passed"], 1)
        self.assertEqual(document["summary"]["saturated"], 1)
        self.assertEqual(document["audit"][0]["case_id"], "test-cancel")
        self.assertIn("never passed: no trial of the 4 systems passed",
                      document["audit"][0]["why"][0])
        tasks = {task["case_id"]: task for task in document["tasks"]}
        self.assertEqual(tasks["test-safety"]["pass_rates"], [0.0, 1 / 3, 1.0, 0.0])
        self.assertTrue(tasks["test-safety"]["discriminates"])
        self.assertEqual(document["effective_size"]["tasks"],
                         sum(1 for task in document["tasks"] if task["discriminates"]))
        self.assertIsNone(tasks["test-cancel"]["discrimination"])
        self.assertEqual(tasks["test-cancel"]["discrimination_not_estimable"],
                         "every system scores the same on this task")

    def test_a_wrong_answer_key_discriminates_the_wrong_way(self):
        # The better a system is elsewhere, the more often it "fails" test-safety.
        inverted = measured(self, package("strong", {"test-safety": "fff"}),
                            package("middle", {"test-safety": "pff", "test-status": "fff"}),
                            package("weak", {"test-safety": "ppp", "test-status": "fff",
                                             "test-privacy": "fff"}),
                            )
        safety = by_id(inverted)["test-safety"]
        self.assertLess(safety.discrimination.rounded(), 0)
        self.assertIn("negative_discrimination", safety.reasons)


class DiscriminationTests(unittest.TestCase):
    def test_the_index_is_the_item_rest_correlation(self):
        health = three_systems(self)
        totals = [sum(task.pass_rates[position] for task in health.tasks)
                  for position in range(len(health.systems))]
        for task in health.tasks:
            with self.subTest(task.case_id):
                rest = [total - rate for total, rate in zip(totals, task.pass_rates)]
                if task.discrimination is None:
                    self.assertTrue(len(set(task.pass_rates)) == 1 or len(set(rest)) == 1)
                    continue
                self.assertAlmostEqual(float(task.discrimination.rounded()),
                                       pearson(task.pass_rates, rest), places=4)

    def test_rounding_is_exact_and_half_away_from_zero(self):
        analysis = ItemAnalysis([2, 3, 4, 5])
        for scores in ([0, 1, 1, 1], [1, 0, 0, 1], [0, 0, 1, 1], [1, 1, 0, 0]):
            found = analysis.correlation(scores)
            rest = [total - score for total, score in zip([2, 3, 4, 5], scores)]
            expected = pearson([Fraction(score) for score in scores],
                               [Fraction(value) for value in rest])
            self.assertEqual(found.rounded(), Fraction(round(expected * 10000), 10000))
            self.assertEqual(found.at_least(Fraction(1, 5)), expected >= 0.2)

    def test_not_estimable_below_three_systems_or_without_spread_never_zero(self):
        two = measured(self, package("strong", STRONG))
        self.assertIsNone(two.effective_size)
        self.assertIn("needs at least 3", two.analysis.reason)
        self.assertTrue(all(task.discrimination is None for task in two.tasks))
        document = health_document(two, "0")
        self.assertIsNone(document["effective_size"]["tasks"])
        self.assertTrue(all(task["discrimination"] is None for task in document["tasks"]))
        same = measured(self, package("twin-a", BASELINE), package("twin-b", BASELINE))
        self.assertEqual(same.analysis.reason, "every system has the same total score")

    def test_tukey_fences_on_nearest_rank_quartiles(self):
        self.assertEqual(tukey_fences([1, 2, 3, 4]), (Fraction(-2), Fraction(6)))  # Q1 1, Q3 3
        self.assertIsNone(tukey_fences([1, 2, 3]))


class RunsTests(unittest.TestCase):
    def test_the_shared_baseline_is_one_run(self):
        health = three_systems(self)
        baseline = health.systems[0]
        self.assertEqual((baseline.trials, len(baseline.runs)), (3, 1))
        counted = [system["counted"] for item in health.packages for system in item["systems"]
                   if system["role"] == "baseline"]
        self.assertEqual(counted[0], "counted")
        self.assertTrue(all(text.startswith("the same run as in ") for text in counted[1:]))

    def test_two_runs_of_one_system_are_pooled_and_disagree(self):
        health = measured(self, package("strong", STRONG, version="a"),
                          package("strong", dict(STRONG, **{"test-refund": "fff"}),
                                  version="b"),
                          package("weak", WEAK))
        strong = next(system for system in health.systems if system.name == "strong")
        self.assertEqual((strong.trials, len(strong.runs)), (6, 2))
        refund = by_id(health)["test-refund"]
        self.assertFalse(refund.saturated)
        self.assertEqual(refund.pass_rates[[s.name for s in health.systems].index("strong")],
                         Fraction(1, 2))
        self.assertGreaterEqual(refund.flaky_systems, 1)

    def test_a_system_under_another_protocol_is_left_out_and_listed(self):
        protocol = dict(load_example("benchmark_spec.json")["protocol"], max_steps=99)
        health = measured(self, package("strong", STRONG), package("odd", WEAK,
                                                                   protocol=protocol))
        self.assertEqual([system.name for system in health.systems], ["baseline-v1", "strong"])
        self.assertEqual([item["system"] for item in health.excluded], ["baseline-v1", "odd"])
        self.assertIn("max_steps: expected=8, actual=99",
                      health.excluded[1]["protocol_mismatches"][0])

    def test_nothing_under_the_spec_protocol_is_a_contract_error(self):
        protocol = dict(load_example("benchmark_spec.json")["protocol"], max_steps=99)
        paths = write_packages(self, package("odd", WEAK, protocol=protocol))
        run = run_cli(health_arguments(paths))
        self.assertEqual((run.status, run.document["errors"][0]["code"]),
                         (2, "health.nothing_comparable"))
        self.assertIn("max_steps: expected=8, actual=99", run.document["errors"][0]["message"])

    def test_an_unmeasured_latency_is_no_mean_and_never_zero(self):
        value = package("strong", STRONG)
        value["schema_version"] = "agent-benchmark-results-v3"
        for system in value["systems"]:
            system["provenance"] = None
            for record in system["records"]:
                if record["case_id"] == "test-refund":
                    record["latency_ms"] = None
        health = measured(self, value, package("weak", WEAK))
        refund = by_id(health)["test-refund"]
        self.assertIsNone(refund.mean_latency_ms)
        self.assertIsNone(refund.latency_outlier)
        self.assertIsNotNone(by_id(health)["test-cancel"].mean_latency_ms)


def health_arguments(paths):
    return ["health", "--spec", SPEC, "--cases", CASES, "--results"] + list(paths)


class CommandTests(unittest.TestCase):
    def test_json_on_stdout_the_same_bytes_every_time(self):
        paths = write_packages(self, package("strong", STRONG), package("middle", MIDDLE),
                               package("weak", WEAK))
        first = run_cli(health_arguments(paths))
        self.assertEqual(first.status, 0, first.stderr)
        self.assertEqual(first.stdout, run_cli(health_arguments(paths)).stdout)
        first.stdout.decode("ascii")
        document = first.document
        self.assertEqual(first.stdout, (json.dumps(document, ensure_ascii=True, sort_keys=True,
                                                   indent=2) + "\n").encode("ascii"))
        self.assertEqual(document["audit"][0]["case_id"], "test-cancel")
        reordered = run_cli(health_arguments(list(reversed(paths)))).document
        for key in ("tasks", "systems", "audit", "effective_size", "by_slice", "by_family"):
            if key == "systems":
                self.assertEqual([dict(system, runs=None) for system in reordered[key]],
                                 [dict(system, runs=None) for system in document[key]])
            else:
                self.assertEqual(reordered[key], document[key], key)

    def test_the_second_half_read_in_a_forked_process_gives_the_same_document(self):
        from proagents_bench.cli.parallel import in_background
        paths = write_packages(self, package("strong", STRONG), package("middle", MIDDLE),
                               package("weak", WEAK), package("again", STRONG))
        inputs = (pipeline.InputFile("spec", SPEC), pipeline.InputFile("cases", CASES),
                  [health_module.Package(pipeline.InputFile("results", path))
                   for path in paths])
        here = health_module.measure(*inputs)
        background = in_background(1, 0)  # a fork when no other thread runs (the suite's own)
        forked = health_module.measure(*inputs, background=background)
        self.assertEqual(health_document(forked, "0"),
                         health_document(here, "0"))
        self.assertEqual(health_module._halves(inputs[2]), 2)

    def test_the_same_bytes_under_any_hash_seed(self):
        paths = write_packages(self, package("strong", STRONG), package("middle", MIDDLE),
                               package("weak", WEAK))
        outputs = [run_subprocess(health_arguments(paths), env={"PYTHONHASHSEED": seed})
                   for seed in ("1", "2")]
        self.assertEqual([run.status for run in outputs], [0, 0])
        self.assertEqual(outputs[0].stdout, outputs[1].stdout)
        self.assertEqual(outputs[0].stdout, run_cli(health_arguments(paths)).stdout)

    def test_a_package_of_another_dataset_version_is_a_contract_error_naming_it(self):
        other = package("weak", WEAK)
        other["dataset_version"] = "orders-2027-01"
        paths = write_packages(self, package("strong", STRONG), other)
        missing = os.path.join(EXAMPLES, "exercise_results_missing_trial.json")
        run = run_cli(health_arguments(paths + [missing]))
        self.assertEqual(run.status, 2)
        found = [(error["file"], error["code"]) for error in run.document["errors"]]
        self.assertEqual(found, [(paths[1], "version.mismatch"),
                                 (missing, "coverage.missing")])
        self.assertIn("package-2.json", run.stderr)

    def test_reports_in_the_house_style_and_none_outlives_its_run(self):
        folder = TempDir(self)
        paths = write_packages(self, package("strong", STRONG), package("middle", MIDDLE),
                               package("weak", WEAK))
        page, summary = (os.path.join(folder.path, name) for name in ("h.html", "h.md"))
        run = run_cli(health_arguments(paths) + ["--html", page, "--markdown", summary])
        self.assertEqual(run.status, 0, run.stderr)
        with open(page, "rb") as handle:
            html = handle.read().decode("utf-8")
        with open(summary, "rb") as handle:
            markdown = handle.read().decode("utf-8")
        self.assertIn('class="banner HEALTH"', html)
        self.assertLess(html.index("test-cancel"), html.index("test-refund"))
        self.assertNotIn("<script", html)
        self.assertIn("| 1 | test-cancel | never passed", markdown)
        broken = dict(package("weak", WEAK), dataset_version="other")
        again = run_cli(health_arguments(write_packages(self, broken))
                        + ["--html", page, "--markdown", summary])
        self.assertEqual(again.status, 2)
        with open(page, "rb") as handle:
            self.assertIn(b"CONTRACT_ERROR", handle.read())
        with open(summary, "rb") as handle:
            self.assertIn(b"CONTRACT_ERROR", handle.read())

    def test_a_report_may_not_overwrite_an_input(self):
        paths = write_packages(self, package("strong", STRONG))
        run = run_cli(health_arguments(paths) + ["--html", paths[0]])
        self.assertEqual((run.status, run.document["errors"][0]["code"]),
                         (2, "cli.report_path"))

    def test_the_text_mode_ends_with_the_effective_size_and_the_tasks_to_audit(self):
        paths = write_packages(self, package("strong", STRONG), package("middle", MIDDLE),
                               package("weak", WEAK))
        run = run_cli(health_arguments(paths) + ["--format", "text"])
        self.assertEqual(run.status, 0, run.stderr)
        lines = run.stdout.decode("ascii").splitlines()
        last = [line.strip() for line in lines[-6:]]
        self.assertTrue(last[0].startswith("HEALTH  effective size "), last)
        self.assertEqual(last[1:3], ["1 never passed: test-cancel",
                                     "1 unknown trials: test-privacy"])
        self.assertNotIn("\x1b[", run.stdout.decode("ascii"))

    def test_usage_errors(self):
        for arguments, words in (
                (["health", "--spec", SPEC, "--cases", CASES], "name the packages"),
                (["health", "--spec", SPEC, "--cases", CASES, "--logs", "a"],
                 "--logs takes BASELINE CANDIDATE"),
                (["health", "--spec", SPEC, "--cases", CASES, "--data", "d"],
                 "--data and --baseline go together")):
            with self.subTest(arguments):
                run = run_cli(arguments)
                self.assertEqual(run.status, 2)
                self.assertIn(words, run.document["errors"][0]["message"])


class ShippedExamplesTests(unittest.TestCase):
    def test_the_examples_and_the_imported_fixture_logs_name_the_tasks_to_audit(self):
        examples = [os.path.join(EXAMPLES, name) for name in (
            "benchmark_results_pass.json", "benchmark_results_regression.json",
            "exercise_results_critical_privacy.json", "exercise_results_p95_review.json",
            "exercise_results_unstable_task.json")]
        run = run_cli(["health", "--spec", SPEC, "--cases", CASES, "--results"] + examples + [
            "--logs", os.path.join(FIXTURES, "baseline.eval"),
            os.path.join(FIXTURES, "candidate.eval"), "inspect-candidate",
            "--mapping", os.path.join(FIXTURES, "inspect_mapping.json")])
        self.assertEqual(run.status, 0, run.stderr)
        document = run.document
        names = [system["name"] for system in document["systems"]]
        self.assertIn("inspect-candidate", names)
        self.assertEqual(len(names), 7)
        baseline = document["systems"][names.index("baseline-v1")]
        self.assertEqual(len(baseline["runs"]), 2)  # the examples' and the log's
        audit = [item["case_id"] for item in document["audit"]]
        self.assertIn("test-refund", audit)  # every system passes every trial
        self.assertIn("test-status", audit)  # an unknown trial
        self.assertTrue(all(item["why"] for item in document["audit"]))


class ReportRendererTests(unittest.TestCase):
    def test_inputs_are_escaped_everywhere(self):
        value = package("<b>strong</b>", STRONG)
        health = measured(self, value, package("weak|x", WEAK), package("middle", MIDDLE))
        page = health_html.render(health).decode("utf-8")
        self.assertNotIn("<b>strong", page)
        self.assertIn("&lt;b&gt;strong", page)
        summary = health_markdown.render(health).decode("utf-8")
        self.assertIn("weak\\|x", summary)


if __name__ == "__main__":
    unittest.main()


@unittest.skipUnless(os.name == "posix", "a memory limit is set with POSIX setrlimit")
@unittest.skipUnless(platform.python_implementation() == "CPython",
                     "PyPy's own allocator aborts the interpreter when memory runs out (exit "
                     "134), before any Python code runs; the figures are CPython's")
class MemoryTests(unittest.TestCase):
    """A health that runs out of memory is a clear error saying what its inputs need (exit 2,
    cli.out_of_memory), never an internal error; and what it says they need is enough."""

    def limited(self, paths, limit):
        import resource
        import subprocess
        import sys
        from tests.support import RUN_BENCHMARK

        def cap():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        completed = subprocess.run(
            [sys.executable, "-B", RUN_BENCHMARK, "health", "--spec", paths["spec"],
             "--cases", paths["cases"], "--results", paths["results"]],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            preexec_fn=cap, timeout=300)
        return completed.returncode, completed.stdout, completed.stderr.decode("utf-8")

    def test_a_limit_below_the_need_is_said_and_the_need_suffices(self):
        from devtools.timing import write_package
        paths = write_package(TempDir(self).path, 10000, 2, 1000, 1)
        need = health_module.memory_needed(os.path.getsize(paths["cases"]),
                                           os.path.getsize(paths["results"]))
        status, stdout, stderr = self.limited(paths, need // 2)
        self.assertEqual(status, 2, stderr)
        self.assertNotIn("Traceback", stderr)
        error = json.loads(stdout)["errors"][0]
        self.assertEqual(error["code"], "cli.out_of_memory")
        self.assertIn("so it needs about %.0f MB here" % (need / 1e6), error["message"])
        self.assertIn("results.json: %.0f MB" % (os.path.getsize(paths["results"]) / 1e6),
                      error["message"])
        status, stdout, stderr = self.limited(paths, need)
        self.assertEqual(status, 0, stderr)
        self.assertEqual(json.loads(stdout)["action"], "HEALTH")
