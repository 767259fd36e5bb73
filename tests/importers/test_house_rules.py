"""The house rules the importers keep, checked on their source (each test fails when its
rule is broken): data flows one way (only the command line and the release use the
importers), each harness's reader imports only the importers' toolkit, the contract and the
layers below it (never another harness's module, nor the import's stages), only ``cli/``
prints or exits, validation never rests on ``assert`` (``-O`` strips it), and every function
is typed."""

import ast
import os
import unittest

from proagents_bench.contract.harnesses import HARNESS_OF_FORMAT
from proagents_bench.importers.readers import READERS
from tests import source_tree

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "proagents_bench")
# Who uses the importers: the command line, the release (a benchmark of harness logs,
# imported as the import command does) and explain (the trace readers). The gate, health,
# the service never read a log.
MAY_IMPORT_IMPORTERS = ("importers", "release.py", "explain", "cli")
# The importers' toolkit (see importers/__init__.py): what every harness's reader may import
# of the importers; the toolkit imports nothing else of them.
TOOLKIT = ("source", "values", "trial", "settings", "zstd", "zstd_tables", "trace",
           "trace_bytes", "json_excerpt")
# What a reader may import of the rest of the package: the contract and the layers below it.
READER_MAY_IMPORT = ("contract", "errors", "text", "jsonio")
# The one importer that imports every reader: the registry of their functions.
REGISTRY = "readers"
IMPORT_MODULES = ("importers", os.path.join("contract", "mapping.py"),
                  os.path.join("contract", "harnesses.py"),
                  os.path.join("contract", "harness_docs.py"),
                  os.path.join("cli", "import_command.py"))


def python_files(*parts):
    path = os.path.join(PACKAGE, *parts)
    if path.endswith(".py"):
        return [path]
    return [os.path.join(root, name) for root, _dirs, names in os.walk(path)
            for name in sorted(names) if name.endswith(".py")]


def parsed(path):
    return source_tree.syntax_tree(path)


def import_module_files():
    return [path for part in IMPORT_MODULES for path in python_files(part)]


def imports_importers(tree, path):
    """Whether the module at ``path`` imports ``proagents_bench.importers``."""
    package = os.path.relpath(os.path.dirname(path), os.path.dirname(PACKAGE)).split(os.sep)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(alias.name.startswith("proagents_bench.importers") for alias in node.names):
                return True
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names = [module + "." + alias.name for alias in node.names]
            if any(name.startswith("proagents_bench.importers") for name in [module] + names):
                return True
    return False


def package_imports(tree, path):
    """The absolute names of the package's modules the module at ``path`` imports (at its top,
    inside functions and for type checking alike)."""
    package = os.path.relpath(os.path.dirname(path), os.path.dirname(PACKAGE)).split(os.sep)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names = [module] + [module + "." + alias.name for alias in node.names]
        else:
            continue
        found.update(name for name in names if name.startswith("proagents_bench.") and (
            os.path.exists(os.path.join(os.path.dirname(PACKAGE), *name.split(".")) + ".py")
            or os.path.isdir(os.path.join(os.path.dirname(PACKAGE), *name.split(".")))))
    return found


def importers_graph():
    """{importers module (its name in the folder): the package's modules it imports}."""
    return {os.path.basename(path)[:-len(".py")]: package_imports(parsed(path), path)
            for path in python_files("importers")}


def reader_rule_problems(graph, roots, toolkit=TOOLKIT):
    """What breaks the readers' rule in ``graph`` (:func:`importers_graph`), for the harnesses
    whose readers are in ``roots`` ({harness: its reader functions' modules}). A harness's
    modules are its readers' and every module of the importers they import, directly or not,
    but the toolkit's: no module may be two harnesses' (a reader that imports another
    harness's module), none is imported by another importer but its harness's own and the
    registry (a reader that imports a stage of the import makes that stage its own, which
    the import imports), and each imports, beside the importers' toolkit and its own
    harness's modules, only the contract and the layers below it. The toolkit imports no
    other importer."""
    prefix = "proagents_bench.importers."
    owners = {}
    for harness, modules in sorted(roots.items()):
        todo = sorted(modules)
        while todo:
            module = todo.pop()
            if module in toolkit or harness in owners.setdefault(module, []):
                continue
            owners[module].append(harness)
            todo.extend(name[len(prefix):] for name in sorted(graph.get(module, ()))
                        if name.startswith(prefix))
    problems = []
    for module, harnesses in sorted(owners.items()):
        if len(harnesses) > 1:
            problems.append("importers/%s.py is a module of the readers of %s: each harness's "
                            "modules are its own, what two share belongs in the toolkit"
                            % (module, " and ".join(harnesses)))
        for name in sorted(graph.get(module, ())):
            layer = name.split(".")[1]
            if layer != "importers" and layer not in READER_MAY_IMPORT:
                problems.append("importers/%s.py (a reader's) imports %s" % (module, name))
    for module, imported in sorted(graph.items()):
        for name in sorted(imported):
            target = name[len(prefix):] if name.startswith(prefix) else None
            if module in toolkit and target is not None and target not in toolkit:
                problems.append("importers/%s.py (the toolkit) imports %s" % (module, name))
            elif target in owners and module != REGISTRY and owners.get(module) != owners[
                    target]:
                problems.append("importers/%s.py, a module of the readers of %s, is imported "
                                "by importers/%s.py: a harness's modules are imported only by "
                                "its own and by the registry" % (
                                    target, " and ".join(owners[target]), module))
    return problems


def reader_roots():
    """{harness: the modules that define its readers and its trace readers}, from the
    readers' registry."""
    roots = {}
    for row in READERS:
        harness = HARNESS_OF_FORMAT[row.log_format].name
        for function in (row.read, row.trace):
            if function is not None:
                roots.setdefault(harness, set()).add(function.__module__.rsplit(".", 1)[1])
    return roots


class ReaderRuleTests(unittest.TestCase):
    def test_each_reader_imports_only_the_toolkit_the_contract_and_its_own_modules(self):
        graph = importers_graph()
        roots = reader_roots()
        self.assertEqual(sorted(roots), sorted({harness.name for harness in
                                                HARNESS_OF_FORMAT.values()}))
        self.assertEqual(reader_rule_problems(graph, roots), [])

    def test_the_rule_sees_a_reader_that_imports_another_or_the_import(self):  # checked
        graph = importers_graph()
        roots = reader_roots()
        cases = {
            "harbor imports inspect_log": ("harbor", "proagents_bench.importers.inspect_log",
                                           "importers/inspect_log.py is a module of the "
                                           "readers of harbor and inspect_ai"),
            "a part of tau2 imports promptfoo": (
                "tau2_tools", "proagents_bench.importers.promptfoo",
                "importers/promptfoo.py is a module of the readers of promptfoo and tau2-bench"),
            "jsonl imports a stage of the import": (
                "jsonl", "proagents_bench.importers.samples", "importers/samples.py, a module "
                "of the readers of jsonl, is imported by importers/package.py"),
            "jsonl imports the import": ("jsonl", "proagents_bench.importers.package",
                                         "importers/inspect_log.py is a module of the readers "
                                         "of inspect_ai and jsonl"),
            "swebench imports the evaluation": ("swebench", "proagents_bench.evaluation.metrics",
                                                "importers/swebench.py (a reader's) imports "
                                                "proagents_bench.evaluation.metrics"),
            "the toolkit imports a reader": ("values", "proagents_bench.importers.tau2",
                                             "importers/values.py (the toolkit) imports "
                                             "proagents_bench.importers.tau2"),
        }
        for case, (module, imported, problem) in cases.items():
            with self.subTest(case):
                broken = dict(graph, **{module: graph[module] | {imported}})
                self.assertTrue([found for found in reader_rule_problems(broken, roots)
                                 if found.startswith(problem)],
                                reader_rule_problems(broken, roots))


class HouseRuleTests(unittest.TestCase):
    ONCE_PER_INTERPRETER = "reads only the source"

    def test_only_the_command_line_and_the_release_import_the_importers(self):
        for path in python_files():
            top = os.path.relpath(path, PACKAGE).split(os.sep)[0]
            if top in MAY_IMPORT_IMPORTERS:
                continue
            with self.subTest(os.path.relpath(path, PACKAGE)):
                self.assertFalse(imports_importers(parsed(path), path))

    def test_the_rule_sees_an_import(self):  # the check above, checked
        path = os.path.join(PACKAGE, "stats", "example.py")
        for source in ("from ..importers import tau2", "from ..importers.tau2 import x",
                       "import proagents_bench.importers.tau2", "from .. import importers"):
            with self.subTest(source):
                self.assertTrue(imports_importers(ast.parse(source), path))
        self.assertFalse(imports_importers(ast.parse("from ..contract import inputs"), path))

    def test_only_the_command_line_prints_or_exits_and_nothing_asserts(self):
        for path in import_module_files():
            if os.sep + "cli" + os.sep in path:
                continue
            for node in ast.walk(parsed(path)):
                with self.subTest(os.path.relpath(path, PACKAGE), line=getattr(
                        node, "lineno", 0)):
                    self.assertNotIsInstance(node, ast.Assert)
                    if isinstance(node, ast.Call):
                        name = getattr(node.func, "id", getattr(node.func, "attr", None))
                        self.assertNotIn(name, ("print", "exit", "_exit"))
                    if isinstance(node, ast.Raise) and node.exc is not None:
                        raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                        self.assertNotEqual(getattr(raised, "id", None), "SystemExit")

    def test_the_import_modules_assert_nothing(self):
        for path in import_module_files():
            with self.subTest(os.path.relpath(path, PACKAGE)):
                self.assertFalse([node.lineno for node in ast.walk(parsed(path))
                                  if isinstance(node, ast.Assert)])

    def test_every_function_is_typed(self):
        for path in import_module_files():
            for node in ast.walk(parsed(path)):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                untyped = [argument.arg for argument in arguments
                           if argument.annotation is None and argument.arg not in (
                               "self", "cls")]
                with self.subTest(os.path.relpath(path, PACKAGE), function=node.name):
                    self.assertEqual(untyped, [])
                    self.assertIsNotNone(node.returns)


if __name__ == "__main__":
    unittest.main()
