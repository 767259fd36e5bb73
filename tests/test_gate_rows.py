"""The gates table (contract/gates.py) is the one description of a gate: each row's way of
naming tasks has its finder in the decision, each row reads a metric the metrics table
(contract/metrics.py) declares and the evaluation computes, and each spec version's gates
object, decision order and report rows are its rows."""

import unittest

from proagents_bench.contract.gates import (CASE_FINDERS, CRITICAL_GATE, GATES, TASK_GATE,
                                            deciding_gates, gates_object, gates_of)
from proagents_bench.contract.metrics import METRIC_BY_NAME, METRICS
from proagents_bench.contract.output import SYSTEM_METRICS
from proagents_bench.contract.vocabulary import SPEC_VERSIONS
from proagents_bench.evaluation.decision import FINDERS
from proagents_bench.evaluation.metrics import MEASURED_FIELD
from proagents_bench.reports.view import metric_rows
from tests.support import evaluate_arguments


class GateRowTests(unittest.TestCase):
    def test_every_way_of_naming_tasks_has_its_finder(self):
        self.assertEqual(sorted(FINDERS), sorted(CASE_FINDERS))
        for gate in GATES:
            self.assertIn(gate.cases.partition(":")[0], CASE_FINDERS, gate.key)

    def test_every_gate_reads_a_declared_metric_the_evaluation_computes(self):
        # The document writes every metric of the table from the evaluation's attribute of
        # the same name (render/document.py).
        candidate = evaluate_arguments([]).lazy_document["candidate_metrics"]
        for gate in GATES:
            if gate in (TASK_GATE, CRITICAL_GATE) or gate.interval is not None:
                continue  # a task's rate, judged per task; an interval of the comparison
            with self.subTest(gate.key):
                self.assertIn(gate.metric, METRIC_BY_NAME)
                self.assertIn(gate.metric, candidate)
        self.assertTrue(all(gate.interval in ("task", "trial") for gate in GATES
                            if gate.interval is not None))

    def test_the_document_shape_and_the_measures_come_from_the_metrics_table(self):
        keys = [field.key for field in SYSTEM_METRICS.fields]
        for metric in METRICS:
            self.assertIn(metric.name, keys)
            self.assertEqual(MEASURED_FIELD.get(metric.name), metric.measured_from)

    def test_each_spec_version_is_its_rows(self):
        for version in SPEC_VERSIONS:
            with self.subTest(version):
                rows = gates_of(version)
                self.assertEqual([field.key for field in gates_object(version).fields],
                                 [gate.key for gate in rows])
                self.assertEqual(deciding_gates(version),
                                 tuple(gate for gate in rows if gate is not TASK_GATE))
                shown = {row.gate.key for row in metric_rows(deciding_gates(version))
                         if row.gate is not None}
                self.assertEqual(shown, {gate.key for gate in rows if gate.severity
                                         and gate.interval is None})


if __name__ == "__main__":
    unittest.main()
