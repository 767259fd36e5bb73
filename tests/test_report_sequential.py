"""A look of a sequential design in every report: the text mode and the --summary lines, the
Markdown summary, the HTML report with its chart (the boundary as step lines, the path, the
ends of the looks, the point that decided) and JUnit; the interval gate the boundary replaces
is said to be replaced, never held; the page laid out in headless Chromium at 1280 and 390
pixels wide scrolls only inside its chart and tables."""

import os
import re
import unittest

from proagents_bench import pipeline
from proagents_bench.contract.sequential import design_of
from proagents_bench.reports import html, junit, markdown, terminal
from proagents_bench.reports.sequential_chart import chart, shown_units
from proagents_bench.reports.sequential_view import sequential_view
from tests.sequential_support import Design, controlled_run, even, inputs
from tests.support import EXAMPLES, TempDir, load_example
from tests.test_service_page import SCREENS, chromium, measure


def example_look(look):
    spec = load_example("sequential_spec.json")
    return pipeline.evaluate(inputs(spec, load_example("sequential_cases.json"),
                                    load_example("sequential_look%d.json" % look))), spec


class ReportTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.second, cls.spec = example_look(2)
        cls.third, _spec = example_look(3)

    def test_every_report_shows_the_looks_the_evidence_and_the_next_batch(self):
        texts = {
            "text": terminal.render(self.second, 120).decode("ascii"),
            "summary": "\n".join(terminal.summary_lines(self.second)),
            "markdown": markdown.render(self.second).decode("utf-8"),
            "html": html.render(self.second).decode("utf-8"),
        }
        for name, text in texts.items():
            with self.subTest(report=name):
                self.assertIn("look 2 of 4: continue", text)
                self.assertIn("14 discordant tasks, 10 won by the candidate", text)
                self.assertIn("look 3: tasks 21-30 of the frozen pool with trials 1-3", text)
                self.assertIn("exact false pass 2.3878%", text)
        self.assertIn("| 1 | 10 x 3 | 10 | 8 | 5 | 8 | 4 |", texts["markdown"])
        self.assertIn("| 2 | 20 x 3 | 20 | 14 | 10 | 12 | 8 |", texts["markdown"])
        self.assertIn('<section id="sequential">', texts["html"])
        # the looks so far, each with the boundary at its end (passes at, stops at)
        for name in ("text", "summary"):
            with self.subTest(report=name):
                self.assertIn("looks: 1: 10 tasks, 8 discordant, 5 won; 2: 20 tasks, 14 "
                              "discordant, 10 won", " ".join(texts[name].split()))
        # the next batch's task ids themselves, in every report (and in the reason)
        ids = self.second.document["sequential"]["next_batch"]["new_tasks"]["case_ids"]
        self.assertEqual(len(ids), 10)
        named = "%s and %s" % (", ".join(ids[:-1]), ids[-1])
        for name in ("text", "summary"):
            with self.subTest(report=name):
                self.assertIn("next tasks: " + named, " ".join(texts[name].split()))
        self.assertIn("its tasks: %s." % ", ".join("`%s`" % case_id for case_id in ids),
                      texts["markdown"])
        self.assertIn("tasks 21-30 of the frozen pool (%s), each with trials 1-3" % named,
                      self.second.document["primary_reason"])
        cells = '<td class="num">%s</td>'
        self.assertIn("".join(cells % value for value in ("2", "20 x 3", "20", "14", "10", "12",
                                                          "8")), texts["html"])
        self.assertIn('<path class="boundary pass"', texts["html"])
        self.assertIn('<path class="boundary futile"', texts["html"])
        for name in ("markdown", "html"):
            with self.subTest(report=name):
                self.assertIn("The design continues: run the next batch", texts[name])
        closed = markdown.render(self.third).decode("utf-8")
        self.assertIn("look 3 of 4: pass", closed)
        self.assertNotIn("Next batch", closed)

    def test_a_large_batch_names_its_first_tasks_and_how_many_more(self):
        cases, run = controlled_run(100, 3, even)
        design = Design(TempDir(self).path, cases, run, looks=[(5, 3), (55, 3), (100, 3)])
        evaluation = design.judge(1, ledger=False)
        ids = evaluation.document["sequential"]["next_batch"]["new_tasks"]["case_ids"]
        self.assertEqual(len(ids), 50)  # all of them in the JSON document
        compact = "%s and 44 more" % ", ".join(ids[:6])
        self.assertIn("tasks 6-55 of the frozen pool (%s; sequential.next_batch lists them "
                      "all), each with trials 1-3" % compact, evaluation.document["primary_reason"])
        text = " ".join(terminal.render(evaluation, 120).decode("ascii").split())
        self.assertIn("next tasks: %s (sequential.next_batch lists them all)" % compact, text)
        summary = markdown.render(evaluation).decode("utf-8")
        self.assertIn("its tasks: %s and 10 more (`sequential.next_batch` in the JSON "
                      "document)." % ", ".join("`%s`" % case_id for case_id in ids[:40]),
                      summary)

    def test_the_replaced_interval_gate_is_never_said_to_hold(self):
        # at look 2 the bootstrap interval's low end (-0.05) is below its gate (0)
        self.assertLess(self.second.document["comparison"]["paired_bootstrap_interval"][0], 0)
        word = "replaced by the sequential boundary"
        self.assertIn("| >= 0\\.0 | \u21aa\ufe0f %s |" % word,
                      markdown.render(self.second).decode("utf-8"))
        self.assertIn(word, terminal.render(self.second, 160).decode("ascii"))
        self.assertIn("\u21b7 %s" % word, html.render(self.second).decode("utf-8"))
        xml = junit.render(self.second).decode("utf-8")
        self.assertIn('name="min_paired_delta_ci_low" time="0.000">\n<skipped message='
                      '"min_paired_delta_ci_low: %s"/>' % word, xml)

    def test_a_fixed_design_has_no_sequential_section(self):
        evaluation = pipeline.evaluate([pipeline.InputFile(kind, os.path.join(EXAMPLES, name))
                                        for kind, name in (
                                            ("spec", "benchmark_spec_v4_trial.json"),
                                            ("cases", "benchmark_cases.json"),
                                            ("results", "benchmark_results_pass.json"))])
        self.assertIsNone(sequential_view(evaluation))
        self.assertNotIn("Sequential design", markdown.render(evaluation).decode("utf-8"))
        self.assertNotIn('id="sequential"', html.render(evaluation).decode("utf-8"))


class ChartTests(unittest.TestCase):
    def test_the_chart_draws_the_boundary_the_path_the_looks_and_the_decision(self):
        evaluation, spec = example_look(3)
        view = sequential_view(evaluation)
        svg = chart(view)
        boundary = design_of(evaluation.spec).boundary()
        last = shown_units(view)
        self.assertEqual(last, min(boundary.design.max_discordant, 26))  # 1.3 x 20 units
        # one polyline point per discordant unit walked, and a step per unit of each line
        points = re.search(r'<polyline class="path" points="([^"]+)"', svg).group(1).split()
        self.assertEqual(len(points), len(view.wins))
        passing = re.search(r'<path class="boundary pass" d="([^"]+)"', svg).group(1)
        passes = [n for n in range(1, last + 1) if boundary.passing[n] <= n]
        self.assertEqual(passing.count("H"), len(passes))
        futile = re.search(r'<path class="boundary futile" d="([^"]+)"', svg).group(1)
        self.assertEqual(futile.count("H"), sum(1 for n in range(1, last + 1)
                                                if boundary.futile[n] >= 0))
        self.assertEqual(re.findall(r'class="look-label"[^>]*>(look \d)<', svg),
                         ["look 1", "look 2", "look 3"])
        decided = re.search(r'<circle class="point pass" cx="([\d.]+)" cy="([\d.]+)"', svg)
        self.assertIsNotNone(decided)
        # the decision point lies on the path's point at the unit that decided
        x, y = points[view.decided_at].split(",")
        self.assertEqual((decided.group(1), decided.group(2)), (x, y))

    def test_a_long_design_draws_only_a_little_past_its_path(self):
        evaluation, _spec = example_look(1)
        view = sequential_view(evaluation)
        self.assertLessEqual(shown_units(view), len(view.passing) - 1)
        first_pass = next(n for n in range(1, len(view.passing)) if view.passing[n] <= n)
        self.assertGreaterEqual(shown_units(view), first_pass)


@unittest.skipIf(chromium() is None, "Chromium is not installed (CI installs it)")
class LayoutTests(unittest.TestCase):
    def test_the_page_scrolls_only_inside_its_chart_and_tables(self):
        evaluation, _spec = example_look(2)
        page = html.render(evaluation).decode("utf-8")
        for width, height in SCREENS:
            with self.subTest(width=width):
                shown = measure(self, page, width, height)
                self.assertLessEqual(shown["page_width"], shown["width"])
                titles = [board["title"] for board in shown["boards"]]
                self.assertIn("Sequential design: look 2 of 4: continue", titles)


if __name__ == "__main__":
    unittest.main()
