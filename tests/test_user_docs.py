"""What the user documentation claims, held to the code: the CI jobs of docs/ci.md are read
(by a small reader of the YAML they use) and their commands run as written against the
shipped examples, and the README's and the guide's statements of fact are checked."""

import ast
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import unittest

from proagents_bench import cli
from proagents_bench.cli.status import EXIT_BLOCK, EXIT_INCOMPARABLE, EXIT_REVIEW
from proagents_bench.contract import publish
from tests import source_tree
from tests.support import EXAMPLES, ROOT, RUN_BENCHMARK, TempDir, run_cli, run_subprocess
from tests.test_gitlab_report import gitlab_problems
from tests.test_reports import report_text

CI_DOC = os.path.join(ROOT, "docs", "ci.md")
_KEY = re.compile(r"^([A-Za-z_][\w-]*):(?:\s+|$)(.*)$")


def _scalar(text):
    """A YAML scalar as the jobs write them: quoted or plain text, an integer, a flow list."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return [_scalar(item) for item in text[1:-1].split(",") if item.strip()]
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return int(text) if re.fullmatch(r"-?\d+", text) else text


class MiniYaml:
    """The block-style YAML of CI files, and no more: mappings, sequences (of scalars or of
    mappings), plain and quoted scalars, flow lists of scalars, ``|`` block scalars and
    comment lines. Anything else is an error, so a job the reader would misread fails the
    test instead of passing it."""

    def __init__(self, text):
        self.lines = text.splitlines()
        self.index = 0

    @classmethod
    def parse(cls, text):
        reader = cls(text)
        value = reader.block(reader.indent())
        if reader.indent() != -1:
            raise ValueError("unread YAML from line %d: %r" % (
                reader.index + 1, reader.lines[reader.index]))
        return value

    def indent(self):
        """The indent of the next line that says something (-1 at the end)."""
        while self.index < len(self.lines) and (
                not self.lines[self.index].strip()
                or self.lines[self.index].strip().startswith("#")):
            self.index += 1
        if self.index == len(self.lines):
            return -1
        line = self.lines[self.index]
        return len(line) - len(line.lstrip(" "))

    def text(self):
        return self.lines[self.index].strip()

    def block(self, indent):
        if self.text().startswith("- "):
            return self.sequence(indent)
        return self.mapping(indent)

    def sequence(self, indent):
        items = []
        while self.indent() == indent and self.text().startswith("- "):
            content = self.text()[2:]
            if _KEY.match(content):  # a mapping whose first key shares the dash's line
                self.lines[self.index] = " " * (indent + 2) + content
                items.append(self.mapping(indent + 2))
            else:
                items.append(_scalar(content))
                self.index += 1
        return items

    def mapping(self, indent):
        result = {}
        while self.indent() == indent and not self.text().startswith("- "):
            match = _KEY.match(self.text())
            if not match:
                raise ValueError("line %d is no key: %r" % (self.index + 1, self.text()))
            key, rest = match.group(1), match.group(2).strip()
            if key in result:
                raise ValueError("key %r twice" % key)
            self.index += 1
            if rest == "|":
                result[key] = self.literal(indent)
            elif rest:
                result[key] = _scalar(rest)
            else:
                deeper = self.indent()
                nested = deeper > indent or (deeper == indent and self.text().startswith("- "))
                result[key] = self.block(deeper) if nested else None
        if self.indent() > indent:
            raise ValueError("unexpected indent at line %d" % (self.index + 1))
        return result

    def literal(self, indent):
        """A ``|`` block scalar: its lines, dedented, each ending in a newline."""
        lines = []
        while self.index < len(self.lines):
            line = self.lines[self.index]
            if line.strip() and len(line) - len(line.lstrip(" ")) <= indent:
                break
            lines.append(line)
            self.index += 1
        while lines and not lines[-1].strip():
            lines.pop()
        margin = min(len(line) - len(line.lstrip(" ")) for line in lines if line.strip())
        return "".join(line[margin:] + "\n" for line in lines)


def ci_jobs():
    """(the GitHub Actions workflow, the GitLab CI file) of docs/ci.md, parsed."""
    with open(CI_DOC, "rb") as handle:
        text = handle.read().decode("utf-8")
    blocks = [MiniYaml.parse(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]
    github = [block for block in blocks if "jobs" in block]
    gitlab = [block for block in blocks if "jobs" not in block]
    if len(github) != 1 or len(gitlab) != 1:
        raise AssertionError("docs/ci.md should hold one GitHub and one GitLab job")
    return github[0], gitlab[0]


# The scenarios a job is run on: the files put in bench/, and the decision they make.
SCENARIOS = (
    ("PASS", "benchmark_cases.json", "benchmark_results_pass.json"),
    ("REVIEW", "benchmark_cases.json", "exercise_results_p95_review.json"),
    ("BLOCK", "benchmark_cases.json", "benchmark_results_regression.json"),
    ("CONTRACT_ERROR", "benchmark_cases_contract_error.json", "benchmark_results_pass.json"),
)


# The files each scenario's Code Quality report points at, relative to the checkout.
CODE_QUALITY_PATHS = {"PASS": [], "REVIEW": ["bench/spec.json"],
                      "BLOCK": ["bench/cases.json", "bench/spec.json"],
                      "CONTRACT_ERROR": ["bench/cases.json"]}


def report_bytes(path):
    with open(path, "rb") as handle:
        return handle.read()


class Workspace:
    """A CI job's checkout: bench/ holding a scenario's files, and the job's commands run in
    it as written (a command the test does not know fails it)."""

    def __init__(self, test):
        self.test = test
        self.path = TempDir(test).path
        os.mkdir(os.path.join(self.path, "bench"))

    def scenario(self, cases, results):
        for name, source in (("spec.json", "benchmark_spec.json"), ("cases.json", cases),
                             ("results.json", results)):
            shutil.copyfile(os.path.join(EXAMPLES, source),
                            os.path.join(self.path, "bench", name))

    def run(self, script_lines, environment):
        """Run the lines as a CI shell does, in the checkout's folder (stopping at the first
        that fails); return the last exit status and the gate's stdout and stderr."""
        status, out, err = 0, b"", ""
        before = os.getcwd()
        os.chdir(self.path)
        try:
            for line in script_lines:
                words = [environment.get(word[1:], word) if word.startswith("$") else word
                         for word in shlex.split(line)]
                if words[:2] == ["mkdir", "-p"]:
                    os.makedirs(words[2], exist_ok=True)
                    continue
                self.test.assertEqual(words[:3],
                                      ["python", "-B", "proagents-bench/run_benchmark.py"],
                                      "a command this test does not know: %s" % line)
                stdout, stderr = io.BytesIO(), io.StringIO()
                status = cli.main(words[3:], stdout=stdout, stderr=stderr)
                out, err = stdout.getvalue(), stderr.getvalue()
                if status:
                    break
        finally:
            os.chdir(before)
        return status, out, err

    def file(self, relative):
        return os.path.join(self.path, relative)


def gate_options(command):
    words = shlex.split(command)
    return {word: words[index + 1] for index, word in enumerate(words[:-1])
            if word.startswith("--")}, words


class GitHubActionsJobTests(unittest.TestCase):
    def setUp(self):
        workflow = ci_jobs()[0]
        self.steps = workflow["jobs"]["release-gate"]["steps"]
        self.gate = next(step for step in self.steps
                         if "run_benchmark.py" in (step.get("run") or ""))
        self.lines = [line for line in self.gate["run"].splitlines() if line.strip()]
        self.options, self.words = gate_options(self.lines[-1])

    def test_reports_are_kept_and_wired_whatever_the_decision(self):
        later = self.steps[self.steps.index(self.gate) + 1:]
        upload = next(step for step in later
                      if step.get("uses", "").startswith("actions/upload-artifact@"))
        junit = next(step for step in later if "junit" in json.dumps(step.get("with")) or
                     "unit-test-result" in step.get("uses", ""))
        for step in (upload, junit):
            self.assertEqual(step["if"], "always()")
        folder = upload["with"]["path"]
        for option in ("--output", "--html", "--junit-xml"):
            self.assertTrue(self.options[option].startswith(folder), option)
        self.assertEqual(junit["with"]["files"], self.options["--junit-xml"])
        self.assertEqual(self.options["--markdown-append"], "$GITHUB_STEP_SUMMARY")
        self.assertNotIn("--markdown", self.options)  # it would replace the step's summary

    def test_its_commands_decide_as_the_docs_say(self):
        workspace = Workspace(self)
        expected = {"PASS": 0, "REVIEW": 0, "BLOCK": 1, "CONTRACT_ERROR": 2}
        for action, cases, results in SCENARIOS:  # one workspace: a reused CI checkout
            with self.subTest(action=action):
                workspace.scenario(cases, results)
                summary = workspace.file("step_summary_%s.md" % action)
                with open(summary, "wb") as handle:  # GitHub's file, fresh for each step
                    handle.write(b"an earlier command of this step\n")
                status, out, err = workspace.run(self.lines, {"GITHUB_STEP_SUMMARY": summary})
                self.assertEqual(status, expected[action])
                # the log gets the summary and the annotations, not the document
                annotations = out.decode("ascii").splitlines()
                self.assertTrue(all(line.startswith(("::error ", "::warning ", "::notice "))
                                    for line in annotations), annotations)
                self.assertIn("title=proagents-bench %s" % action, annotations[-1])
                self.assertLess(len(err.splitlines()), 12)
                self.assertIn(action, err)
                with open(summary, "rb") as handle:
                    text = handle.read().decode("utf-8")
                self.assertTrue(text.startswith("an earlier command of this step\n"))
                self.assertIn(" %s: " % action, text)
                for option in ("--output", "--html", "--junit-xml"):
                    self.assertIn(action, report_text(workspace.file(self.options[option])))


@unittest.skipUnless(shutil.which("bash"), "needs a POSIX shell")
class StepSummaryOnYourMachineTests(unittest.TestCase):
    """docs/ci.md's advice for trying the job's command where nothing sets
    $GITHUB_STEP_SUMMARY, in a real shell: the variable exported on a line of its own works;
    as a prefix of the same command line it comes too late (the shell expands the argument
    first), which is the usage error the docs warn of."""

    ONCE_PER_INTERPRETER = "child processes only (a shell), in plain mode"

    def run_shell(self, script):
        folder = TempDir(self).path
        completed = subprocess.run(["bash", "-c", script, "bash", sys.executable,
                                    RUN_BENCHMARK], cwd=folder, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env={key: value for key, value in os.environ.items()
                                        if key != "GITHUB_STEP_SUMMARY"})
        return completed.returncode, os.path.exists(os.path.join(folder, "summary.md"))

    def test_the_export_works_and_the_prefix_does_not(self):
        advice = re.search(r"`(export GITHUB_STEP_SUMMARY=(\S+))`", read("docs", "ci.md"))
        self.assertIsNotNone(advice)
        self.assertEqual(advice.group(2), "summary.md")
        gate = '"$1" -B "$2" --markdown-append "$GITHUB_STEP_SUMMARY" > decision.json'
        self.assertEqual(self.run_shell(advice.group(1) + "\n" + gate), (0, True))
        self.assertEqual(self.run_shell(advice.group(1)[len("export "):] + " " + gate),
                         (2, False))


class GitLabJobTests(unittest.TestCase):
    def setUp(self):
        self.job = ci_jobs()[1]["release-gate"]
        self.lines = self.job["script"]
        self.options, self.words = gate_options(self.lines[-1])

    def test_reports_are_kept_and_wired_whatever_the_decision(self):
        artifacts = self.job["artifacts"]
        self.assertEqual(artifacts["when"], "always")
        self.assertEqual(artifacts["reports"]["junit"], self.options["--junit-xml"])
        self.assertEqual(artifacts["reports"]["codequality"],
                         self.options["--gitlab-codequality"])
        for option in ("--output", "--html", "--markdown", "--junit-xml",
                       "--gitlab-codequality"):
            self.assertTrue(any(self.options[option].startswith(path)
                                for path in artifacts["paths"]), option)
        self.assertEqual(self.job["allow_failure"]["exit_codes"], [EXIT_REVIEW])
        self.assertIn("--distinct-exit-codes", self.words)

    def test_review_warns_and_block_fails(self):
        workspace = Workspace(self)
        allowed = self.job["allow_failure"]["exit_codes"]
        expected = {"PASS": (0, "passed"), "REVIEW": (EXIT_REVIEW, "warned"),
                    "BLOCK": (EXIT_BLOCK, "failed"), "CONTRACT_ERROR": (2, "failed")}
        for action, cases, results in SCENARIOS:
            with self.subTest(action=action):
                workspace.scenario(cases, results)
                status, out, _err = workspace.run(self.lines, {})
                job = "passed" if status == 0 else "warned" if status in allowed else "failed"
                self.assertEqual((status, job), expected[action])
                self.assertEqual(out, b"")
                for option in ("--html", "--markdown", "--junit-xml"):
                    self.assertIn(action, report_text(workspace.file(self.options[option])))
                data = report_bytes(workspace.file(self.options["--gitlab-codequality"]))
                self.assertEqual(gitlab_problems(data), [])
                entries = json.loads(data.decode("ascii"))
                self.assertEqual(sorted({entry["location"]["path"] for entry in entries}),
                                 CODE_QUALITY_PATHS[action])
                self.assertTrue(all(entry["description"].startswith(
                    "proagents-bench %s: " % action) for entry in entries))
                if action == "BLOCK":
                    self.assert_like_the_docs(entries)
        self.assertNotIn(EXIT_INCOMPARABLE, allowed)

    def assert_like_the_docs(self, entries):
        """docs/ci.md's example is the BLOCK scenario's report, a text ending in ``...``
        cut there and the third entry left out."""
        with open(CI_DOC, "rb") as handle:
            text = handle.read().decode("utf-8")
        shown = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
        self.assertEqual(len(entries), len(shown) + 1)
        for entry, example in zip(entries, shown):
            self.assertEqual(set(entry), set(example))
            self.assertEqual(entry["location"], example["location"])
            for key in ("check_name", "description", "fingerprint", "severity"):
                expected = example[key]
                if expected.endswith("..."):
                    self.assertTrue(entry[key].startswith(expected[:-3]), key)
                else:
                    self.assertEqual(entry[key], expected, key)


class MiniYamlTests(unittest.TestCase):
    def test_it_reads_what_the_jobs_use_and_refuses_the_rest(self):
        value = MiniYaml.parse("a:\n  - uses: x@v1\n    with:\n      p: 'q'\n  - plain\n"
                               "b: [10, 11]\nc: |\n  one\n    two\n# note\nd:\n")
        self.assertEqual(value, {"a": [{"uses": "x@v1", "with": {"p": "q"}}, "plain"],
                                 "b": [10, 11], "c": "one\n  two\n", "d": None})
        for bad in ("a: 1\na: 2\n", "a: 1\n   b: 2\n", "just text\n"):
            with self.assertRaises(ValueError):
                MiniYaml.parse(bad)


def read(*parts):
    with open(os.path.join(ROOT, *parts), "rb") as handle:
        return handle.read().decode("utf-8")


class StatedFactTests(unittest.TestCase):
    def test_the_readme_names_every_finding_of_the_pass_example(self):
        readme = read("README.md")
        paragraph = readme[readme.index("1. **PASS.**"):readme.index("2. **BLOCK.**")]
        codes = [finding["code"] for finding in run_cli([]).document["findings"]]
        words = {1: "one", 2: "two", 3: "three", 4: "four"}
        self.assertIn("`findings` holds %s" % words[len(codes)], paragraph)
        for code in codes:
            self.assertIn("`%s`" % code, paragraph)

    def test_the_guide_describes_the_schemas_as_they_are(self):
        guide = read("docs", "guide.md")
        self.assertIn("an `allOf` of `if`/`then` branches, one per version", guide)
        self.assertNotIn("is a `oneOf`", guide)
        for kind in ("spec", "results"):
            schema = publish.schema(kind)
            self.assertNotIn("oneOf", schema)
            self.assertEqual([branch["then"]["$ref"].split("/")[-1] for branch in schema["allOf"]],
                             schema["properties"]["schema_version"]["enum"])


class SourceFactTests(unittest.TestCase):
    """What the docs say of the checkout's own files: the README's time, the type checker."""

    ONCE_PER_INTERPRETER = "reads only the source and the docs"

    def test_the_readme_says_how_long_the_test_command_takes(self):
        # The figure docs/development.md gives with its measurements.
        minutes = re.findall(r"it\s+takes\s+about\s+(\d+)\s+minutes", read("README.md"))
        self.assertEqual(len(minutes), 1)
        self.assertRegex(read("docs", "development.md"),
                         r"on an idle 2-core\s+machine they take about %s minutes" % minutes[0])

    def test_the_type_checker_is_the_one_ci_runs_as_the_docs_say(self):
        # The pin is in one file; the docs name its version, and CI installs that file and
        # runs the docs' command (strict, for Python 3.9) on both packages and both scripts.
        pinned = re.findall(r"^mypy==(\S+)$", read(".ci", "type-check-requirements.txt"),
                            re.MULTILINE)
        self.assertEqual(len(pinned), 1)
        development = read("docs", "development.md")
        self.assertIn("runs mypy %s in strict mode" % pinned[0], development)
        command = "mypy --strict --python-version 3.9"
        targets = "proagents_bench devtools run_benchmark.py test_run_benchmark.py"
        self.assertIn("%s %s" % (command, targets), development)
        ci = read(".ci", "run").replace("\\\n", " ")
        self.assertIn("-r .ci/type-check-requirements.txt", ci)
        self.assertRegex(ci, r"-m %s\s+--cache-dir \S+ %s" % (re.escape(command),
                                                                re.escape(targets)))

    def test_the_documents_ci_compares_across_interpreters_are_made(self):
        # .ci/run compares these documents under CPython and PyPy: each must be a decision
        # (exit 0 or 1) here, so that a renamed example fails this suite, not only CI.
        ci = read(".ci", "run").replace("\\\n", " ")
        loop = re.search(r'^for args in (.*?); do$', ci, re.M)
        self.assertIsNotNone(loop)
        argument_lists = shlex.split(loop.group(1))
        self.assertIn("", argument_lists)  # the shipped example itself
        self.assertGreaterEqual(len(argument_lists), 10)
        for arguments in argument_lists:
            with self.subTest(arguments):
                run = run_subprocess(shlex.split(arguments), cwd=ROOT)
                self.assertIn(run.status, (0, 1), run.stderr)
                self.assertTrue(run.stdout)

    def test_ci_fails_clearly_when_the_type_checker_cannot_be_installed(self):
        # Never a silent skip: a failed install (or venv) says so and exits 1 before the
        # tests, and the docs say how CI gets mypy without the package index.
        ci = read(".ci", "run").replace("\\\n", " ")
        self.assertRegex(ci, r"-m venv \S+ \|\| no_type_checker ")
        self.assertRegex(ci, r"-m pip install [^\n]*-r \.ci/type-check-requirements\.txt\s+"
                             r"\|\| no_type_checker ")
        body = re.search(r"^no_type_checker\(\) \{\n(.*?)^\}", ci, re.M | re.S)
        self.assertIsNotNone(body)
        self.assertIn("cannot be installed", body.group(1))
        self.assertIn(">&2\n  exit 1\n", body.group(1))
        self.assertLess(ci.index("no_type_checker()"), ci.index("test_run_benchmark.py\n"))
        development = read("docs", "development.md")
        self.assertIn("pip download -r .ci/type-check-requirements.txt -d WHEELS", development)
        self.assertIn("PIP_NO_INDEX=1 PIP_FIND_LINKS=WHEELS bash .ci/run", development)

    def test_the_package_never_imports_the_type_checker(self):
        # Only the standard library: not mypy, nor the packages that come with it (and
        # typing_extensions would not be there without it), not even for annotations.
        dev_only = ("mypy", "mypy_extensions", "typing_extensions")
        found = []
        for name, tree in source_tree.modules():
            for node in ast.walk(tree):
                names = ([alias.name for alias in node.names]
                         if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                found += [(name, module) for module in names
                          if module.split(".")[0] in dev_only]
        self.assertEqual(found, [])


if __name__ == "__main__":
    unittest.main()
