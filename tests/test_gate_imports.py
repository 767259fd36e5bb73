"""The modules a plain gate run loads, held exactly.

Under ``python -B`` (as users run it) every module a run imports is compiled afresh, so each
one the gate does not need costs every run its compile time. The set below is what a plain
gate run (the shipped example, its JSON document on stdout, no report asked for) imports
from the package: a new import shows here as a one-line diff, made on purpose; a module that
serves other commands, the schemas or the slow path of a bad file stays out.
"""

import os
import subprocess
import sys
import unittest

from tests.support import RUN_BENCHMARK

# Sorted; one module a line.
GATE_MODULES = (
    "proagents_bench",
    "proagents_bench.cli",
    "proagents_bench.cli.commands",
    "proagents_bench.cli.fork",
    "proagents_bench.cli.gate_command",
    "proagents_bench.cli.progress",
    "proagents_bench.cli.report_files",
    "proagents_bench.cli.report_paths",
    "proagents_bench.cli.status",
    "proagents_bench.cli.streams",
    "proagents_bench.cli.usage",
    "proagents_bench.codes",
    "proagents_bench.contract",
    "proagents_bench.contract.containers",
    "proagents_bench.contract.gates",
    "proagents_bench.contract.harnesses",
    "proagents_bench.contract.inputs",
    "proagents_bench.contract.metrics",
    "proagents_bench.contract.origins",  # results v6's failure origins: their values
    "proagents_bench.contract.rules",
    "proagents_bench.contract.sequential",  # spec v5's design: its shape and rules
    "proagents_bench.contract.shapes",
    "proagents_bench.contract.validate",
    "proagents_bench.contract.validity",  # spec v6's bounds and results v6's origin: shapes
    "proagents_bench.contract.vocabulary",
    "proagents_bench.errors",
    "proagents_bench.evaluation",
    "proagents_bench.evaluation.comparison",
    "proagents_bench.evaluation.decision",
    "proagents_bench.evaluation.evidence",
    "proagents_bench.evaluation.grading",
    "proagents_bench.evaluation.metrics",
    "proagents_bench.jsonio",
    "proagents_bench.jsonio.atomic",
    "proagents_bench.jsonio.canonical",
    "proagents_bench.jsonio.canonical_fast",
    "proagents_bench.jsonio.canonical_reference",
    "proagents_bench.jsonio.checks",
    "proagents_bench.jsonio.dump",
    "proagents_bench.jsonio.gcpause",
    "proagents_bench.jsonio.load",
    "proagents_bench.jsonio.paths",
    "proagents_bench.pipeline",
    "proagents_bench.render",
    "proagents_bench.render.document",
    "proagents_bench.render.evaluation",
    "proagents_bench.render.nodecision",
    "proagents_bench.render.trialrows",
    "proagents_bench.reports",
    "proagents_bench.reports.registry",
    "proagents_bench.stats",
    "proagents_bench.stats.binomial",
    "proagents_bench.stats.bootstrap",
    "proagents_bench.stats.exact",
    "proagents_bench.stats.exact_tests",
    "proagents_bench.stats.normal",
    "proagents_bench.stats.paired",
    "proagents_bench.stats.passk",
    "proagents_bench.stats.quantiles",
    "proagents_bench.stats.student",
    "proagents_bench.steps",
    "proagents_bench.text",
    "proagents_bench.version",
)

# What must never be among them, whatever the list above grows to: the other commands'
# rooms, the schemas' builder, the loader's slow path (a valid file never needs it), and the
# renderers of reports nobody asked for.
NEVER = ("proagents_bench.importers", "proagents_bench.service", "proagents_bench.explain",
         "proagents_bench.maintenance", "proagents_bench.planning", "proagents_bench.release",
         "proagents_bench.manifest", "proagents_bench.release_outcome",
         "proagents_bench.contract.publish", "proagents_bench.contract.mapping",
         "proagents_bench.contract.release", "proagents_bench.contract.harness_docs",
         "proagents_bench.cli.parallel", "proagents_bench.jsonio.locate",
         "proagents_bench.tools", "devtools")
# Of reports/, only the registry (whose rows load their renderers when a report is asked
# for) may be imported by a plain run; of cli/, the commands' registry (whose rows load their
# modules when run) and no other command's module.
ALLOWED_REPORTS = ("proagents_bench.reports", "proagents_bench.reports.registry")


def gate_run_modules():
    """The sorted package modules a plain gate run has loaded when it ends (in a fresh
    interpreter, as a user's run)."""
    probe = ("import io, sys; sys.path.insert(0, sys.argv[1]); "
             "from proagents_bench import cli; "
             "status = cli.main([], stdout=io.BytesIO(), stderr=io.StringIO()); "
             "print(status, ' '.join(sorted(name for name in sys.modules "
             "if name.split('.')[0] in ('proagents_bench', 'devtools'))))")
    found = subprocess.run([sys.executable, "-B", "-c", probe,
                            os.path.dirname(RUN_BENCHMARK)], stdout=subprocess.PIPE,
                           check=True).stdout.decode("ascii").split()
    return int(found[0]), found[1:]


class GateImportsTests(unittest.TestCase):
    def test_a_plain_gate_run_imports_exactly_the_listed_modules(self):
        status, loaded = gate_run_modules()
        self.assertEqual(status, 0)  # the example decides PASS
        self.assertEqual(tuple(loaded), GATE_MODULES, "imported now, not listed: %s; listed, "
                         "not imported: %s" % (sorted(set(loaded) - set(GATE_MODULES)),
                                               sorted(set(GATE_MODULES) - set(loaded))))

    def test_the_list_holds_no_module_of_another_command(self):
        for name in GATE_MODULES:
            with self.subTest(name):
                for prefix in NEVER:
                    self.assertFalse(name == prefix or name.startswith(prefix + "."), prefix)
                if name.startswith("proagents_bench.reports"):
                    self.assertIn(name, ALLOWED_REPORTS)
                if name.startswith("proagents_bench.cli.") and name.endswith("_command"):
                    self.assertEqual(name, "proagents_bench.cli.gate_command")


if __name__ == "__main__":
    unittest.main()
