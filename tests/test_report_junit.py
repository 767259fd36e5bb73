"""The JUnit XML report against the Jenkins xUnit plugin's schema, and its counting rules.

:func:`schema_errors` is a structural checker written from ``junit-10.xsd`` of the Jenkins
xUnit plugin (jenkinsci/xunit-plugin,
src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd, unchanged since
the plugin's commit ae25da5 of 2018-12-15 and as shipped in release 3.1.7; MIT licence). The
XSD itself is not copied here: :data:`ELEMENTS` encodes, for every element it declares, the
attributes it allows (and requires), the children it allows (in order where the XSD says
``sequence``), whether text is allowed, and the one restricted attribute type, SUREFIRE_TIME.
The XSD declares no ``anyAttribute`` and no namespace, so an undeclared attribute or element
is an error.
"""

import os
import re
import time
import unittest
import xml.etree.ElementTree as ElementTree
from fractions import Fraction

from proagents_bench.contract.gates import deciding_gates
from proagents_bench.contract.vocabulary import INFORMATIONAL, SPEC_V1
from proagents_bench.evaluation.decision import Finding
from proagents_bench.reports import junit as report_junit
from proagents_bench.reports import view
from tests.support import TempDir, evaluate_arguments, run_cli, with_example
from tests.test_reports import SCENARIOS, hostile_package

# junit-10.xsd's simpleType SUREFIRE_TIME (an XSD pattern matches the whole value).
SUREFIRE_TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?")

_RERUN = {"attributes": {"message": False, "type": True}, "text": True,
          "children": ("stackTrace", "system-out", "system-err"), "ordered": True}
_STRING = {"attributes": {}, "text": True, "children": ()}
_MESSAGE = {"attributes": {"type": False, "message": False}, "text": True, "children": ()}

# element -> allowed attributes ({name: required}), whether text is allowed, the allowed
# children, and whether they must come in that order (xs:sequence) or in any order (xs:choice).
ELEMENTS = {
    "testsuites": {"attributes": {"name": False, "time": False, "tests": False,
                                  "failures": False, "errors": False},
                   "text": False, "children": ("testsuite",), "ordered": True},
    "testsuite": {"attributes": {"name": True, "tests": True, "failures": True, "errors": True,
                                 "group": False, "time": False, "skipped": False,
                                 "timestamp": False, "hostname": False, "id": False,
                                 "package": False, "file": False, "log": False, "url": False,
                                 "version": False},
                  "text": False,
                  "children": ("testsuite", "properties", "testcase", "system-out",
                               "system-err")},
    "properties": {"attributes": {}, "text": False, "children": ("property",)},
    "property": {"attributes": {"name": True, "value": True}, "text": False, "children": ()},
    "testcase": {"attributes": {"name": True, "time": False, "classname": False,
                                "group": False},
                 "text": False,
                 "children": ("skipped", "error", "failure", "rerunFailure", "rerunError",
                              "flakyFailure", "flakyError", "system-out", "system-err")},
    "failure": _MESSAGE,
    "error": _MESSAGE,
    "skipped": _MESSAGE,
    "system-out": _STRING,
    "system-err": _STRING,
    "stackTrace": _STRING,
    "rerunFailure": _RERUN,
    "rerunError": _RERUN,
    "flakyFailure": _RERUN,
    "flakyError": _RERUN,
}
TIME_TYPED = {("testsuites", "time"), ("testsuite", "time")}  # SUREFIRE_TIME, else xs:string


def schema_errors(root, where="/"):
    """Every way ``root`` (an ElementTree element) breaks junit-10.xsd's rules, as text."""
    errors = []
    rules = ELEMENTS.get(root.tag)
    path = where + root.tag
    if rules is None:
        return ["%s: element not declared" % path]
    for name in root.attrib:
        if name not in rules["attributes"]:
            errors.append("%s: attribute %s not allowed" % (path, name))
    for name, required in rules["attributes"].items():
        if required and name not in root.attrib:
            errors.append("%s: attribute %s required" % (path, name))
        if (root.tag, name) in TIME_TYPED and name in root.attrib and not (
                SUREFIRE_TIME.fullmatch(root.attrib[name])):
            errors.append("%s: %s=%r is not a SUREFIRE_TIME" % (path, name, root.attrib[name]))
    if not rules["text"]:
        texts = [root.text] + [child.tail for child in root]
        if any(text and text.strip() for text in texts):
            errors.append("%s: text not allowed" % path)
    allowed = rules["children"]
    last = -1
    for child in root:
        if child.tag not in allowed:
            errors.append("%s: child %s not allowed" % (path, child.tag))
            continue
        if rules.get("ordered"):
            position = allowed.index(child.tag)
            if position < last:
                errors.append("%s: child %s out of order" % (path, child.tag))
            last = position
        errors.extend(schema_errors(child, path + "/"))
    return errors


def parse(evaluation):
    return ElementTree.fromstring(report_junit.render(evaluation))


def with_notes(evaluation, *findings):
    """``evaluation`` with informational findings added to its decision (as the lead's new
    codes will be: any code, a threshold or not, tasks or not)."""
    evaluation.decision.findings.extend(findings)
    return evaluation


NEW_NOTES = (
    Finding("not_estimable", INFORMATIONAL, "paired_task_success_delta", None, None, [],
            "the minimum detectable effect is not estimable: every paired difference is 0"),
    Finding("flaky_tasks", INFORMATIONAL, "flaky_task_count", 3, None,
            ["test-status", "test-cancel", "test-refund"],
            "3 tasks disagree across trials"),
    Finding("bootstrap_samples_too_few", INFORMATIONAL, "samples", 100, 1000, [],
            "100 bootstrap samples are too few for a 95% interval"),
)


class SchemaCheckerTests(unittest.TestCase):
    """The checker itself catches what the XSD forbids (else a pass would mean nothing)."""

    def test_it_rejects_what_junit_10_xsd_rejects(self):
        bad = {
            '<testsuites skipped="0"/>': "attribute skipped not allowed",
            '<testsuites><testsuite name="a" tests="1" failures="0"/></testsuites>':
                "attribute errors required",
            '<testsuites time="1.2345"/>': "is not a SUREFIRE_TIME",
            '<testsuites time="-1"/>': "is not a SUREFIRE_TIME",
            '<testsuites><testcase name="x"/></testsuites>': "child testcase not allowed",
            '<testsuites><testsuite name="a" tests="1" failures="0" errors="0">'
            '<testcase/></testsuite></testsuites>': "attribute name required",
            '<testsuites><testsuite name="a" tests="1" failures="0" errors="0">'
            '<testcase name="x"><note/></testcase></testsuite></testsuites>':
                "child note not allowed",
            '<testsuites><testsuite name="a" tests="0" failures="0" errors="0">'
            '<property name="a" value="b"/></testsuite></testsuites>':
                "child property not allowed",
            '<testsuites>x</testsuites>': "text not allowed",
        }
        for xml, expected in bad.items():
            with self.subTest(xml=xml):
                errors = schema_errors(ElementTree.fromstring(xml))
                self.assertTrue(any(expected in error for error in errors), errors)

    def test_it_accepts_what_junit_10_xsd_accepts(self):
        good = ('<testsuites name="n" time="1,234.500" tests="1" failures="1" errors="0">'
                '<testsuite name="a" tests="1" failures="1" errors="0" skipped="0" time="12">'
                '<properties><property name="k" value="v"/></properties>'
                '<testcase name="x" classname="c" time="anything">'
                '<failure message="m" type="t">text</failure><system-out>o</system-out>'
                '</testcase><system-out>suite output</system-out></testsuite></testsuites>')
        self.assertEqual(schema_errors(ElementTree.fromstring(good)), [])


class JunitSchemaTests(unittest.TestCase):
    def test_every_scenario_validates(self):
        for action, args in SCENARIOS.items():
            with self.subTest(action=action):
                root = parse(evaluate_arguments(args))
                self.assertEqual(schema_errors(root), [])
                self.assertNotIn("skipped", root.attrib)

    def test_notes_and_hostile_text_validate(self):
        self.assertEqual(schema_errors(parse(hostile_package(self))), [])
        evaluation = with_notes(evaluate_arguments(SCENARIOS["BLOCK"]), *NEW_NOTES)
        self.assertEqual(schema_errors(parse(evaluation)), [])


class JunitCountingTests(unittest.TestCase):
    def test_a_failing_critical_task_is_one_failure(self):
        root = parse(evaluate_arguments(SCENARIOS["BLOCK"]))
        failures = root.findall(".//failure")
        critical = [failure for failure in failures
                    if "critical_task_min_trial_success_rate" in failure.get("message")]
        self.assertEqual(len(critical), 1)
        self.assertEqual(critical[0].get("type"), "critical gate")
        # The failure sits on the task's own case, which carries the details.
        case = root.find("testsuite[@name='tasks']/testcase[@name='test-safety']")
        self.assertIs(case.find("failure"), critical[0])
        self.assertIn("trial 1: status success", critical[0].text)
        # The gates suite names where the critical gate is judged, as a property.
        gates = root.find("testsuite[@name='gates']")
        self.assertIsNone(gates.find("testcase[@name='critical_task_min_trial_success_rate']"))
        prop = gates.find("properties/property[@name='critical_task_min_trial_success_rate']")
        self.assertIn("judged per critical task", prop.get("value"))
        self.assertEqual(root.get("failures"), str(len(failures)))
        self.assertEqual(root.get("failures"), "3")  # test-safety and two whole-candidate gates

    def test_every_other_gate_has_one_case_in_the_gates_suite(self):
        root = parse(evaluate_arguments(SCENARIOS["PASS"]))
        names = [case.get("name") for case in root.findall("testsuite[@name='gates']/testcase")]
        self.assertEqual(names, [gate.key for gate in deciding_gates(SPEC_V1)
                                 if gate.key != "critical_task_min_trial_success_rate"])


class JunitNoteTests(unittest.TestCase):
    def test_informational_findings_are_passing_cases_that_say_the_note(self):
        evaluation = evaluate_arguments(SCENARIOS["PASS"])
        root = parse(evaluation)
        self.assertEqual(root.get("failures"), "0")
        cases = root.findall("testsuite[@name='notes']/testcase")
        self.assertEqual(len(cases), sum(1 for finding in evaluation.decision.findings
                                         if finding.severity == "info"))
        case = cases[0]
        self.assertIsNone(case.find("failure"))
        self.assertIsNone(case.find("skipped"))
        self.assertEqual(case.get("classname"), "notes")
        self.assertTrue(case.get("name").startswith("below_minimum_detectable_effect: the "
                                                    "observed difference is below"))
        output = case.find("system-out").text
        self.assertIn("paired_task_success_delta 0.4", output)
        self.assertIn("threshold 0.686245", output)

    def test_any_code_renders_without_a_report_change(self):
        evaluation = with_notes(evaluate_arguments(SCENARIOS["BLOCK"]), *NEW_NOTES)
        plain_failures = parse(evaluate_arguments(SCENARIOS["BLOCK"])).get("failures")
        root = parse(evaluation)
        self.assertEqual(root.get("failures"), plain_failures)  # notes are never failures
        cases = root.findall("testsuite[@name='notes']/testcase")
        own = [finding.code for finding in evaluation.decision.findings
               if finding.severity == "info"]
        self.assertEqual([case.get("name").split(":")[0] for case in cases], own)
        self.assertEqual(own[-3:], ["not_estimable", "flaky_tasks", "bootstrap_samples_too_few"])
        outputs = {case.get("name").split(":")[0]: case.find("system-out").text
                   for case in cases[-3:]}
        self.assertNotIn("threshold", outputs["not_estimable"])  # None is left out
        self.assertIn("metric paired_task_success_delta", outputs["not_estimable"])
        self.assertIn("tasks: test-status, test-cancel, test-refund", outputs["flaky_tasks"])
        self.assertIn("samples 100; threshold 1000", outputs["bootstrap_samples_too_few"])
        self.assertEqual(int(root.find("testsuite[@name='notes']").get("tests")), len(own))

    def test_equal_note_names_are_made_distinct(self):
        twice = Finding("flaky_tasks", INFORMATIONAL, "flaky_task_count", 1, None, ["a"], "same")
        evaluation = with_notes(evaluate_arguments(SCENARIOS["PASS"]), twice, twice)
        names = [case.get("name") for case in
                 parse(evaluation).findall("testsuite[@name='notes']/testcase")]
        self.assertEqual(len(names), len(set(names)))

    def test_no_notes_suite_without_notes(self):
        evaluation = evaluate_arguments(SCENARIOS["REVIEW"])
        del evaluation.decision.findings[:]
        self.assertIsNone(parse(evaluation).find("testsuite[@name='notes']"))


class JunitTimeTests(unittest.TestCase):
    def test_time_is_the_runs_own_given_to_the_renderer(self):
        evaluation = evaluate_arguments(SCENARIOS["BLOCK"])
        evaluation.seconds = 1.25
        root = parse(evaluation)
        tasks = root.find("testsuite[@name='tasks']")
        self.assertEqual((root.get("time"), tasks.get("time")), ("1.250", "1.250"))
        for suite in root.findall("testsuite"):
            if suite is not tasks:
                self.assertEqual(suite.get("time"), "0.000")
        for case in root.iter("testcase"):
            self.assertEqual(case.get("time"), "0.000")
        # The same evaluation and time: the same bytes.
        self.assertEqual(report_junit.render(evaluation), report_junit.render(evaluation))

    def test_an_unmeasured_run_takes_no_time(self):
        evaluation = evaluate_arguments(SCENARIOS["INCOMPARABLE"])
        root = parse(evaluation)
        self.assertEqual(root.get("time"), "0.000")
        evaluation.seconds = 2.0
        self.assertEqual(parse(evaluation).find("testsuite[@name='comparability']").get(
            "time"), "2.000")

    def test_the_agents_recorded_latency_is_a_property_of_each_system(self):
        evaluation = evaluate_arguments(SCENARIOS["BLOCK"])
        document = evaluation.document
        properties = {item.get("name"): item.get("value") for item in parse(evaluation).findall(
            "testsuite[@name='tasks']/properties/property")}
        for role in ("candidate", "baseline"):
            total = sum(Fraction(trial["latency_ms"])
                        for trial in document["%s_metrics" % role]["trial_results"])
            self.assertEqual(properties["%s_recorded_latency_seconds" % role],
                             "%.3f" % (total / 1000))

    def test_the_command_line_measures_the_run(self):
        folder = TempDir(self).path
        report = os.path.join(folder, "junit.xml")
        started = time.monotonic()
        run = run_cli(with_example(["--junit-xml", report]))
        took = time.monotonic() - started
        self.assertEqual(run.status, 0)
        with open(report, "rb") as handle:
            root = ElementTree.fromstring(handle.read())
        self.assertGreater(float(root.get("time")), 0)
        self.assertLessEqual(float(root.get("time")), took)


if __name__ == "__main__":
    unittest.main()
