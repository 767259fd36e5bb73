"""The house rules of the source, read from its syntax trees: the product imports nothing of
the development package beside it (``devtools/``) nor of the tests, data flows one way (each
layer imports only the layers below it, no module imports itself back through others,
nothing below the service imports it, and the service imports no command), only the commands
print or end the process, no ``assert`` validates anything (``-O`` would remove it), and
every SQLite connection is opened in one place, by the context manager that closes it."""

import ast
import importlib
import inspect
import os
import re
import unittest

from devtools import commands as development_commands
from proagents_bench.cli import commands
from proagents_bench.importers import readers
from proagents_bench.reports import registry

from . import source_tree
from .support import ROOT

PACKAGE = os.path.join(ROOT, "proagents_bench")
# The layers allowed to use the service: the commands.
SERVICE_USERS = ("service", "cli")
# The package's layers, bottom first (a top-level module or folder each), in the order the
# data flows: a module imports only from its own layer and those before it.
LAYERS = (
    "text", "version", "codes", "errors", "steps", "stats", "jsonio",  # the ground: words,
    # a long loop's count, numbers, JSON
    "contract", "evaluation",  # what the files must be; grade, aggregate, compare, decide
    "importers",  # harness logs -> a results package (the contract's shapes, the metrics' P95)
    "render", "pipeline",  # load -> validate -> ... -> decide -> render: the gate
    "ledgered",  # the gate with a ledger of its looks, on the pipeline
    "maintenance", "planning",  # health, diff and the planner, on the pipeline's stages
    "explain",  # why a decision went as it did: the pipeline's grades and the harnesses' traces
    "manifest", "release_outcome",  # a release's data: its manifest, its benchmarks' outcomes
    "reports",  # bytes for people and CI, from an Evaluation, a Health, a Release
    "release",  # a release's benchmarks: imports, gates and their reports, through the above
    "service",  # the private-test service, on the pipeline
    "cli", "__main__", "__init__")  # the command line: the only code that prints or exits
# The modules that read a trial's trace from a log: only explain and the commands use them
# (the import reads logs through the readers' table, which holds the trace readers too).
TRACE_MODULES = ("proagents_bench.explain", "proagents_bench.importers.trace",
                 "proagents_bench.importers.json_excerpt",
                 "proagents_bench.importers.inspect_trace",
                 "proagents_bench.importers.tau2_trace", "proagents_bench.importers.harbor_trace",
                 "proagents_bench.importers.promptfoo_trace",
                 "proagents_bench.importers.swebench_trace")
# What the product never imports: the top-level packages beside it in the checkout.
OUTSIDE_THE_PRODUCT = ("devtools", "tests")


def modules():
    """(path relative to the package, with '/', its syntax tree) of every module."""
    return source_tree.modules(PACKAGE)


def imported(relative, node):
    """The absolute module names an import node brings in, for a module at ``relative``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level == 0:
        base = node.module or ""
    else:
        parts = ["proagents_bench"] + relative.split("/")[:-1]
        parts = parts[:len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    return [base] + ["%s.%s" % (base, alias.name) for alias in node.names]


def dotted(node):
    """``a.b.c`` of a name or attribute chain, else ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return inner + "." + node.attr if inner else ""
    return ""


def layer(relative):
    return relative.split("/")[0] if "/" in relative else ""


def top(relative):
    """The layer of a module: its folder, or its own name at the top of the package."""
    return relative.split("/")[0] if "/" in relative else relative[:-len(".py")]


def module_name(relative):
    name = "proagents_bench." + relative[:-len(".py")].replace("/", ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


def runtime_imports(relative, tree):
    """The package's modules a module imports when it is imported: the imports of its top
    level (and of its top-level ``if`` and ``try`` blocks), not those for type checking only
    nor those inside functions."""
    nodes = []
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            continue
        if isinstance(node, (ast.If, ast.Try)):
            nodes.extend(inner for inner in ast.walk(node)
                         if isinstance(inner, (ast.Import, ast.ImportFrom)))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            nodes.append(node)
    return [name for node in nodes for name in imported(relative, node)]


def drawn_layers(text):
    """The layers the house drawing of docs/development.md names (its block that starts
    ``proagents_bench/``), from the ground up, each floor's left to right; and whether it
    draws the development code beside the package."""
    block = re.search(r"```\nproagents_bench/.*?\n(.*?)```", text, re.S)
    if block is None:
        return [], False
    floors = block.group(1).splitlines()[::-1]
    names = [match.group(1) for floor in floors
             for match in re.finditer(r"\b([a-z_]+)(?:/|\.py)", floor)]
    beside = all(name in names for name in OUTSIDE_THE_PRODUCT)
    return [name for name in names if name not in OUTSIDE_THE_PRODUCT], beside


class HouseDrawingTests(unittest.TestCase):
    ONCE_PER_INTERPRETER = "reads only the docs and the suite's own table"

    def test_the_drawing_is_the_layer_order(self):
        with open(os.path.join(ROOT, "docs", "development.md"), "rb") as handle:
            text = handle.read().decode("utf-8")
        layers, beside = drawn_layers(text)
        self.assertEqual(layers, [name for name in LAYERS
                                  if name not in ("__main__", "__init__")])
        self.assertTrue(beside)

    def test_the_check_sees_a_floor_out_of_place(self):  # the check above, checked
        drawing = ("```\nproagents_bench/\n  cli/  x  devtools/\n  render/\n  pipeline.py\n"
                   "  tests/\n```\n")
        self.assertEqual(drawn_layers(drawing), (["pipeline", "render", "cli"], True))


class LayerTests(unittest.TestCase):
    ONCE_PER_INTERPRETER = "reads only the source"

    def test_the_product_imports_no_development_code(self):
        # Every import statement of every module (those under TYPE_CHECKING and inside
        # functions too): nothing of devtools/ or tests/, whose modules import the product.
        wrong = [(relative, node.lineno, name)
                 for relative, tree in modules() for node in ast.walk(tree)
                 for name in imported(relative, node)
                 if name.split(".")[0] in OUTSIDE_THE_PRODUCT]
        self.assertEqual(wrong, [])
        dynamic = [(relative, node.lineno) for relative, tree in modules()
                   for node in ast.walk(tree) if isinstance(node, ast.Call)
                   and dotted(node.func) in ("import_module", "importlib.import_module",
                                             "__import__")
                   and any(isinstance(argument, ast.Constant)
                           and str(argument.value).split(".")[0] in OUTSIDE_THE_PRODUCT
                           for argument in node.args)]
        self.assertEqual(dynamic, [])

    def test_nothing_below_the_service_imports_it_and_it_imports_no_command(self):
        wrong = []
        for relative, tree in modules():
            for node in ast.walk(tree):
                for name in imported(relative, node):
                    if (name.startswith("proagents_bench.service")
                            and layer(relative) not in SERVICE_USERS):
                        wrong.append((relative, name))
                    if layer(relative) == "service" and name.startswith("proagents_bench.cli"):
                        wrong.append((relative, name))
        self.assertEqual(wrong, [])

    def test_the_service_never_reads_a_trace(self):
        # The private-test service shows no trace of a private case: it imports neither
        # explain nor any trace reader, at any depth of its own modules.
        wrong = [(relative, name) for relative, tree in modules() if layer(relative) == "service"
                 for node in ast.walk(tree) for name in imported(relative, node)
                 if name.startswith(TRACE_MODULES + ("proagents_bench.importers",))]
        self.assertEqual(wrong, [])

    def test_each_layer_imports_only_the_layers_below_it(self):
        wrong = []
        for relative, tree in modules():
            mine = LAYERS.index(top(relative))
            for node in ast.walk(tree):
                for name in imported(relative, node):
                    parts = name.split(".")
                    if parts[0] != "proagents_bench" or len(parts) < 2:
                        continue
                    if parts[1] in LAYERS and LAYERS.index(parts[1]) > mine:
                        wrong.append((relative, name))
        self.assertEqual(sorted(set(wrong)), [])

    def test_every_layer_is_named(self):
        self.assertEqual(sorted({top(relative) for relative, _tree in modules()}),
                         sorted(LAYERS))

    def test_the_import_graph_has_no_cycle(self):
        # Depth-first search over the imports made at import time: a module met again while
        # its own imports are being followed closes a cycle.
        graph = {}
        for relative, tree in modules():
            graph[module_name(relative)] = set()
            for name in runtime_imports(relative, tree):
                graph[module_name(relative)].add(name)
        graph = {name: sorted(found for found in edges if found in graph and found != name)
                 for name, edges in graph.items()}
        cycles, state = [], {}

        def visit(name, path):
            state[name] = "open"
            for found in graph[name]:
                if state.get(found) == "open":
                    cycles.append(path[path.index(found):] + [found])
                elif found not in state:
                    visit(found, path + [found])
            state[name] = "done"

        for name in sorted(graph):
            if name not in state:
                visit(name, [name])
        self.assertEqual(cycles, [])

    def test_maintenance_sits_above_the_pipeline_and_below_the_reports(self):
        # health and diff reuse the pipeline's stages; the reports, the service and the
        # commands use them, and they use none of those (nor the release, nor the importers:
        # the command line imports the logs a health reads).
        users = ("maintenance", "reports", "service", "cli")
        above = ("reports", "release", "service", "cli", "importers")
        wrong = []
        for relative, tree in modules():
            for node in ast.walk(tree):
                for name in imported(relative, node):
                    if (name.startswith("proagents_bench.maintenance")
                            and layer(relative) not in users):
                        wrong.append((relative, name))
                    if layer(relative) == "maintenance" and any(
                            name.startswith("proagents_bench." + upper) for upper in above):
                        wrong.append((relative, name))
        self.assertEqual(wrong, [])

    def test_only_the_commands_print_or_end_the_process(self):
        forbidden = {"print", "exit", "quit", "sys.exit", "os._exit", "os.abort"}
        wrong = []
        for relative, tree in modules():
            if layer(relative) == "cli":
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and dotted(node.func) in forbidden:
                    wrong.append((relative, node.lineno, dotted(node.func)))
                if isinstance(node, ast.Attribute) and dotted(node) in ("sys.stdout",
                                                                         "sys.stderr"):
                    wrong.append((relative, node.lineno, dotted(node)))
        self.assertEqual(wrong, [])

    def test_no_assert_statement_validates_anything(self):
        found = [(relative, node.lineno) for relative, tree in modules()
                 for node in ast.walk(tree) if isinstance(node, ast.Assert)]
        self.assertEqual(found, [])

    def test_sqlite_connections_are_opened_only_by_the_manager_that_closes_them(self):
        # sqlite3's own context manager commits but never closes: every connection comes
        # from database.connection(), whose finally closes it.
        opened = []
        for relative, tree in modules():
            for function in ast.walk(tree):
                if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(function):
                    if isinstance(node, ast.Call) and dotted(node.func) in (
                            "sqlite3.connect", "connect", "database.connect"):
                        opened.append((relative, function.name, dotted(node.func)))
        self.assertEqual(opened, [("service/database.py", "connect", "sqlite3.connect"),
                                  ("service/database.py", "connection", "connect")])


def loader_imports(function):
    """The module a registry row's loader imports and returns (``from . import x`` then
    ``return x``, nothing else), read from its syntax tree; None for any other body."""
    tree = ast.parse(inspect.getsource(inspect.getmodule(function)))
    found = [node for node in ast.walk(tree)
             if isinstance(node, ast.FunctionDef) and node.name == function.__name__]
    if len(found) != 1:
        return None
    body = [node for node in found[0].body if not isinstance(node, ast.Expr)]  # a docstring
    if (len(body) != 2 or not isinstance(body[0], ast.ImportFrom) or len(body[0].names) != 1
            or not isinstance(body[1], ast.Return)
            or dotted(body[1].value) != (body[0].names[0].asname or body[0].names[0].name)):
        return None
    node = body[0]
    base = node.module or ""
    if node.level:  # relative to the loader's own package
        base = ".".join(filter(None, (function.__module__.rsplit(".", node.level)[0],
                                      node.module)))
    return base + "." + node.names[0].name


class RegistryLinkTests(unittest.TestCase):
    """Every registry row names its code by an import the layer test and the type checker
    follow, never by a string: a command's and a report's loader imports its module (and
    returns it, typed by its protocol), a reader's row holds the function itself."""

    def loaders(self):
        rows = [(row.name, row.load) for row in commands.COMMANDS]
        rows += [(row.name, row.load) for row in development_commands.COMMANDS]
        rows += [("no command", development_commands.NO_COMMAND.load)]
        rows += [(row.option, row.load) for row in registry.REPORTS + registry.HEALTH_REPORTS
                 + registry.RELEASE_REPORTS]
        rows += [(function.__name__, function) for function in (
            registry.gate_text, registry.release_text, registry.no_decision_text)]
        return rows

    def test_every_loader_imports_the_module_it_returns(self):
        for name, load in self.loaders():
            with self.subTest(row=name):
                module = load()
                self.assertEqual(loader_imports(load), module.__name__)

    def test_every_command_module_offers_what_the_dispatcher_calls(self):
        for row in commands.COMMANDS + development_commands.COMMANDS:
            with self.subTest(command=row.name):
                module = row.load()
                for name in ("add_arguments", "run"):
                    self.assertTrue(callable(getattr(module, name, None)), name)
        self.assertEqual(len({row.name for row in commands.COMMANDS}), len(commands.COMMANDS))

    def test_every_reader_row_holds_a_function_its_registry_imports(self):
        tree = ast.parse(inspect.getsource(readers))
        imported_here = {name for node in tree.body for name in imported(
            "importers/readers.py", node)}
        for row in readers.READERS:
            with self.subTest(log_format=row.log_format):
                self.assertIn(row.read.__module__, imported_here)
                module = importlib.import_module(row.read.__module__)
                self.assertIs(getattr(module, row.read.__name__), row.read)

    def test_the_check_sees_a_loader_that_names_its_module_by_a_string(self):
        def by_string():
            return importlib.import_module("proagents_bench.reports.html")

        def imports_another():
            from proagents_bench.reports import junit  # noqa: F401 - imported, not returned
            return registry

        self.assertIsNone(loader_imports(by_string))
        self.assertIsNone(loader_imports(imports_another))
        self.assertEqual(loader_imports(registry.gate_text), "proagents_bench.reports.terminal")

    def test_no_module_is_imported_by_its_name_as_a_string(self):
        # The one exception: the package's PEP 562 __getattr__, whose targets are imported
        # under its TYPE_CHECKING block too (the type checker and this test read them there).
        found = [relative for relative, tree in modules()
                 for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and dotted(node.func) in ("import_module", "importlib.import_module",
                                           "__import__")]
        self.assertEqual(found, ["__init__.py"])


if __name__ == "__main__":
    unittest.main()
