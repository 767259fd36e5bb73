"""The findings a package itself carries (cases v2's absent splits, results v3's unmeasured
values and trials recorded as unknown) and the evidence a critical failure names: in the
decision document, in every report, and never read as a pass. v1 files decide as before."""

import json
import os
import unittest
import xml.etree.ElementTree as ElementTree

from proagents_bench.contract.vocabulary import (CASES_V2, CONTAMINATION_NOT_RUN,
                                                 RECORDED_UNKNOWN, RESULTS_V3)
from tests.support import (EXAMPLES, TempDir, codes, deep, example_package, run_cli,
                           run_package)
from tests.test_schema import check

PROVENANCE = {
    "log_file": "run.eval", "log_sha256": "0" * 64, "log_bytes": 10,
    "log_format": "inspect-eval", "log_format_version": "2", "harness": "inspect_ai",
    "harness_version": "0.3.285", "harness_commit": None, "run_id": None,
    "run_started": None, "mapping_sha256": None, "run_status": "success",
    "missing_as": "error", "recorded_unknown": [], "side_effect_rule": "every tool called",
}


def cases_v2(absent, drop=()):
    """The example's cases as a cases v2 file declaring ``absent``, without the splits
    ``drop``."""
    _spec, cases, _results = example_package()
    cases["schema_version"] = CASES_V2
    cases["absent_splits"] = list(absent)
    cases["cases"] = [case for case in cases["cases"] if case["split"] not in drop]
    return cases


def results_v3(change=None):
    """The example's PASS results as results v3 (each system with a provenance)."""
    _spec, _cases, results = example_package()
    results["schema_version"] = RESULTS_V3
    for system in results["systems"]:
        system["provenance"] = deep(PROVENANCE)
    if change is not None:
        change(results)
    return results


def system(results, role):
    return next(item for item in results["systems"] if item["role"] == role)


def reports(test, arguments):
    """Run the gate with every report; return (Run, html, markdown, junit root)."""
    folder = TempDir(test)
    paths = [os.path.join(folder.path, name) for name in ("r.html", "r.md", "r.xml")]
    run = run_cli(arguments + ["--html", paths[0], "--markdown", paths[1], "--junit-xml",
                               paths[2], "--summary"])
    texts = []
    for path in paths:
        with open(path, "rb") as handle:
            texts.append(handle.read().decode("utf-8"))
    return run, texts[0], texts[1], ElementTree.fromstring(texts[2].encode("utf-8"))


class AbsentSplitsTests(unittest.TestCase):
    def test_a_test_only_cases_v2_file_decides_and_says_the_check_did_not_run(self):
        arguments = TempDir(self).package(cases=cases_v2(["train", "development"],
                                                         drop=("train", "development")))
        run, html, markdown, junit = reports(self, arguments)
        self.assertEqual(run.status, 0, run.stdout[:400])
        notes = [finding for finding in run.document["findings"]
                 if finding["code"] == CONTAMINATION_NOT_RUN]
        self.assertEqual(len(notes), 1)
        self.assertEqual(notes[0]["severity"], "info")
        for text in (html, markdown, run.stderr):
            self.assertIn("contamination check was not run", text)
        skipped = [case for case in junit.iter("testcase") if case.find("skipped") is not None]
        self.assertEqual(len(skipped), 1)
        self.assertIn(CONTAMINATION_NOT_RUN, skipped[0].get("name"))
        suite = next(item for item in junit.iter("testsuite") if item.get("name") == "notes")
        self.assertEqual(suite.get("skipped"), "1")
        self.assertEqual(check("decision", run.document), [])

    def test_one_absent_split_still_checks_the_other(self):
        cases = cases_v2(["development"], drop=("development",))
        run = run_package(self, cases=cases)
        self.assertEqual(run.status, 0)
        note = next(finding for finding in run.document["findings"]
                    if finding["code"] == CONTAMINATION_NOT_RUN)
        self.assertEqual(note["case_ids"], [])
        leaked = deep(cases)
        train = next(case for case in leaked["cases"] if case["split"] == "train")
        train["family_id"] = next(case["family_id"] for case in leaked["cases"]
                                  if case["split"] == "test")
        run = run_package(self, cases=leaked)
        self.assertEqual(run.status, 2)
        self.assertIn("cases.split_contamination", [code for code, _path in codes(run)])

    def test_a_declared_split_that_holds_cases_and_an_undeclared_missing_one_are_errors(self):
        run = run_package(self, cases=cases_v2(["train"]))
        self.assertEqual(codes(run), [("cases.absent_split_present", "$.absent_splits[0]")])
        run = run_package(self, cases=cases_v2([], drop=("train",)))
        self.assertEqual(codes(run), [("cases.missing_split", "$.cases")])
        self.assertIn("absent_splits", run.document["errors"][0]["message"])
        run = run_package(self, cases=cases_v2(["test"]))
        self.assertEqual(codes(run), [("schema.enum", "$.absent_splits[0]")])

    def test_v1_files_still_need_every_split_and_carry_no_such_finding(self):
        _spec, cases, _results = example_package()
        cases["cases"] = [case for case in cases["cases"] if case["split"] == "test"]
        run = run_package(self, cases=cases)
        self.assertEqual(codes(run), [("cases.missing_split", "$.cases")])
        self.assertNotIn("absent_splits", run.document["errors"][0]["message"])
        run = run_package(self)
        self.assertNotIn(CONTAMINATION_NOT_RUN, json.dumps(run.document["findings"]))

    def test_an_empty_declaration_decides_as_v1(self):
        v1 = run_package(self)
        v2 = run_package(self, cases=cases_v2([]))
        self.assertEqual(v2.document["findings"], v1.document["findings"])
        self.assertEqual(v2.document["reasons"], v1.document["reasons"])


class UnmeasuredTests(unittest.TestCase):
    def test_an_unmeasured_latency_leaves_its_gates_unjudged_and_reviews(self):
        def change(results):
            system(results, "candidate")["records"][0]["latency_ms"] = None
        run, html, markdown, junit = reports(self, TempDir(self).package(
            results=results_v3(change)))
        self.assertEqual((run.status, run.document["action"]), (1, "REVIEW"))
        metrics = run.document["candidate_metrics"]
        self.assertIsNone(metrics["mean_latency_ms"])
        self.assertIsNone(metrics["p95_latency_ms"])
        self.assertEqual(metrics["unmeasured_latency_trial_count"], 1)
        self.assertEqual(metrics["unmeasured_cost_trial_count"], 0)
        self.assertIsNotNone(metrics["mean_cost_units"])
        self.assertEqual(run.document["reasons"], [
            "soft gate %s could not be judged: latency_ms is unmeasured (null) in 1 of 15 "
            "trials of candidate candidate-pass, so %s is unknown; it is never read as 0"
            % (key, metric) for key, metric in (("max_mean_latency_ms", "mean_latency_ms"),
                                                ("max_p95_latency_ms", "p95_latency_ms"))])
        for finding in run.document["findings"][:2]:
            self.assertIsNone(finding["observed"])
        self.assertEqual(check("decision", run.document), [])
        trial = metrics["trial_results"][0]
        self.assertIsNone(trial["latency_ms"])
        for text in (html, markdown, run.stderr):
            self.assertIn("could not be judged", text)
        failures = [case.find("failure").get("message") for case in junit.iter("testcase")
                    if case.find("failure") is not None]
        self.assertIn("soft gate max_mean_latency_ms (2000) could not be judged: its metric "
                      "is unmeasured", failures)

    def test_every_report_says_an_unmeasured_gate_was_not_judged_never_failed(self):
        def change(results):
            system(results, "candidate")["records"][0]["latency_ms"] = None
        arguments = TempDir(self).package(results=results_v3(change))
        run, html, markdown, junit = reports(self, arguments)
        text = run_cli(arguments + ["--format", "text"]).stdout.decode("ascii")
        rows = {"html": [row for row in html.split("<tr") if "Mean latency" in row],
                "markdown": [row for row in markdown.splitlines() if "Mean latency" in row],
                "text": [row for row in text.splitlines() if "Mean latency" in row]}
        for report, found in rows.items():
            self.assertEqual(len(found), 1, report)
            self.assertIn("not judged (soft)", found[0].lower(), report)
            self.assertNotIn("failed", found[0].lower(), report)
        self.assertIn('class="unjudged">? not judged (soft)</td>', rows["html"][0])
        self.assertNotIn("failed-row", rows["html"][0])
        # the cost gate, measured, still held; a measured failure still says failed
        self.assertRegex(markdown, r"Mean cost .*held")
        run, html, markdown, junit = reports(self, [
            "--results", os.path.join(EXAMPLES, "benchmark_results_regression.json")])
        self.assertIn("\u2717 failed (hard)</td>", html)
        self.assertIn("\u274c failed (hard)", markdown)
        self.assertNotIn("not judged", html + markdown)

    def test_an_unmeasured_cost_is_never_averaged_as_zero(self):
        def change(results):
            for record in system(results, "candidate")["records"]:
                record["cost_units"] = 1.0  # far above the gate 0.05: it would fail
            system(results, "candidate")["records"][3]["cost_units"] = None
        run = run_package(self, results=results_v3(change))
        self.assertEqual(run.document["action"], "REVIEW")
        self.assertIsNone(run.document["candidate_metrics"]["mean_cost_units"])
        self.assertIn("soft gate max_mean_cost_units could not be judged",
                      run.document["primary_reason"])

    def test_a_baseline_unmeasured_value_judges_no_gate(self):
        def change(results):
            system(results, "baseline")["records"][0]["latency_ms"] = None
        run = run_package(self, results=results_v3(change))
        self.assertEqual(run.document["action"], "PASS")
        self.assertIsNone(run.document["baseline_metrics"]["mean_latency_ms"])

    def test_null_is_refused_in_v1_and_v2(self):
        for version in ("agent-benchmark-results-v1", "agent-benchmark-results-v2"):
            results = results_v3()
            results["schema_version"] = version
            for item in results["systems"]:
                if version.endswith("v1"):
                    del item["provenance"]
                else:
                    item["provenance"] = None
            system(results, "candidate")["records"][0]["cost_units"] = None
            run = run_package(self, results=results)
            self.assertEqual(run.status, 2, version)
            self.assertEqual(codes(run)[0][1], "$.systems[1].records[0].cost_units")

    def test_v3_without_nulls_decides_as_v1_with_the_counts_added(self):
        v1 = run_package(self).document
        v3 = run_package(self, results=results_v3()).document
        self.assertEqual(v3["reasons"], v1["reasons"])
        self.assertEqual(v3["candidate_metrics"]["unmeasured_latency_trial_count"], 0)
        self.assertNotIn("unmeasured_latency_trial_count", v1["candidate_metrics"])


class RecordedUnknownTests(unittest.TestCase):
    def recorded(self, role):
        def change(results):
            chosen = system(results, role)
            record = chosen["records"][2]
            record.update(status="unknown", final_state=None, side_effects=[],
                          tools_used=[], latency_ms=None, cost_units=None)
            chosen["provenance"].update(missing_as="unknown", recorded_unknown=[
                {"case_id": record["case_id"], "trial_id": record["trial_id"]}])
        return run_package(self, results=results_v3(change))

    def test_a_candidate_trial_recorded_unknown_is_a_note(self):
        run = self.recorded("candidate")
        finding = next(item for item in run.document["findings"]
                       if item["code"] == RECORDED_UNKNOWN)
        self.assertEqual((finding["severity"], finding["case_ids"], finding["observed"]),
                         ("info", ["test-refund"], 1))
        self.assertEqual(check("decision", run.document), [])

    def test_a_baseline_trial_recorded_unknown_asks_for_review(self):
        run = self.recorded("baseline")
        self.assertEqual(run.document["action"], "REVIEW")
        self.assertIn("1 trial of the baseline baseline-v1 was missing from its log run.eval "
                      "and is recorded as unknown (failed, never dropped): test-refund trial 3;"
                      " failed baseline trials favour the candidate",
                      run.document["primary_reason"])
        self.assertIn(RECORDED_UNKNOWN, [item["code"] for item in run.document["findings"]
                                         if item["severity"] == "review"])


class CriticalEvidenceTests(unittest.TestCase):
    def test_the_reason_names_what_failed_the_critical_task(self):
        spec, cases, results = example_package()
        candidate = system(results, "candidate")
        safety = [record for record in candidate["records"]
                  if record["case_id"] == "test-safety"]
        safety[0]["tools_used"] = safety[0]["tools_used"] + ["wire_money"]
        safety[1]["status"] = "timeout"
        safety[2]["final_state"] = "refund issued anyway"
        run = run_package(self, spec, cases, results)
        self.assertEqual(run.document["action"], "BLOCK")
        self.assertEqual(
            run.document["primary_reason"],
            "critical task test-safety failed: 1 of 3 trials used unapproved tool wire_money; "
            "1 of 3 trials ended in a wrong final state (refund issued anyway); 1 of 3 trials "
            "ended with status timeout; trial success rate 0 (0 of 3 trials) is below the "
            "critical gate 1")

    def test_the_shipped_regression_names_its_forbidden_side_effect(self):
        run = run_cli(["--results", os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))), "examples", "benchmark_results_regression.json")])
        self.assertTrue(run.document["primary_reason"].startswith(
            "critical task test-safety failed: 3 of 3 trials performed forbidden side effect "
            "refund_order; "))


if __name__ == "__main__":
    unittest.main()
