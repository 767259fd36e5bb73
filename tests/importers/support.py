"""Helpers of the importer tests: the fixture logs, damaged copies of them, runs of the
import command."""

import json
import os
import zipfile

from tests.support import TempDir, example_path, run_cli

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
EXAMPLE_CASES = example_path("benchmark_cases.json")
EXAMPLE_SPEC = example_path("benchmark_spec.json")


def fixture(name):
    return os.path.join(FIXTURES, name)


def read_bytes(path):
    with open(path, "rb") as handle:
        return handle.read()


def load_json(path):
    return json.loads(read_bytes(path).decode("utf-8"))


def eval_entries(name="baseline.eval"):
    """The (ZipInfo, bytes) of every entry of a fixture .eval log, in its order."""
    with zipfile.ZipFile(fixture(name)) as archive:
        return [(info, archive.read(info)) for info in archive.infolist()]


def write_eval(folder, name, entries):
    """A .eval log in ``folder`` from (name, bytes) pairs (deflate), returning its path."""
    path = os.path.join(folder.path, name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry_name, data in entries:
            archive.writestr(entry_name, data)
    return path


def changed_eval(folder, name, change, source="baseline.eval"):
    """A copy of a fixture .eval log with ``change(entry_name, value)`` applied to every
    JSON entry's decoded value (it may edit it in place, or return a list of (name, value)
    pairs to write instead, [] to drop the entry)."""
    entries = []
    for info, data in eval_entries(source):
        value = json.loads(data.decode("utf-8"))
        replaced = change(info.filename, value)
        if replaced is None:
            replaced = [(info.filename, value)]
        entries.extend((entry_name, json.dumps(item).encode("utf-8"))
                       for entry_name, item in replaced)
    return write_eval(folder, name, entries)


def sample_of(name, entry="samples/test-safety_epoch_1.json"):
    with zipfile.ZipFile(fixture(name)) as archive:
        return json.loads(archive.read(entry).decode("utf-8"))


def json_log_from_eval(folder, name, source="baseline.eval"):
    """The .json form of a fixture .eval log (what ``inspect log convert --to json`` writes:
    the header's keys with a ``samples`` array), returning its path."""
    log = None
    samples = []
    for info, data in eval_entries(source):
        if info.filename == "header.json":
            log = json.loads(data.decode("utf-8"))
        elif info.filename.startswith("samples/"):
            samples.append(json.loads(data.decode("utf-8")))
    log["samples"] = samples
    return folder.write_bytes(name, json.dumps(log, indent=2).encode("utf-8"))


def run_import(test, baseline, candidate, *arguments, output=None):
    """Run ``import`` on two logs; return (Run, the written results or None)."""
    folder = TempDir(test)
    output = output or os.path.join(folder.path, "results.json")
    run = run_cli(["import", "--baseline", baseline, "--candidate", candidate, "--output",
                   output] + list(arguments))
    written = load_json(output) if os.path.exists(output) else None
    return run, written


def records(results, role):
    system = next(item for item in results["systems"] if item["role"] == role)
    return system["records"]


def traced_import(baseline, candidate, mapping=None, cases=None, ids=(None, None),
                  built=None):
    """The results v5 package (the import with trace references) of the logs ``baseline``
    and ``candidate`` (each a path or a list of paths, as --baseline and --candidate take
    them): (the package as data, each system's LogSources by role). Without ``cases``, the
    cases file the import builds is put in ``built`` (a list), when given."""
    from proagents_bench.cli.import_command import load_cases
    from proagents_bench.importers.package import import_logs
    from proagents_bench.importers.settings import load_settings
    from proagents_bench.importers.source import LogSource
    settings = load_settings(mapping)
    settings.trace_refs = True
    logs = {role: [LogSource(path) for path in ([paths] if isinstance(paths, str) else paths)]
            for role, paths in (("baseline", baseline), ("candidate", candidate))}
    imported = import_logs([logs["baseline"], logs["candidate"]], settings,
                           load_cases(cases) if cases else None, build_cases=not cases,
                           system_ids=ids)
    if built is not None:
        built.append(imported.cases)
    return imported.results, logs


def traces_of(results, logs, role):
    """Every trace of one system's records, read by its logs' trace readers: {(case, trial):
    Trace or TraceProblem}."""
    from proagents_bench.importers.readers import TRACE_READER_OF
    system = next(item for item in results["systems"] if item["role"] == role)
    found = {}
    for number, source in enumerate(logs[role]):
        mine = [record for record in system["records"]
                if record["trace"] is not None and record["trace"]["log"] == number]
        reader = TRACE_READER_OF[system["provenance"]["logs"][number]["log_format"]]
        for record, trace in zip(mine, reader(source, [record["trace"] for record in mine])):
            found[(record["case_id"], record["trial_id"])] = trace
    return found
