"""The suite's own rules, read from its source.

``python -B test_run_benchmark.py`` runs every test in plain mode and, in ``-O``, ``-W error``
and ``-O -W error``, every test but those of a class saying ``ONCE_PER_INTERPRETER`` (with
a few words saying why). Such a class must give the same result in every mode: ``-O``
removes ``assert`` statements and ``__debug__`` blocks (the product has none, test_layers
holds it), ``-W error`` turns a warning raised in this process into an error, and neither
reaches a child process (the suite passes no mode flags to its children unless a test names
them itself). So a class run once per interpreter runs nothing of the product in this
process: it reads the source, or starts the product as a child process, and it never reads
its own mode. The check follows the class, its bases and every function, class and constant
of its module it names; a name it takes from the checkout (the package, the development
tools, the suite's helpers) must be one of ``HARMLESS``, each said why.

No test sleeps longer than the behaviour it checks needs: a ``sleep`` of more than
``SLEEP_LIMIT`` seconds, or of a computed time, is one of ``SLEEPS``, with the behaviour it
waits for.
"""

import ast
import os
import unittest

import test_run_benchmark

from . import source_tree
from .test_layers import dotted

TESTS = os.path.join(source_tree.ROOT, "tests")
# What is ours rather than the standard library's: a name taken from one of these runs our
# code, so it must be one of HARMLESS to be used by a class run once per interpreter.
CHECKOUT = ("proagents_bench", "devtools", "tests", "test_run_benchmark", "run_benchmark")
HARMLESS = {
    "ROOT": "a path", "EXAMPLES": "a path", "RUN_BENCHMARK": "a path", "PACKAGE": "a path",
    "TempDir": "a temporary folder",
    "example_path": "a path", "load_example": "reads an example's JSON (the json module)",
    "example_package": "reads the examples' JSON (the json module)",
    "with_example": "adds the example's paths to a command line",
    "run_subprocess": "the command line in a child process, with the flags the test names",
    "Run": "holds a child's status and output; decodes its JSON (the json module)",
    "codes": "reads a decision document", "gate_findings": "reads a decision document",
    "report_text": "reads a report file (the standard library's HTML parser)",
    "source_tree": "parses the source", "dotted": "reads a syntax tree",
    "synthetic": "the development tools' writer of synthetic inputs, data only: the gate "
                 "reading them runs in the child",
    "test_run_benchmark": "the suite's loader: it imports the tests and runs none",
    "MODES": "the four modes' interpreter flags, for a child process",
    "COMMANDS": "the commands' registry, read for their names (no row's loader is called)",
}
# Reading these is reading the mode.
MODE_NAMES = ("sys.flags", "sys.warnoptions", "__debug__")
SLEEP_LIMIT = 0.3
# (module, function) of every sleep longer than SLEEP_LIMIT or of a computed time, and the
# behaviour it waits for.
SLEEPS = {
    ("tests/test_hostile.py", "test_signals_at_arbitrary_moments"):
        "the delays are the moments, counted from when the child handles SIGTERM, at which "
        "the signal lands in the gate's run",
}


def _imports(tree):
    """{local name: the modules it is imported from} of every import statement of a module,
    wherever it stands (a relative import is the suite's own: ``tests``)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                found.setdefault(name, set()).add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                found.setdefault(alias.asname or alias.name, set()).add(
                    "tests" if node.level else node.module or "")
    return found


def _top_level(tree):
    """{name: [the module's top-level nodes defining it]}: functions, classes, constants."""
    defined = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.setdefault(node.name, []).append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        defined.setdefault(name.id, []).append(node)
    return defined


def once_per_interpreter_reason(node):
    """The reason a class gives for running once per interpreter, or None."""
    for statement in node.body:
        if (isinstance(statement, ast.Assign) and any(
                isinstance(target, ast.Name)
                and target.id == test_run_benchmark.ONCE_PER_INTERPRETER
                for target in statement.targets)):
            value = statement.value
            return value.value if isinstance(value, ast.Constant) else ""
    return None


def reached(tree, start):
    """The nodes a class's tests can run: the class, then every top-level function, class
    and constant of the module named by what is reached, again and again."""
    defined = _top_level(tree)
    seen, todo, names = [], [start], {start.name}
    while todo:
        node = todo.pop()
        seen.append(node)
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and inner.id in defined and inner.id not in names:
                names.add(inner.id)
                todo.extend(defined[inner.id])
    return seen


def in_process_uses(tree, start):
    """(line, what) of everything reached from class ``start`` that could make its result
    depend on the mode: a name taken from the checkout that is not HARMLESS, or the mode
    read."""
    imported = _imports(tree)
    found = []
    for node in reached(tree, start):
        for inner in ast.walk(node):
            name = dotted(inner)
            if isinstance(inner, (ast.Name, ast.Attribute)) and name in MODE_NAMES:
                found.append((inner.lineno, name + " (the mode)"))
            elif isinstance(inner, ast.Name) and inner.id not in HARMLESS:
                found += [(inner.lineno, "%s from %s" % (inner.id, module))
                          for module in imported.get(inner.id, ())
                          if module.split(".")[0] in CHECKOUT]
    return sorted(set(found))


def suite_modules():
    """(path relative to the checkout, with '/', syntax tree) of every module of the suite."""
    return [("tests/" + relative, tree) for relative, tree in source_tree.modules(TESTS)]


def flagged_classes():
    """(module path, class node, reason) of every class run once per interpreter."""
    return [(relative, node, once_per_interpreter_reason(node))
            for relative, tree in suite_modules() for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef) and once_per_interpreter_reason(node) is not None]


def _seconds(node):
    """The longest time a sleep's argument can be (a number, or a choice of two), or None
    when it is computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.IfExp):
        both = (_seconds(node.body), _seconds(node.orelse))
        return None if None in both else max(both)
    return None


def sleeps(tree):
    """(function name, line, seconds or None when computed) of every ``sleep`` call."""
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and dotted(node.func) in ("time.sleep", "sleep"):
                seconds = _seconds(node.args[0]) if node.args else None
                found.append((function.name, node.lineno, seconds))
    return found


def long_sleeps(relative, tree):
    """(module, function, line) of the sleeps over SLEEP_LIMIT (or computed)."""
    return sorted({(relative, name, line) for name, line, seconds in sleeps(tree)
                   if seconds is None or seconds > SLEEP_LIMIT})


def _leaf_ids(suite):
    found = set()
    for test in suite:
        found |= _leaf_ids(test) if isinstance(test, unittest.TestSuite) else {test.id()}
    return found


class OncePerInterpreterTests(unittest.TestCase):
    ONCE_PER_INTERPRETER = "reads the suite's source, and loads it without running it"

    def test_a_class_run_once_per_interpreter_runs_no_product_code_in_process(self):
        flagged = flagged_classes()
        self.assertGreater(len(flagged), 5)
        trees = dict(suite_modules())
        for relative, node, reason in flagged:
            with self.subTest(module=relative, test_class=node.name):
                self.assertTrue(isinstance(reason, str) and reason.strip(),
                                "ONCE_PER_INTERPRETER is the reason, in words")
                self.assertEqual(in_process_uses(trees[relative], node), [])

    def test_the_rule_sees_the_product_run_in_process_and_the_mode_read(self):
        tree = ast.parse(
            "import sys\n"
            "from unittest import mock\n"
            "from proagents_bench import pipeline\n"
            "from tests.support import TempDir, run_cli, run_subprocess\n"
            "LIMIT = pipeline.MAX_REPORTED_ERRORS\n"
            "def helper(test):\n"
            "    return run_cli([])\n"
            "class Clean(unittest.TestCase):\n"
            "    ONCE_PER_INTERPRETER = 'children only'\n"
            "    def test(self):\n"
            "        run_subprocess(['--help'], cwd=TempDir(self).path)\n"
            "class Helper(unittest.TestCase):\n"
            "    def test(self):\n"
            "        helper(self)\n"
            "class Patched(unittest.TestCase):\n"
            "    def test(self):\n"
            "        with mock.patch.object(pipeline, 'evaluate'):\n"
            "            pass\n"
            "class Constant(unittest.TestCase):\n"
            "    def test(self):\n"
            "        self.assertTrue(LIMIT)\n"
            "class Inside(unittest.TestCase):\n"
            "    def test(self):\n"
            "        from proagents_bench.cli import main\n"
            "        main([])\n"
            "class Mode(unittest.TestCase):\n"
            "    def test(self):\n"
            "        run_subprocess(['-O'] if sys.flags.optimize else [])\n")
        classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
        self.assertEqual(once_per_interpreter_reason(classes["Clean"]), "children only")
        self.assertIsNone(once_per_interpreter_reason(classes["Helper"]))
        self.assertEqual(in_process_uses(tree, classes["Clean"]), [])
        self.assertEqual(in_process_uses(tree, classes["Helper"]),
                         [(7, "run_cli from tests.support")])
        self.assertEqual(in_process_uses(tree, classes["Patched"]),
                         [(17, "pipeline from proagents_bench")])
        self.assertEqual(in_process_uses(tree, classes["Constant"]),
                         [(5, "pipeline from proagents_bench")])
        self.assertEqual(in_process_uses(tree, classes["Inside"]),
                         [(25, "main from proagents_bench.cli")])
        self.assertEqual(in_process_uses(tree, classes["Mode"]), [(28, "sys.flags (the mode)")])

    def test_the_package_never_reads_its_mode(self):
        # -O changes a program through its asserts (the package has none: test_layers) and
        # what it reads of its mode (nothing, here): what a mode can reveal in the package
        # is then a warning it raises (-W error), in the process that runs it.
        found = [(relative, node.lineno, dotted(node)) for relative, tree in
                 source_tree.modules() for node in ast.walk(tree)
                 if isinstance(node, (ast.Name, ast.Attribute)) and dotted(node) in MODE_NAMES]
        self.assertEqual(found, [])

    def test_the_other_modes_leave_out_exactly_the_classes_run_once(self):
        loader = unittest.TestLoader()
        every = _leaf_ids(test_run_benchmark.load_tests(loader, unittest.TestSuite(), None))
        kept = _leaf_ids(test_run_benchmark.mode_dependent())
        flagged = {relative[:-len(".py")].replace("/", ".") + "." + node.name
                   for relative, node, _reason in flagged_classes()}
        left_out = every - kept
        self.assertTrue(kept < every)
        self.assertEqual({test.rsplit(".", 1)[0] for test in left_out}, flagged)
        self.assertEqual({test for test in kept if test.rsplit(".", 1)[0] in flagged}, set())


class SleepTests(unittest.TestCase):
    ONCE_PER_INTERPRETER = "reads the suite's source"

    def test_no_test_sleeps_longer_than_the_behaviour_it_checks_needs(self):
        found = [sleep for relative, tree in suite_modules()
                 for sleep in long_sleeps(relative, tree)]
        self.assertEqual(sorted({(relative, name) for relative, name, _line in found}),
                         sorted(SLEEPS))
        self.assertTrue(all(reason.strip() for reason in SLEEPS.values()))

    def test_the_rule_sees_a_long_or_computed_sleep(self):
        tree = ast.parse("import time\nfrom time import sleep\n"
                         "def short():\n    time.sleep(0.3)\n"
                         "def long():\n    time.sleep(0.5)\n"
                         "def computed(delay):\n    sleep(delay)\n"
                         "def either(fast):\n    time.sleep(0.01 if fast else 0.1)\n"
                         "def one_long(fast):\n    time.sleep(0.01 if fast else 1)\n")
        self.assertEqual(long_sleeps("m.py", tree), [("m.py", "computed", 8),
                                                     ("m.py", "long", 6),
                                                     ("m.py", "one_long", 12)])


class SummaryTests(unittest.TestCase):
    ONCE_PER_INTERPRETER = "counts given numbers: no product code"

    def test_each_mode_counts_what_it_ran_and_never_hides_a_failure(self):
        def counted(flags, ran, failed, skipped, status, every_test=10):
            run = test_run_benchmark.ModeRun(flags, "", ran, failed, skipped, status)
            return test_run_benchmark.counted(run, every_test)

        self.assertEqual(counted((), 10, 0, 1, 0, every_test=0),
                         ("plain: 9 passed, 0 failed, 1 skipped", 9, 0))
        self.assertEqual(counted(("-O",), 6, 1, 1, 1), (
            "-O: 4 passed, 1 failed, 1 skipped (4 tests run once per interpreter ran in "
            "plain mode only)", 4, 1))
        # A run that crashed, found nothing, or failed without saying so is a failure.
        self.assertEqual(counted(("-W", "error"), 0, 0, 0, -11), (
            "-Werror: 0 passed, 1 failed, 0 skipped (no summary: the run ended with status "
            "-11)", 0, 1))
        self.assertEqual(counted(("-W", "error"), 0, 0, 0, 0)[1:], (0, 1))
        self.assertEqual(counted(("-O", "-W", "error"), 6, 0, 0, 1),
                         ("-O-Werror: 5 passed, 1 failed, 0 skipped (4 tests run once per "
                          "interpreter ran in plain mode only)", 5, 1))


if __name__ == "__main__":
    unittest.main()
