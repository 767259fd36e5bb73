"""``run_benchmark.py diff OLD NEW [--spec SPEC --results F ...] [--output P]
[--format auto|json|text]``: what a new version of a cases file (or of a spec) changes, each
change classified by what it breaks (see :mod:`proagents_bench.maintenance.versions`), and,
for results packages recorded under the old cases, which of their records stay comparable.

Both files are checked first (each against its own contract; a cases file against its own
rules across cases; the old cases against ``--spec`` when given). A new file that changes a
test task's answers, grading rules or input, or the test set, under the old
``dataset_version`` (a spec: its protocol under the old ``protocol_version``), or that is of
another benchmark, is a contract error (exit 2) placed in the new file. Otherwise exit 0 with
the DIFF document on stdout (at a terminal, a summary; ``--format``).
"""

from __future__ import annotations

import argparse
from typing import List, Tuple

from .. import pipeline
from ..contract.rules import cases_errors
from ..contract.inputs import FILE_KINDS
from ..contract.validate import file_errors
from ..contract.vocabulary import ROLES
from ..errors import MAX_REPORTED_ERRORS, ContractError, ContractErrors
from ..jsonio import JSONObject, load
from ..jsonio.dump import document_bytes
from ..maintenance.versions import DIFF, comparability, diff_cases, diff_specs, refusals
from ..text import display_name
from ..version import harness
from . import Outcome, Session, contract_error_outcome
from .gate_command import text_width
from .report_files import add_output_options
from .status import EXIT_PASS
from .streams import colour_wanted
from .usage import Parser

KINDS = ("cases", "spec")


def add_arguments(parser: Parser) -> None:
    parser.description = ("What a new version of a cases file (or of a spec) changes: tasks "
                          "added, removed and changed, each change classified by what it "
                          "breaks, and which records of results packages recorded under the "
                          "old cases stay comparable.")
    parser.epilog = ("Exit status: 0 compared; 2 a contract or command-line error, and a new "
                     "file that changes answers under the old dataset_version (or the "
                     "protocol under the old protocol_version).")
    parser.add_argument("old", metavar="OLD", help="the old cases file (or spec)")
    parser.add_argument("new", metavar="NEW", help="the new cases file (or spec)")
    parser.add_argument("--spec", metavar="FILE",
                        help="the spec the old cases are of (needed with --results)")
    parser.add_argument("--results", metavar="FILE", nargs="+", action="extend", default=[],
                        help="results packages recorded under the old cases: which of their "
                             "records stay comparable")
    add_output_options(parser, (), "the DIFF document", _inputs)


def _inputs(options: argparse.Namespace) -> List[pipeline.InputFile]:
    """Every input file named (for the output path's checks)."""
    results = getattr(options, "results", None) or []
    named = [("cases", getattr(options, "old", None)), ("cases", getattr(options, "new", None)),
             ("spec", options.spec)] + [("results", path) for path in (
                 [results] if isinstance(results, str) else results)]
    return [pipeline.InputFile(kind, path) for kind, path in named if path]


def run(options: argparse.Namespace, session: Session) -> Outcome:
    """Compare; a run that ends without a comparison replaces the ``--output`` file by its
    CONTRACT_ERROR document (or removes it), as the gate does."""
    targets = session.targets
    problems = targets.aim(options)
    problems += [ContractError("cli.usage", "%s was given an empty path: name a file" % name)
                 for name, value in (("OLD", options.old), ("NEW", options.new),
                                     ("--spec", options.spec), ("--output", options.output))
                 if value is not None and not value.strip()]
    if options.results and options.spec is None:
        problems.append(ContractError("cli.usage", "--results needs --spec: the packages are "
                                                   "checked against the spec and the old cases"))
    if problems:
        return contract_error_outcome(problems)
    try:
        document = _compare(options)
    except ContractErrors as failure:
        return contract_error_outcome(failure.errors, failure.omitted)
    data = document_bytes(document)
    output = targets.output
    problems = targets.write(None, data if output else None)
    if problems:
        return contract_error_outcome(problems)
    if targets.text:
        from ..reports import diff_text
        return Outcome(EXIT_PASS, diff_text.render(document, text_width(), colour_wanted(
            session.stdout.isatty()), output))
    return Outcome(EXIT_PASS, b"" if output else data)


def _kind(document: load.Document) -> str:
    version = document.value.get("schema_version")
    for kind in KINDS:
        if isinstance(version, str) and version in FILE_KINDS[kind]:
            return kind
    return "cases"  # its validation says what is wrong with it


def _checked(path: str, kind: str = "") -> Tuple[load.Document, str]:
    """A file loaded and checked on its own; its kind (told by its schema_version)."""
    document = pipeline.InputFile(kind or "cases", path).load()
    kind = kind or _kind(document)
    errors = file_errors(kind, document.value)
    if not errors and kind == "cases":
        errors = cases_errors(document.value)
    if errors:
        raise ContractErrors(document.errors_at(errors[:MAX_REPORTED_ERRORS]),
                             max(len(errors) - MAX_REPORTED_ERRORS, 0))
    return document, kind


def _compare(options: argparse.Namespace) -> JSONObject:
    errors: List[ContractError] = []
    loaded = []
    for path in (options.old, options.new):
        try:
            loaded.append(_checked(path))
        except ContractErrors as failure:
            errors.extend(failure.errors)
    if errors:
        raise ContractErrors(errors)
    (old, old_kind), (new, new_kind) = loaded
    if old_kind != new_kind:
        raise ContractErrors([ContractError(
            "cli.usage", "OLD is a %s file and NEW a %s file: diff compares two cases files "
            "or two specs" % (old_kind, new_kind))])
    diff = (diff_cases if old_kind == "cases" else diff_specs)(old.value, new.value)
    refused = refusals(diff)
    if refused:
        raise ContractErrors(new.errors_at(refused))
    document = dict(diff.document(), action=DIFF,
                    old=_describe(options.old, old), new=_describe(options.new, new),
                    packages=[], harness=harness())
    if options.spec is not None:
        if old_kind != "cases":
            raise ContractErrors([ContractError(
                "cli.usage", "--spec and --results go with a diff of two cases files")])
        spec, _cases = pipeline.load_benchmark(pipeline.InputFile("spec", options.spec),
                                               pipeline.InputFile("cases", options.old))
        for path in options.results:
            try:
                results = pipeline.InputFile("results", path).load()
                found = pipeline.check_results(spec, old, results).checked()
            except ContractErrors as failure:
                errors.extend(failure.errors)
                continue
            baseline_records, candidate_records = found.in_order()
            document["packages"].append(dict(comparability(diff, [
                (ROLES[0], found.baseline, baseline_records),
                (ROLES[1], found.candidate, candidate_records)]),
                file=_describe(path, results)["file"]))
    if errors:
        raise ContractErrors.capped(errors)
    return document


def _describe(path: str, document: load.Document) -> JSONObject:
    value = document.value
    return {"file": display_name(path), "sha256": document.sha256, "bytes": document.size,
            "schema_version": value.get("schema_version"),
            "benchmark_version": value.get("benchmark_version"),
            "dataset_version": value.get("dataset_version"),
            "protocol_version": (value.get("protocol") or {}).get("protocol_version")
            if isinstance(value.get("protocol"), dict) else None}
