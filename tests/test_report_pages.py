"""What the HTML and Markdown reports show next to the decision, and how the HTML page holds
up in a narrow window and on paper (read from its markup and stylesheet, not a browser)."""

import re
import unittest
from html.parser import HTMLParser

from proagents_bench.contract.vocabulary import INFORMATIONAL
from proagents_bench.evaluation.decision import Finding
from proagents_bench.reports import html as report_html
from proagents_bench.reports import html_parts
from proagents_bench.reports import markdown as report_markdown
from tests.support import evaluate_arguments
from tests.test_report_junit import NEW_NOTES, with_notes
from tests.test_reports import SCENARIOS, parse_html

VOID = {"meta", "br", "wbr", "link", "img", "hr", "input"}


class _Tree(HTMLParser):
    """Each start tag with the chain of open elements around it: (tag, attrs, ancestors)."""

    def __init__(self):
        HTMLParser.__init__(self, convert_charrefs=True)
        self.open = []
        self.found = []
        self.texts = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.found.append((tag, attrs, list(self.open)))
        if tag not in VOID:
            self.open.append((tag, attrs))

    def handle_endtag(self, tag):
        if self.open and self.open[-1][0] == tag:
            self.open.pop()

    def handle_data(self, data):
        self.texts.append((data, list(self.open)))


def tree(data):
    parsed = _Tree()
    parsed.feed(data.decode("utf-8"))
    parsed.close()
    return parsed


def notes_line(evaluation, markdown=False):
    """How the reports count the evaluation's informational findings."""
    count = sum(1 for finding in evaluation.decision.findings
                if finding.severity == INFORMATIONAL)
    words = "%d informational note%s" % (count, "" if count == 1 else "s")
    return "**%s**" % words if markdown else words


def text_inside(parsed, tag, element_id):
    return " ".join(" ".join(data for data, ancestors in parsed.texts
                             if (tag, element_id) in [(name, attrs.get("id"))
                                                      for name, attrs in ancestors]).split())


class HtmlNoteTests(unittest.TestCase):
    def test_a_pass_shows_its_informational_note_inside_the_decision_banner(self):
        evaluation = evaluate_arguments(SCENARIOS["PASS"])
        parsed = tree(report_html.render(evaluation))
        banner = text_inside(parsed, "header", "decision")
        self.assertTrue(banner.startswith("PASS every gate held: ship"))
        self.assertIn(notes_line(evaluation) + " (never a gate, never a reason)", banner)
        self.assertIn("NOTE the observed difference is below the minimum detectable effect",
                      banner)
        self.assertIn("code below_minimum_detectable_effect; paired_task_success_delta 0.4; "
                      "threshold 0.686245", banner)

    def test_any_code_renders_without_a_report_change(self):
        evaluation = with_notes(evaluate_arguments(SCENARIOS["PASS"]), *NEW_NOTES)
        banner = text_inside(tree(report_html.render(evaluation)), "header", "decision")
        self.assertIn(notes_line(evaluation), banner)
        for finding in NEW_NOTES:
            self.assertIn(finding.reason, banner)
        self.assertIn("(code not_estimable; metric paired_task_success_delta)", banner)
        self.assertIn("tasks: test-status, test-cancel, test-refund", banner)

    def test_the_note_badge_is_not_styled_as_grey_note_text(self):
        # .note is the grey explanatory paragraph; the badge must not pick up its colour.
        parsed = tree(report_html.render(evaluate_arguments(SCENARIOS["PASS"])))
        badges = [attrs["class"].split() for tag, attrs, _ancestors in parsed.found
                  if "sev" in attrs.get("class", "").split()]
        self.assertIn(["sev", "note-tag"], badges)
        for classes in badges:
            self.assertNotIn("note", classes)

    def test_notes_are_capped_with_a_count(self):
        many = [Finding("flaky_tasks", INFORMATIONAL, "m", index, None, [], "note %d" % index)
                for index in range(report_html.MAX_NOTES + 7)]
        evaluation = with_notes(evaluate_arguments(SCENARIOS["PASS"]), *many)
        banner = text_inside(tree(report_html.render(evaluation)), "header", "decision")
        shown_elsewhere = len(evaluation.decision.findings) - len(many)
        self.assertIn("%d more notes not shown" % (7 + shown_elsewhere), banner)

    def test_no_notes_box_without_notes(self):
        evaluation = evaluate_arguments(SCENARIOS["REVIEW"])
        del evaluation.decision.findings[:]
        self.assertNotIn(b'id="notes"', report_html.render(evaluation))


class MarkdownNoteTests(unittest.TestCase):
    def test_notes_come_right_under_the_decision(self):
        evaluation = evaluate_arguments(SCENARIOS["PASS"])
        text = report_markdown.render(evaluation).decode("utf-8")
        decision = text.index("**Every gate held: ship.**")
        note = text.index(notes_line(evaluation, markdown=True) + " (never a gate, never a reason)")
        self.assertLess(decision, note)
        self.assertLess(note, text.index("### Reasons"))
        self.assertIn("- the observed difference is below the minimum detectable effect", text)
        self.assertIn("paired\\_task\\_success\\_delta 0.4; threshold 0.686245", text)

    def test_any_code_renders_and_is_escaped(self):
        hostile = Finding("flaky_tasks", INFORMATIONAL, "m", 1, None, ["<b>|x|</b>"],
                          "| a *note* |")
        evaluation = with_notes(evaluate_arguments(SCENARIOS["PASS"]), hostile, *NEW_NOTES)
        text = report_markdown.render(evaluation).decode("utf-8")
        self.assertIn(notes_line(evaluation, markdown=True), text)
        self.assertIn("\\| a \\*note\\* \\|", text)
        self.assertIn("\\<b\\>\\|x\\|\\</b\\>", text)
        self.assertIn("code not\\_estimable; metric paired\\_task\\_success\\_delta)", text)


class NarrowWindowAndPrintTests(unittest.TestCase):
    def pages(self):
        for action, args in SCENARIOS.items():
            yield action, report_html.render(evaluate_arguments(args))

    def test_every_table_scrolls_in_its_own_container(self):
        for action, data in self.pages():
            parsed = tree(data)
            tables = [(attrs, ancestors) for tag, attrs, ancestors in parsed.found
                      if tag == "table"]
            self.assertTrue(tables)
            for attrs, ancestors in tables:
                with self.subTest(action=action, table=attrs.get("class")):
                    self.assertEqual(ancestors[-1], ("div", {"class": "scroll"}))
        self.assertRegex(html_parts.STYLE, r"\.scroll \{ overflow-x: auto;")
        print_rules = html_parts.STYLE[html_parts.STYLE.index("@media print"):]
        self.assertIn(".scroll { overflow: visible; }", print_rules)  # paper cannot scroll

    def test_ids_break_only_after_separators(self):
        data = report_html.render(evaluate_arguments(SCENARIOS["BLOCK"])).decode("utf-8")
        self.assertNotIn("break-all", html_parts.STYLE)
        self.assertIn("test-<wbr>safety", data)
        self.assertIn("examples/<wbr>benchmark_<wbr>results_<wbr>regression.<wbr>json", data)
        for match in re.finditer("<wbr>", data):
            before = data[max(match.start() - 16, 0):match.start()]
            self.assertTrue(before[-1] in "-_/.\\:" or re.fullmatch("[0-9a-f]{16}", before),
                            data[match.start() - 30:match.end() + 10])

    def test_a_digest_breaks_between_groups_of_sixteen_digits(self):
        data = report_html.render(evaluate_arguments(SCENARIOS["PASS"])).decode("utf-8")
        fingerprint = evaluate_arguments(SCENARIOS["PASS"]).document["evidence_fingerprint"]
        digits = fingerprint.split(":")[1]
        grouped = "sha256:<wbr>" + "<wbr>".join(digits[index:index + 16]
                                                 for index in range(0, 64, 16))
        self.assertIn(grouped, data)

    def test_the_text_still_reads_whole(self):
        page = parse_html(report_html.render(evaluate_arguments(SCENARIOS["BLOCK"])))
        self.assertIn("test-safety", page.joined)
        self.assertIn("examples/benchmark_results_regression.json", page.joined)


if __name__ == "__main__":
    unittest.main()
