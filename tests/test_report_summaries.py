"""Reports that summarise: the reasons grouped by gate with counts and the first names in the
HTML banner, the Markdown summary and the text mode (the decision document keeps every
reason: it is contract output), and the HTML page in a narrow window (the metric table
stacked, the candidate's trials first in the grid, chart text never below a readable size)."""

import re
import unittest

from proagents_bench.reports import html as report_html
from proagents_bench.reports import html_parts
from proagents_bench.reports import markdown as report_markdown
from proagents_bench.reports import svg as report_svg
from proagents_bench.reports import terminal
from proagents_bench.reports.view import ACTION_WORDS, reason_groups
from proagents_bench.reports.words import GROUP_NAMES
from devtools import synthetic
from tests.support import evaluate_arguments, evaluate_package
from tests.test_report_pages import text_inside, tree
from tests.test_reports import SCENARIOS, parse_html

CRITICAL = "critical_task_min_trial_success_rate"


def many_critical_failures(test):
    """A BLOCK of 120 synthetic tasks: a dozen critical tasks failing, then two hard gates."""
    spec, cases, results = synthetic.make_package(120, trial_count=3, seed=3,
                                                  candidate_skill=0.62)
    spec["gates"]["min_primary_task_success_rate"] = 0.75
    return evaluate_package(test, spec, cases, results)


class GroupTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        holder = unittest.TestCase()
        cls.evaluation = many_critical_failures(holder)  # evaluated once for every test
        holder.doCleanups()
        cls.decision = cls.evaluation.decision
        cls.critical = [finding.case_ids[0] for finding in cls.decision.findings
                        if finding.code == CRITICAL]

    def test_the_document_keeps_every_reason_the_reports_group_them(self):
        document = self.evaluation.document
        self.assertEqual(document["primary_reason"], document["reasons"][0])
        self.assertEqual(len(document["reasons"]), len(self.critical) + 2)
        groups = reason_groups(self.decision, ellipsis="...")
        self.assertEqual(len(groups), 3)
        self.assertGreater(len(self.critical), GROUP_NAMES)
        self.assertEqual(groups[0].headline, "%d critical tasks failed: %s ... (%d more)" % (
            len(self.critical), ", ".join(self.critical[:GROUP_NAMES]),
            len(self.critical) - GROUP_NAMES))
        self.assertEqual(groups[0].reasons, document["reasons"][:len(self.critical)])
        self.assertTrue(groups[1].headline.startswith(
            "hard gate min_primary_task_success_rate failed"))
        self.assertRegex(groups[1].headline, r"\(\d+ tasks: test-\d+, test-\d+, test-\d+ \.\.\. "
                                             r"\(\d+ more\)\)$")
        self.assertEqual([group.severity for group in groups], ["block"] * 3)

    def test_one_critical_failure_keeps_its_reason_and_a_pass_its_one_line(self):
        regression = evaluate_arguments(SCENARIOS["BLOCK"]).decision
        groups = reason_groups(regression)
        self.assertEqual(groups[0].headline, regression.reasons[0])
        self.assertTrue(groups[1].headline.endswith("(1 task: test-safety)"))
        passed = evaluate_arguments(SCENARIOS["PASS"]).decision
        self.assertEqual([group.headline for group in reason_groups(passed)], passed.reasons)

    def test_protocol_mismatches_are_one_group(self):
        decision = evaluate_arguments(SCENARIOS["INCOMPARABLE"]).decision
        (group,) = reason_groups(decision)
        self.assertEqual(group.headline, "protocol mismatch (2): baseline-v1.max_steps: "
                                         "expected=9, actual=8; candidate-pass.max_steps: "
                                         "expected=9, actual=8")

    def test_the_html_banner_names_every_failed_gate_with_counts(self):
        data = report_html.render(self.evaluation)
        banner = text_inside(tree(data), "header", "decision")
        self.assertTrue(banner.startswith("BLOCK a hard gate failed: do not ship BLOCK %d "
                                          "critical tasks failed: %s" % (
                                              len(self.critical), self.critical[0])))
        self.assertIn("BLOCK hard gate min_primary_task_success_rate failed", banner)
        self.assertIn("BLOCK hard gate min_trial_stability_rate failed", banner)
        self.assertNotIn(self.decision.reasons[1], banner)  # grouped, not listed
        page = parse_html(data)
        self.assertEqual(page.errors, [])
        for reason in self.decision.reasons:  # every reason, folded below
            self.assertIn(reason, page.joined)
        self.assertIn('<details>\n<summary><h2>Reasons (%d)</h2>' % len(self.decision.reasons),
                      data.decode("utf-8"))

    def test_the_markdown_groups_and_folds_the_rest(self):
        text = report_markdown.render(self.evaluation).decode("utf-8")
        reasons = text[text.index("### Reasons"):text.index("### Metrics")]
        self.assertIn("- \u26d4 %d critical tasks failed: %s" % (
            len(self.critical), ", ".join(self.critical[:GROUP_NAMES])), reasons)
        self.assertIn("(%d more)" % (len(self.critical) - GROUP_NAMES), reasons)
        self.assertIn("<details><summary>All %d reasons" % len(self.decision.reasons), reasons)
        self.assertEqual(reasons.count("critical task test-"), len(self.critical))

    def test_the_text_mode_groups_in_ascii(self):
        text = terminal.render(self.evaluation, width=200).decode("ascii")
        self.assertIn("BLOCK   %d critical tasks failed: %s ... (%d more)" % (
            len(self.critical), ", ".join(self.critical[:GROUP_NAMES]),
            len(self.critical) - GROUP_NAMES), text)

    def test_the_incomparable_banner_blames_no_protocol_difference_it_cannot_see(self):
        # The systems may well have run one protocol: it is the spec's they did not run.
        self.assertEqual(ACTION_WORDS["INCOMPARABLE"], "the systems did not both run under "
                                                       "the spec's protocol: no comparison is "
                                                       "possible")


class NarrowPageTests(unittest.TestCase):
    def test_chart_text_never_falls_below_a_readable_size(self):
        for selector, width in (("\\.chart", report_svg.WIDTH),
                                ("\\.chart\\.narrow", report_svg.NARROW_WIDTH)):
            minimum = int(re.search(selector + r" \{[^}]*min-width: (\d+)px",
                                    html_parts.STYLE).group(1))
            self.assertGreaterEqual(minimum * report_svg.FONT_SIZE / width,
                                    report_svg.MIN_TEXT_PX)
        self.assertGreaterEqual(report_svg.MIN_TEXT_PX, 9)
        # The wide chart gives way to the narrow one where it would fall below its minimum
        # (the page's margins are 20 px each side).
        switch = int(re.search(r"@media \(max-width: (\d+)px\) \{\s*\.chart\.wide "
                               r"\{ display: none; \}", html_parts.STYLE).group(1))
        self.assertGreaterEqual(switch + 1 - 40, report_svg.MIN_DISPLAY_WIDTH)
        parsed = tree(report_html.render(evaluate_arguments(SCENARIOS["BLOCK"])))
        charts = [ancestors for tag, attrs, ancestors in parsed.found
                  if tag == "svg" and attrs.get("class", "").startswith("chart ")]
        self.assertEqual(len(charts), 8)
        for ancestors in charts:  # a window narrower still scrolls the chart, not the page
            self.assertEqual(ancestors[-1], ("div", {"class": "scroll"}))

    def test_the_metric_table_stacks_each_row_with_its_column_names(self):
        data = report_html.render(evaluate_arguments(SCENARIOS["BLOCK"])).decode("utf-8")
        narrow = html_parts.STYLE[html_parts.STYLE.index("@media (max-width: 600px)"):
                                   html_parts.STYLE.index("@media print")]
        self.assertIn("table.metrics thead { display: none; }", narrow)
        self.assertIn("content: attr(data-label)", narrow)
        table = data[data.index('<table class="metrics">'):]
        table = table[:table.index("</table>")]
        cells = re.findall(r"<td[^>]*>", table)
        self.assertTrue(cells)
        for cell in cells:
            self.assertTrue("data-label=" in cell or 'class="held"' in cell
                            or 'class="failed"' in cell or cell == "<td>", cell)
        self.assertIn('<tr class="failed-row"><th scope="row">Side-effect-free trial rate', table)

    def test_the_grid_shows_the_candidates_trials_first(self):
        data = report_html.render(evaluate_arguments(SCENARIOS["BLOCK"])).decode("utf-8")
        grid = data[data.index('<table class="grid">'):]
        self.assertLess(grid.index("Candidate candidate-<wbr>regression: trials"),
                        grid.index("Baseline baseline-<wbr>v1: trials"))
        first_row = grid[grid.index("<tbody>"):grid.index("</tr>", grid.index("<tbody>"))]
        self.assertIn("test-<wbr>safety", first_row)  # the failing critical task leads
        cells = first_row.split("</td>")
        self.assertIn('data-label="slice"', cells[1])  # the slice beside the task
        self.assertIn("side effect", cells[2])

    def test_a_narrow_window_shows_each_task_as_a_card_of_its_failing_trials(self):
        data = report_html.render(evaluate_arguments(SCENARIOS["BLOCK"])).decode("utf-8")
        grid = data[data.index('<table class="grid">'):]
        first_row = grid[grid.index("<tbody>"):grid.index("</tr>", grid.index("<tbody>"))]
        # every failing cell and verdict names itself, for the card the row becomes
        self.assertIn('<td class="bad" data-label="candidate trial 1" ', first_row)
        self.assertIn('data-label="candidate task">\u2717 0/3 (critical gate)</td>',
                      first_row)
        self.assertIn('data-label="baseline task">', first_row)
        self.assertNotIn('class="ok" data-label', grid)
        narrow = data[data.index("@media (max-width: 600px)"):]
        narrow = narrow[:narrow.index("\n}\n")]
        self.assertIn("table.grid thead, table.grid td.ok, table.grid td:empty "
                      "{ display: none; }", narrow)
        self.assertIn("table.grid td[data-label]::before", narrow)


if __name__ == "__main__":
    unittest.main()
