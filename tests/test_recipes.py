"""docs/development.md's recipes, followed on a copy of the package: a gate (on a new metric,
in a new spec version), a harness, a feedback level, a report and a command are added exactly
as the recipes say, touching exactly the files each recipe lists, and the copy, imported in a
fresh interpreter, picks each up everywhere the recipe says it follows: the JSON Schemas, the
docs' generated tables (``publish``), the decision and every report, the import command, the
private-test service, the gate's options and the command line. The shipped examples still
decide as before."""

import json
import os
import re
import shutil
import subprocess
import sys
import unittest

from .support import ROOT, TempDir

DEVELOPMENT_DOC = os.path.join(ROOT, "docs", "development.md")
PACKAGE = "proagents_bench"
# The new modules, each a recipe's NAME.
NEW_HARNESS_MODULE = "importers/demo_log.py"
NEW_TRACE_MODULE = "importers/demo_log_trace.py"
NEW_REPORT_MODULE = "reports/demo_report.py"
NEW_COMMAND_MODULE = "cli/demo_command.py"

# -- the recipes, as edits of the copy: (file in the package, text found, text put instead) --

GATE = [
    ("contract/vocabulary.py", 'SPEC_V6 = "agent-benchmark-spec-v6"\n',
     'SPEC_V6 = "agent-benchmark-spec-v6"\nSPEC_V7 = "agent-benchmark-spec-v7"\n'),
    ("contract/vocabulary.py",
     "SPEC_VERSIONS = (SPEC_V1, SPEC_V2, SPEC_V3, SPEC_V4, SPEC_V5, SPEC_V6)",
     "SPEC_VERSIONS = (SPEC_V1, SPEC_V2, SPEC_V3, SPEC_V4, SPEC_V5, SPEC_V6, SPEC_V7)"),
    ("contract/inputs.py", "SPEC_V6, SPEC_VERSIONS", "SPEC_V6, SPEC_V7, SPEC_VERSIONS"),
    ("contract/inputs.py",
     '    SpecVersion(SPEC_V6, BOOTSTRAP_V3, "Spec v6", small_sample_rules=True,\n'
     '                extra=[SEQUENTIAL_FIELD, VALIDITY_FIELD], rules=SEQUENTIAL_RULES),\n',
     '    SpecVersion(SPEC_V6, BOOTSTRAP_V3, "Spec v6", small_sample_rules=True,\n'
     '                extra=[SEQUENTIAL_FIELD, VALIDITY_FIELD], rules=SEQUENTIAL_RULES),\n'
     '    SpecVersion(SPEC_V7, BOOTSTRAP_V3, "Spec v7", small_sample_rules=True,\n'
     '                extra=[SEQUENTIAL_FIELD, VALIDITY_FIELD], rules=SEQUENTIAL_RULES),\n'),
    ("contract/gates.py", "SPEC_V4, SPEC_VERSIONS", "SPEC_V4, SPEC_V7, SPEC_VERSIONS"),
    ("contract/gates.py", '    TRIAL_INTERVAL_GATE,\n)',
     '    TRIAL_INTERVAL_GATE,\n'
     '    Gate("max_unknown_trial_rate", "unknown_trial_rate", AT_MOST, REVIEWING,\n'
     '         "Unknown trial rate", "share of trials of status unknown", _rate(), "none",\n'
     '         versions=since(SPEC_V7)),\n)'),
]
METRIC = [
    ("contract/metrics.py", '    Metric("unknown_trial_count", COUNT),\n',
     '    Metric("unknown_trial_count", COUNT),\n'
     '    Metric("unknown_trial_rate", RATE, "share of trials of status unknown"),\n'),
    ("evaluation/metrics.py", "        self.unknown_trial_count = grades.unknown_trial_count\n",
     "        self.unknown_trial_count = grades.unknown_trial_count\n"
     "        self.unknown_trial_rate = Fraction(self.unknown_trial_count, trials)\n"),
]
HARNESS_MODULE = '''"""A demo harness's log: JSON lines, the first ``demo_log``, the ``model`` and the
``protocol`` it ran under, each other line a trial, already a record."""

from __future__ import annotations

import json
from typing import Optional, Tuple

from .settings import Settings
from .source import LogSource
from .trial import Locator, LogRun, Trial, Trials
from .values import array_trials


def read(source: LogSource, value: Optional[dict],
         settings: Settings) -> Tuple[LogRun, Trials]:
    with open(source.path, "rb") as handle:
        lines = [json.loads(line) for line in handle.read().decode("utf-8").splitlines()]
    log = dict(lines[0], trials=lines[1:])
    run = LogRun("demo-jsonl", "demo")
    run.model = log["model"]
    run.protocol = {key: (found, "protocol." + key) for key, found in log["protocol"].items()}
    run.defaults = {"benchmark_id": "demo", "benchmark_version": "1",
                    "dataset_version": "demo-cases"}
    run.expected_ids = sorted({trial["case_id"] for trial in log["trials"]})
    run.expected_trials = log["protocol"]["trial_count"]
    run.side_effect_rule = "every side effect the demo log lists"

    def trial(record: dict, path: tuple) -> Trial:
        for name in record["side_effects"]:
            run.side_effect_rules[name] = run.side_effect_rule
        locator = Locator("demo-trial", str(path[-1] + 2)) if settings.trace_refs else None
        return Trial(dict(record), {"where": (None, path), "task": "demo"}, None, path,
                     locator=locator)

    return run, array_trials(log["trials"], "trials", "trial", source, trial)
'''
HARNESS_TRACE_MODULE = '''"""A demo log's traces: a trial's line, its tools as its calls."""

from __future__ import annotations

import json
from typing import List, Sequence, Union

from ..jsonio import JSONObject
from .source import LogSource
from .trace import TOOL_CALL, Step, Trace, TraceProblem


def read_traces(source: LogSource,
                references: Sequence[JSONObject]) -> List[Union[Trace, TraceProblem]]:
    with open(source.path, "rb") as handle:
        lines = handle.read().decode("utf-8").splitlines()
    found: List[Union[Trace, TraceProblem]] = []
    for reference in references:
        record = json.loads(lines[int(reference["id"]) - 1])
        found.append(Trace("%s:%s" % (source.shown, reference["id"]), [
            Step(TOOL_CALL, "tools_used[%d]" % index, "{}", name=name)
            for index, name in enumerate(record["tools_used"])]))
    return found
'''
HARNESS = [
    ("contract/harnesses.py", "# -- the table ---",
     'DEMO_JSONL = "demo-jsonl"\n'
     'DEMO = Harness(\n'
     '    "demo", "Demo",\n'
     '    formats=[LogFormat(DEMO_JSONL, "a Demo log",\n'
     '                       Recognition(LINES, keys=("demo_log",)), ".demo.jsonl")],\n'
     '    final_states=[Source("state")], costs=[Source("cost")], case_word="case",\n'
     '    trial_word="trial", trace_unit="demo-trial")\n\n'
     '# -- the table ---'),
    ("contract/harnesses.py",
     "HARNESSES: Tuple[Harness, ...] = (INSPECT_AI, TAU2_BENCH, SWE_BENCH, HARBOR, PROMPTFOO,\n"
     "                                  JSON_LINES)",
     "HARNESSES: Tuple[Harness, ...] = (INSPECT_AI, TAU2_BENCH, SWE_BENCH, HARBOR, PROMPTFOO,\n"
     "                                  JSON_LINES, DEMO)"),
    ("contract/harness_docs.py", "from .harnesses import (", "from .harnesses import (DEMO, "),
    ("contract/harness_docs.py", "# -- the table ---",
     'DEMO_DOCS = HarnessDocs(\n'
     '    DEMO, unit="trial", legend="`M`: `model`",\n'
     '    defaults={row: "`demo`" for row in DEFAULT_ROWS if row not in SHARED_DEFAULTS},\n'
     '    records={row: "`%s`" % row for row in RECORD_ROWS},\n'
     '    side_effects_default="every side effect the log lists")\n\n'
     '# -- the table ---'),
    ("contract/harness_docs.py", "PROMPTFOO_DOCS, JSON_LINES_DOCS)",
     "PROMPTFOO_DOCS, JSON_LINES_DOCS,\n                                         DEMO_DOCS)"),
    ("contract/origins.py", "from .harnesses import HARBOR,",
     "from .harnesses import DEMO, HARBOR,"),
    ("contract/origins.py", "# -- the table ---",
     'DEMO_ROWS = (OriginRow(DEMO, "`outcome`", ("crashed",), INFRASTRUCTURE,\n'
     '                       "the demo runner lost its sandbox", status="unknown"),)\n\n'
     '# -- the table ---'),
    ("contract/origins.py", "+ PROMPTFOO_ROWS + JSONL_ROWS)",
     "+ PROMPTFOO_ROWS + JSONL_ROWS + DEMO_ROWS)"),
    ("importers/readers.py", "from ..contract.harnesses import (",
     "from ..contract.harnesses import (DEMO_JSONL, "),
    ("importers/readers.py", "from . import (harbor,", "from . import (demo_log, demo_log_trace, harbor,"),
    ("importers/readers.py", "    FormatReader(JSONL, jsonl.read_lines),\n",
     "    FormatReader(JSONL, jsonl.read_lines),\n"
     "    FormatReader(DEMO_JSONL, demo_log.read, demo_log_trace.read_traces),\n"),
]
REPORT_MODULE = '''"""A demo report: the decision's action, one line (and a run without one, its headline)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..pipeline import Evaluation
    from ..render.nodecision import NoDecision


def render(evaluation: Evaluation) -> bytes:
    return ("demo: %s\\n" % evaluation.action).encode("ascii")


def render_no_decision(outcome: NoDecision) -> bytes:
    return ("demo: %s\\n" % outcome.headline).encode("ascii")
'''
REPORT = [
    ("reports/registry.py", "def _health_html() -> ReportModule[Health]:\n",
     "def _demo_report() -> ReportModule[Evaluation]:\n"
     "    from . import demo_report\n"
     "    return demo_report\n\n\n"
     "def _health_html() -> ReportModule[Health]:\n"),
    ("reports/registry.py", "REPORTS: Tuple[Report[Evaluation], ...] = (HTML, MARKDOWN, JUNIT, "
     "GITLAB, MARKDOWN_APPEND)",
     "REPORTS: Tuple[Report[Evaluation], ...] = (HTML, MARKDOWN, JUNIT, GITLAB, MARKDOWN_APPEND, "
     "Report(\n"
     "    \"--demo-report\", \"demo\", \"demo report\", \"also write the demo report to PATH\",\n"
     "    _demo_report))"),
]
COMMAND_MODULE = '''"""``run_benchmark.py demo --name NAME``: a demo command, a greeting in a JSON document."""

from __future__ import annotations

import argparse

from ..jsonio.dump import document_bytes
from . import Outcome, Session
from .status import EXIT_PASS
from .usage import Parser, UsageError


def add_arguments(parser: Parser) -> None:
    parser.description = "Greet someone, as a demo."
    parser.add_argument("--name", required=True, help="whom to greet")


def run(options: argparse.Namespace, session: Session) -> Outcome:
    if not options.name.strip():
        raise UsageError("--name was given an empty value")
    return Outcome(EXIT_PASS, document_bytes({"action": "DEMO", "hello": options.name}))
'''
COMMAND = [
    ("cli/commands.py", "GATE = Command(",
     "def _demo() -> CommandModule:\n"
     "    from . import demo_command\n"
     "    return demo_command\n\n\n"
     "GATE = Command("),
    ("cli/commands.py", '"PowerShell"),\n)',
     '"PowerShell"),\n    Command("demo", _demo, "greet someone, as a demo"),\n)'),
]
LEVEL = [
    ("service/feedback.py", "LEVEL_TABLE: Tuple[Level, ...] = (\n",
     "def _action_answer(asked: Asked) -> Shown:\n"
     "    return Shown({\"action\": asked.verdict[\"action\"]})\n\n\n"
     "LEVEL_TABLE: Tuple[Level, ...] = (\n"),
    ("service/feedback.py", ")\nLEVEL_BY_NAME",
     '    Level("action", _action_answer, None, releases="the action alone",\n'
     '          bits="log2 4: one of four actions", attack="not measured"),\n'
     ')\nLEVEL_BY_NAME'),
]

# What the copy is asked, in a fresh interpreter that imports it (``COPY`` and ``EXAMPLES``
# are set first); it prints one JSON object of what it found.
CHECK = r'''
import contextlib, http.client, io, json, os, sys, threading
sys.path.insert(0, COPY)
import proagents_bench
found = {"package": os.path.dirname(proagents_bench.__file__)}
from proagents_bench import cli
from proagents_bench.cli.commands import COMMAND_BY_NAME
from devtools.publish import published_files
from proagents_bench.contract.publish import schema

def run(arguments):
    out, err = io.BytesIO(), io.StringIO()
    status = cli.main(list(arguments), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()

def example(name):
    return os.path.join(EXAMPLES, name)

def write(name, value):
    path = os.path.join(COPY, name)
    with open(path, "w") as handle:
        json.dump(value, handle)
    return path

def read(name):
    with open(example(name)) as handle:
        return json.load(handle)

pages = {os.path.basename(path): data.decode("utf-8")
         for path, data in published_files() if path.endswith(".md")}

# the gate
spec_schema = schema("spec")
found["new_gates"] = sorted(spec_schema["$defs"]["agent-benchmark-spec-v7"]["properties"][
    "gates"]["required"])
found["v1_gates"] = sorted(spec_schema["$defs"]["agent-benchmark-spec-v1"]["properties"][
    "gates"]["required"])
found["gate_row"] = ("| `max_unknown_trial_rate` | v7 | `unknown_trial_rate` |" in pages[
    "contract.md"], "| `min_trial_delta_ci_low` | v4-v7 |" in pages["contract.md"])
found["metric_in_schema"] = "unknown_trial_rate" in json.dumps(schema("decision"))
status, out, err = run(["--format", "json"])
found["example"] = (status, json.loads(out)["action"])
spec = read("benchmark_spec_v4_trial.json")
spec["schema_version"] = "agent-benchmark-spec-v7"
spec["sequential"] = None
spec["validity"] = None
spec["gates"]["max_unknown_trial_rate"] = 0
results = read("benchmark_results_pass.json")
candidate = [system for system in results["systems"] if system["role"] == "candidate"][0]
candidate["records"][0]["status"] = "unknown"
reports = {name: os.path.join(COPY, name) for name in ("r.html", "r.md", "r.xml")}
status, out, err = run(["--spec", write("spec5.json", spec), "--cases",
                        example("benchmark_cases.json"), "--results",
                        write("results5.json", results), "--format", "json",
                        "--html", reports["r.html"], "--markdown", reports["r.md"],
                        "--junit-xml", reports["r.xml"]])
document = json.loads(out)
found["new_decision"] = (status, document["action"], sorted(
    finding["code"] for finding in document["findings"] if finding["severity"] != "info"))
found["new_metric"] = document["candidate_metrics"]["unknown_trial_rate"]
texts = {}
for name, path in reports.items():
    with open(path, "rb") as handle:
        texts[name] = handle.read().decode("utf-8")
status, out, err = run(["--spec", os.path.join(COPY, "spec5.json"), "--cases",
                        example("benchmark_cases.json"), "--results",
                        os.path.join(COPY, "results5.json"), "--format", "text"])
texts["text"] = out.decode("ascii")
# the gate's label in the metric rows; JUnit: a failed test case of suite gates, named by key
found["reports_show_gate"] = {name: ('<testcase classname="gates" name="max_unknown_trial_rate"'
                                     if name == "r.xml" else "Unknown trial rate") in text
                              for name, text in texts.items()}

# the report
def text_of(path):
    with open(path, "rb") as handle:
        return handle.read().decode("ascii")
report = os.path.join(COPY, "r.demo")
runs = [run(["--format", "json", "--demo-report", report])[0]]
texts = [text_of(report)]
runs.append(run(["--cases", example("benchmark_cases_contract_error.json"), "--format", "json",
                 "--demo-report", report])[0])
texts.append(text_of(report))
run(["--demo-report", report])
runs.append(run(["--resluts", "x.json", "--demo-report", report])[0])  # refused
texts.append(text_of(report))
found["report"] = (runs, texts)

def help_of(arguments):
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        try:
            cli.main(arguments, stdout=io.BytesIO(), stderr=io.StringIO())
        except SystemExit:
            pass
    return " ".join(shown.getvalue().split())
gate_help = help_of(["--help"])
found["report_option"] = "--demo-report PATH also write the demo report to PATH" in gate_help

# the command
status, out, err = run(["demo", "--name", "Ada"])
found["command"] = (status, json.loads(out))
status, out, err = run(["demo", "--name", " "])
found["command_usage"] = (status, json.loads(out)["errors"][0]["message"])
status, out, err = run(["dmeo", "--name", "Ada"])
found["command_suggested"] = (status, json.loads(out)["errors"][0]["message"])
found["command_listed"] = ("PowerShell demo greet someone, as a demo" in gate_help,
                           "Greet someone, as a demo." in help_of(["demo", "--help"]))

# the harness
def demo_log(name, system):
    path = os.path.join(COPY, name)
    with open(path, "w") as handle:
        for line in [{"demo_log": 1, "model": system["system_id"],
                      "protocol": system["protocol"]}] + system["records"]:
            handle.write(json.dumps(line) + "\n")
    return path
package = read("benchmark_results_pass.json")
logs = [demo_log(role + ".demo.jsonl", system) for role, system in zip(
    ("baseline", "candidate"), package["systems"])]
imported = os.path.join(COPY, "imported.json")
status, out, err = run(["import", "--baseline", logs[0], "--candidate", logs[1], "--cases",
                        example("benchmark_cases.json"), "--output", imported])
found["import"] = (status, err[-300:])
with open(imported) as handle:
    provenance = json.load(handle)["systems"][0]["provenance"]
found["provenance"] = (provenance["log_format"], provenance["harness"])
status, out, err = run(["--spec", example("benchmark_spec.json"), "--cases",
                        example("benchmark_cases.json"), "--results", imported, "--format",
                        "json"])
found["imported_decision"] = (status, json.loads(out)["action"])
from proagents_bench.importers.package import import_logs
from proagents_bench.importers.readers import TRACE_READER_OF
from proagents_bench.importers.settings import default_settings
from proagents_bench.importers.source import LogSource
traced = default_settings()
traced.trace_refs = True
records = import_logs([LogSource(log) for log in logs], traced).results["systems"][1]["records"]
found["trace"] = ([step.name for step in TRACE_READER_OF["demo-jsonl"](
    LogSource(logs[1]), [records[0]["trace"]])[0].steps], records[0]["tools_used"])
found["mapping_schema"] = "Demo: `state` (default)" in json.dumps(schema("mapping"))
found["results_schema"] = "demo-jsonl" in json.dumps(schema("results"))
found["format_row"] = ('| `demo-jsonl` | Demo (`demo`) | Demo log | its first line: a JSON '
                       'object with "demo_log" (JSON lines) |') in pages["importing.md"]
found["defaults_column"] = "Demo (`M`: `model`)" in pages["importing.md"]
found["origin_row"] = ("| Demo | `outcome` | `crashed` | `unknown` | `infrastructure` | the demo "
                       "runner lost its sandbox |") in pages["importing.md"]
found["import_help"] = "Demo .demo.jsonl" in " ".join(
    COMMAND_BY_NAME["import"].parser("run_benchmark.py").format_help().split())

# the feedback level
from proagents_bench.service import database, teams
from proagents_bench.service.app import create_app
from proagents_bench.service.server import make_server
parser = COMMAND_BY_NAME["team"].parser("run_benchmark.py")
found["team_level"] = parser.parse_args(["add", "t", "--data", "d", "--level",
                                         "action"]).level
found["level_rows"] = ("| `action` | the action alone |" in pages["service.md"],
                       "| `action` | log2 4: one of four actions |" in pages["service.md"])
data = os.path.join(COPY, "data")
baseline = write("baseline5.json", read("benchmark_results_pass.json"))
app = create_app(example("benchmark_spec.json"), example("benchmark_cases.json"), baseline,
                 data)
token = teams.add(database.open_database(data), "team-a", "100/24h", "action")
server = make_server(app, "127.0.0.1", 0, 10.0)
thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
thread.start()
try:
    submission = read("benchmark_results_pass.json")
    submission["systems"] = [system for system in submission["systems"]
                             if system["role"] == "candidate"]
    connection = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=30)
    connection.request("POST", "/v1/submissions", json.dumps(submission).encode("utf-8"),
                       {"Authorization": "Bearer " + token,
                        "Content-Type": "application/json"})
    reply = connection.getresponse()
    answer = json.loads(reply.read().decode("utf-8"))
    connection.close()
    found["answer"] = (reply.status, answer.get("action"), sorted(
        key for key in ("failed_gates", "reasons", "rounded", "ladder", "decision")
        if key in answer), answer.get("feedback_level"))
finally:
    server.shutdown()
    server.server_close()
    thread.join(30)
print(json.dumps(found))
'''


def recipe_files(title, name=""):
    """The files (in the package) docs/development.md's recipe ``title`` says it touches:
    the backticked ``.py`` paths of its row's second column, ``NAME`` being ``name``."""
    with open(DEVELOPMENT_DOC, "rb") as handle:
        text = handle.read().decode("utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| **%s**" % title))
    files = row.split(" | ")[1]
    return sorted(path.replace("NAME", name)
                  for path in re.findall(r"`([A-Za-z_/]+\.py)`", files))


def tree_digest(folder):
    """{path relative to ``folder``, with '/': bytes} of every file but caches and the
    generated schemas."""
    found = {}
    for base, subfolders, files in os.walk(folder):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        for name in files:
            path = os.path.join(base, name)
            relative = os.path.relpath(path, folder).replace(os.sep, "/")
            if relative.startswith("contract/schemas/"):
                continue
            with open(path, "rb") as handle:
                found[relative] = handle.read()
    return found


class RecipeTests(unittest.TestCase):
    ONCE_PER_INTERPRETER = "child processes only (isolated, in plain mode)"

    def setUp(self):
        self.folder = TempDir(self).path
        for name in (PACKAGE, "devtools", "docs", "examples"):
            shutil.copytree(os.path.join(ROOT, name), os.path.join(self.folder, name),
                            ignore=shutil.ignore_patterns("__pycache__"))
        self.touched = {}

    def follow(self, recipe, edits):
        for relative, old, new in edits:
            path = os.path.join(self.folder, PACKAGE, *relative.split("/"))
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8")
            self.assertEqual(text.count(old), 1, (relative, old))
            with open(path, "wb") as handle:
                handle.write(text.replace(old, new).encode("utf-8"))
            self.touched.setdefault(recipe, set()).add(relative)

    def add_module(self, recipe, relative, text):
        with open(os.path.join(self.folder, PACKAGE, *relative.split("/")), "wb") as handle:
            handle.write(text.encode("utf-8"))
        self.touched.setdefault(recipe, set()).add(relative)

    def test_each_recipe_touches_its_files_and_everything_follows(self):
        self.follow("a gate", GATE)
        self.follow("its metric", METRIC)
        self.add_module("a harness", NEW_HARNESS_MODULE, HARNESS_MODULE)
        self.add_module("a harness", NEW_TRACE_MODULE, HARNESS_TRACE_MODULE)
        self.follow("a harness", HARNESS)
        self.follow("a feedback level", LEVEL)
        self.add_module("a report", NEW_REPORT_MODULE, REPORT_MODULE)
        self.follow("a report", REPORT)
        self.add_module("a command", NEW_COMMAND_MODULE, COMMAND_MODULE)
        self.follow("a command", COMMAND)
        names = {"a harness": "demo_log", "a report": "demo_report", "a command": "demo"}
        for recipe, touched in self.touched.items():
            self.assertEqual(sorted(touched), recipe_files(recipe, names.get(recipe, "")),
                             recipe)
        changed = tree_digest(os.path.join(self.folder, PACKAGE))
        original = tree_digest(os.path.join(ROOT, PACKAGE))
        self.assertEqual(sorted(path for path in set(changed) | set(original)
                                if changed.get(path) != original.get(path)),
                         sorted(set().union(*self.touched.values())))

        script = "COPY = %r\nEXAMPLES = %r\n" % (
            self.folder, os.path.join(self.folder, "examples")) + CHECK
        completed = subprocess.run([sys.executable, "-B", "-I", "-c", script],
                                   cwd=self.folder, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                   timeout=300)
        self.assertEqual(completed.returncode, 0, completed.stderr.decode("utf-8", "replace"))
        found = json.loads(completed.stdout.decode("utf-8"))
        self.assertEqual(os.path.normcase(found["package"]),
                         os.path.normcase(os.path.join(self.folder, PACKAGE)))
        # the gate: its version's schema, the contract's table, the decision, every report
        self.assertIn("max_unknown_trial_rate", found["new_gates"])
        self.assertNotIn("max_unknown_trial_rate", found["v1_gates"])
        self.assertEqual(found["gate_row"], [True, True])
        self.assertTrue(found["metric_in_schema"])
        self.assertEqual(found["example"], [0, "PASS"])
        status, action, failed = found["new_decision"]
        self.assertEqual((status, action), (1, "REVIEW"))
        self.assertIn("max_unknown_trial_rate", failed)
        self.assertGreater(found["new_metric"], 0)
        self.assertEqual(found["reports_show_gate"],
                         {"r.html": True, "r.md": True, "r.xml": True, "text": True})
        # the harness: the import, the provenance, the schemas, the docs, the help
        self.assertEqual(found["import"][0], 0, found["import"][1])
        self.assertEqual(found["provenance"], ["demo-jsonl", "demo"])
        self.assertEqual(found["imported_decision"], [0, "PASS"])
        steps, tools = found["trace"]  # its trace reader reads the trial's line back
        self.assertEqual((steps, len(steps) > 1), (tools, True))
        for key in ("mapping_schema", "results_schema", "format_row", "defaults_column",
                    "origin_row", "import_help"):
            self.assertTrue(found[key], key)
        # the feedback level: the team command, the docs, the service's answer
        self.assertEqual(found["team_level"], "action")
        self.assertEqual(found["level_rows"], [True, True])
        self.assertEqual(found["answer"], [200, "PASS", [], "action"])
        # the report: written with the decision, replaced by the page of a run without one
        # (a contract error, a command line refused), and offered by the gate's help
        runs, texts = found["report"]
        self.assertEqual(runs, [0, 2, 2])
        self.assertEqual(texts[0], "demo: PASS\n")
        for text in texts[1:]:
            self.assertTrue(text.startswith("demo: CONTRACT_ERROR (exit 2)"), text)
        self.assertTrue(found["report_option"])
        # the command: it runs, its usage errors are the dispatcher's, the gate lists it
        self.assertEqual(found["command"], [0, {"action": "DEMO", "hello": "Ada"}])
        self.assertEqual(found["command_usage"],
                         [2, "--name was given an empty value (see demo --help)"])
        self.assertEqual(found["command_suggested"][0], 2)
        self.assertIn("did you mean the command demo?", found["command_suggested"][1])
        self.assertEqual(found["command_listed"], [True, True])


if __name__ == "__main__":
    unittest.main()
