"""The error codes are one registry (``proagents_bench/codes.py``), held to the source both
ways: every code the package raises is a row of the registry, and every row is raised
somewhere. The source is read as syntax trees: a code is a string literal where a code goes
(the first argument of ``ContractError``, ``Problem``, ``Rule``, ``LogError`` and the helpers
that make one, every argument after the shared check of ``rules_of``, the first item of a
``(code, message)`` pair, a name or parameter called ``code``, the values of a ``..._CODES``
table)."""

import ast
import os
import re
import unittest

from proagents_bench import codes
from proagents_bench.service.problems import PROBLEMS, Problem

from . import source_tree
from .support import ROOT

PACKAGE = os.path.join(ROOT, "proagents_bench")
# The callables whose first argument (or ``code=``) is a code.
CODE_CALLS = {"ContractError", "Problem", "Rule", "LogError", "TraceProblem", "error", "fail",
              "_fail"}
# The callables whose every argument after the first is a code.
CODE_LIST_CALLS = {"rules_of"}
CODE_SHAPE = re.compile(r"[a-z][a-z0-9]*\.[a-z][a-z0-9_]*\Z")


def _name(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _text(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) \
        else None


def _message(node):
    """Whether ``node`` is a message: words (a string with a space), a formatted string or
    a concatenation."""
    return " " in (_text(node) or "") or isinstance(node, (ast.JoinedStr, ast.BinOp))


def code_uses(tree):
    """(code, line) of every code literal in a syntax tree (see the module docstring)."""
    found = []
    for node in ast.walk(tree):
        candidates = []
        if isinstance(node, ast.Call) and _name(node.func) in CODE_CALLS:
            candidates += node.args[:1]
            candidates += [keyword.value for keyword in node.keywords if keyword.arg == "code"]
        elif isinstance(node, ast.Call) and _name(node.func) in CODE_LIST_CALLS:
            candidates += node.args[1:]
        elif isinstance(node, ast.Tuple):
            candidates += [item for item, after in zip(node.elts, node.elts[1:])
                           if _message(after)]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [_name(target).lower() for target in targets]
            if any(name.endswith("code") for name in names):
                candidates.append(node.value)
            if any(name.endswith("codes") for name in names) and isinstance(node.value,
                                                                           ast.Dict):
                candidates += node.value.values
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.args[len(node.args.args) - len(node.args.defaults):]
            candidates += [default for argument, default in zip(arguments, node.args.defaults)
                           if argument.arg == "code"]
        for candidate in candidates:
            text = _text(candidate)
            if text is not None and CODE_SHAPE.match(text):
                found.append((text, candidate.lineno))
    return found


def source_code_uses():
    """{code: [where, ...]} over the package's modules, the registry itself left out."""
    uses = {}
    for relative, tree in source_tree.modules(PACKAGE):
        if relative == "codes.py":  # the registry itself
            continue
        for code, line in code_uses(tree):
            uses.setdefault(code, []).append("%s:%d" % (relative, line))
    return uses


class CodeRegistryTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.uses = source_code_uses()

    def test_every_code_raised_is_registered(self):
        unregistered = {code: where for code, where in self.uses.items()
                        if code not in codes.CODE_BY_NAME}
        self.assertEqual(unregistered, {})

    def test_every_registered_code_is_raised_somewhere(self):
        unused = [row.code for row in codes.CODES if row.code not in self.uses]
        self.assertEqual(unused, [])

    def test_the_scan_finds_codes_in_every_position_the_package_uses(self):
        # A scan that found nothing would make both tests above pass on an empty registry.
        self.assertIn("jsonio/locate.py", " ".join(self.uses["json.duplicate_key"]))
        self.assertIn("cli/team_command.py", " ".join(self.uses["cli.team"]))
        self.assertIn("cli/report_paths.py", " ".join(self.uses["cli.report_path"]))
        self.assertIn("jsonio/load.py", " ".join(self.uses["encoding.utf16"]))
        self.assertGreater(len(self.uses), 90)

    def test_the_scan_sees_a_code_that_is_not_registered(self):
        tree = ast.parse('ContractError("import.no_such_code", "m")\n'
                         'LogError(code="import.other", message="m")\n'
                         'PROBLEM = ("service.teapot", "I am a teapot %s" % x)\n'
                         'ERROR_CODE = "cli.fresh"\n')
        self.assertEqual(sorted(code for code, _line in code_uses(tree)), [
            "cli.fresh", "import.no_such_code", "import.other", "service.teapot"])

    def test_every_contract_error_exits_two_every_problem_has_an_http_status_a_trace_neither(self):
        for row in codes.CODES:
            with self.subTest(row.code):
                self.assertTrue(row.meaning.strip())
                if row.family == "service":
                    self.assertTrue(400 <= row.http_status < 600 and row.title)
                    self.assertEqual(row.exit_status, 0)
                elif row.family == "trace":  # said in an explanation; it ends no run
                    self.assertEqual((row.exit_status, row.http_status), (0, 0))
                else:
                    self.assertEqual((row.exit_status, row.http_status), (2, 0))

    def test_the_service_problems_are_the_registry_rows(self):
        self.assertEqual(PROBLEMS, {row.code: (row.http_status, row.title)
                                    for row in codes.CODES if row.family == "service"})
        with self.assertRaises(KeyError):
            Problem("service.no_such_problem", "detail")

    def test_every_family_is_listed_on_one_docs_page(self):
        # publish writes each page's list from the registry; test_schema holds the pages to
        # publish's output, so every code is documented.
        from devtools.publish import CODE_PAGES
        listed = [family for _page, families in CODE_PAGES for family in families]
        self.assertEqual(sorted(listed), sorted({row.family for row in codes.CODES}))

    def test_a_rule_states_its_code_meaning(self):
        from proagents_bench.contract.rules import CROSS_FILE_RULES
        for rule in CROSS_FILE_RULES:
            self.assertEqual(rule.text, codes.meaning(rule.code))


if __name__ == "__main__":
    unittest.main()
