"""The house rules the importers keep, checked on their source (each test fails when its
rule is broken): data flows one way (nothing below the command line imports the
importers), only ``cli/`` prints or exits, validation never rests on ``assert`` (``-O``
strips it), and every function is typed."""

import ast
import os
import unittest

from tests import source_tree

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "proagents_bench")
# Above the importers: the command line and the tools that run it.
MAY_IMPORT_IMPORTERS = ("importers", "cli", "tools")
IMPORT_MODULES = ("importers", os.path.join("contract", "mapping.py"),
                  os.path.join("contract", "harnesses.py"),
                  os.path.join("cli", "import_command.py"),
                  os.path.join("tools", "import_bench.py"))


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


class HouseRuleTests(unittest.TestCase):
    ONCE_PER_INTERPRETER = "reads only the source"

    def test_nothing_below_the_command_line_imports_the_importers(self):
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
