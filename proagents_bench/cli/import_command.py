"""``run_benchmark.py import --baseline LOG --candidate LOG --output RESULTS [--mapping F]
[--cases F | --write-cases P [--train-log LOG] [--development-log LOG]] [--baseline-id ID]
[--candidate-id ID] [--missing-as error|unknown] [--swebench-instances dataset|submitted]
[--trace-refs] [--failure-origins]``:
harness logs in, a results package the gate accepts unchanged out (see
:mod:`proagents_bench.importers`).

stdout carries one JSON document: ``{"action": "IMPORTED", ...}`` naming what was written
and, per system, its log, format, record counts by status, the trials recorded as unknown
and the trials its harness says each origin failed (``failure_origins``), the rule that made
each side effect; or the CONTRACT_ERROR document (exit 2) naming the
log, the zip entry and the JSON path of every error. The files are written all or none, and
only when the import succeeded.
"""

from __future__ import annotations

import argparse
import os
from typing import Dict, List, Sequence, Tuple

from ..contract.harnesses import formats_help
from ..contract.origins import INFRASTRUCTURE, ORIGINS
from ..contract.vocabulary import MISSING_AS, RESULTS_V3, RESULTS_V5, RESULTS_V6, SPLITS, STATUSES
from ..errors import ContractError, ContractErrors
from ..importers.package import Imported, import_logs, load_cases
from ..importers.settings import SWEBENCH_INSTANCES, load_settings
from ..importers.source import LogSource
from ..jsonio import JSONObject
from ..jsonio.atomic import AtomicWriteError, write_files_atomically
from ..jsonio.dump import document_bytes
from ..jsonio.load import MAX_FILE_BYTES
from ..jsonio.paths import same_file
from ..text import quote
from ..version import harness
from . import Outcome, Session, contract_error_outcome
from .parallel import forking_background
from .report_files import add_format_option, for_people, text_wanted
from .status import EXIT_PASS
from .usage import Parser

IMPORTED = "IMPORTED"


def add_arguments(parser: Parser) -> None:
    parser.description = ("Import one harness log per system (%s) into a results package the "
                          "gate accepts unchanged." % formats_help())
    parser.epilog = ("Exit status: 0 written; 2 a contract or command-line error (nothing "
                     "written). Then run the gate: %s --spec SPEC --cases CASES --results "
                     "RESULTS." % parser.program)
    parser.add_argument("--baseline", metavar="LOG", required=True, action="append",
                        help="the baseline's log; given more than once, the logs of runs of "
                             "one system whose trials are numbered on in the order given")
    parser.add_argument("--candidate", metavar="LOG", required=True, action="append",
                        help="the candidate's log (may be given more than once, as "
                             "--baseline)")
    parser.add_argument("--output", metavar="PATH", required=True,
                        help="where to write the results package (%s; %s with "
                             "--trace-refs; %s with --failure-origins)" % (
                                 RESULTS_V3, RESULTS_V5, RESULTS_V6))
    parser.add_argument("--mapping", metavar="FILE",
                        help="the mapping file (proagents-bench-import-mapping-v1); default: "
                             "the defaults of each harness")
    cases = parser.add_mutually_exclusive_group()
    cases.add_argument("--cases", metavar="FILE",
                       help="the benchmark's cases file: every test case must be in both "
                            "logs, and the package takes its ids")
    cases.add_argument("--write-cases", metavar="PATH",
                       help="also write a cases file built from the baseline log's samples "
                            "(a cases v2 file declaring absent the splits no log holds)")
    add_split_log_options(parser, "--write-cases")
    parser.add_argument("--missing-as", choices=MISSING_AS, default=MISSING_AS[0],
                        help="a (sample, epoch) or (task, trial) the log lacks, or a run that "
                             "did not finish: a contract error (error, the default), or a "
                             "trial of status unknown, recorded in the provenance (unknown)")
    parser.add_argument("--swebench-instances", choices=SWEBENCH_INSTANCES,
                        default=SWEBENCH_INSTANCES[0],
                        help="a SWE-bench summary's instances: every instance of the "
                             "evaluation's dataset, those without a prediction "
                             "(incomplete_ids) missing trials (dataset, the default), or only "
                             "the instances the run submitted, for a run on part of the "
                             "dataset (submitted)")
    parser.add_argument("--trace-refs", action="store_true",
                        help="also write in each record where its trial's trace is in its log "
                             "(the unit and the digest of its bytes: a results v5 package), "
                             "for explain; without it, the package is v3 (v4 for several "
                             "logs), as before")
    parser.add_argument("--failure-origins", action="store_true",
                        help="also write in each record whose its failure is, as the harness "
                             "says it (agent, infrastructure, or null: a results v6 "
                             "package), so that a spec's validity bounds can judge the run; "
                             "with --trace-refs too, its records keep both")
    parser.add_argument("--baseline-id", metavar="ID",
                        help="the baseline's system_id (default: the log's model)")
    parser.add_argument("--candidate-id", metavar="ID",
                        help="the candidate's system_id (default: the log's model)")
    add_format_option(parser, "the IMPORTED document")


def run(options: argparse.Namespace, session: Session) -> Outcome:
    return for_people(_imported(options, session), text_wanted(options, session))


def _imported(options: argparse.Namespace, session: Session) -> Outcome:
    try:
        _check_paths(options)
        settings = load_settings(options.mapping)
        settings.swebench_instances = options.swebench_instances
        settings.trace_refs = options.trace_refs
        settings.failure_origins = options.failure_origins
        cases_file = load_cases(options.cases) if options.cases is not None else None
        imported = import_logs([[LogSource(path) for path in options.baseline],
                                [LogSource(path) for path in options.candidate]],
                               settings, cases_file, options.write_cases is not None,
                               (options.baseline_id, options.candidate_id),
                               forking_background(sum(map(_size, options.baseline))),
                               options.missing_as, split_logs(options))
    except ContractErrors as failure:
        return contract_error_outcome(failure.errors, failure.omitted)
    files = [(options.output, document_bytes(imported.results))]
    if imported.cases is not None:
        files.append((options.write_cases, document_bytes(imported.cases)))
    too_large = [ContractError(
        "import.too_large", "the file would be %d bytes, more than the %d bytes the gate reads "
        "(final states of long text make large records: name a shorter final_state source "
        "in the mapping)" % (len(data), MAX_FILE_BYTES), (), path)
        for path, data in files if len(data) > MAX_FILE_BYTES]
    if too_large:
        return contract_error_outcome(too_large)
    try:
        write_files_atomically(files, session.guard.deferred)
    except AtomicWriteError as problem:
        return unwritable(problem.path, problem.reason)
    return Outcome(EXIT_PASS, document_bytes(_summary(imported, options)), _lines(imported))


def add_split_log_options(parser: Parser, needs: str) -> None:
    """``--train-log`` and ``--development-log`` (for a built cases file: import's and
    init's), which only ``needs`` (an option) makes sense of."""
    for split in SPLITS[:2]:
        parser.add_argument("--%s-log" % split, metavar="LOG", action="append", default=[],
                            help="with %s: a log whose every sample is a %s case (may be "
                                 "given more than once)" % (needs, split))


def split_logs(options: argparse.Namespace) -> List[Tuple[str, LogSource]]:
    """(split, log) of the logs of train and development cases, in the order of SPLITS."""
    return [(split, LogSource(path)) for split, paths in zip(
        SPLITS, (options.train_log, options.development_log)) for path in paths]


def _check_paths(options: argparse.Namespace) -> None:
    """Raise ContractErrors for empty paths, split logs without --write-cases, and an
    output that would overwrite an input or the other output."""
    errors = _path_problems(options)
    if errors:
        raise ContractErrors(errors)


def _path_problems(options: argparse.Namespace) -> List[ContractError]:
    errors = empty_values(options, ("output", "mapping", "cases", "write_cases", "baseline_id",
                                    "candidate_id", "baseline", "candidate"))
    for option in ("train_log", "development_log"):
        for value in getattr(options, option):
            if not value.strip():
                errors.append(ContractError("cli.usage", "--%s was given an empty value" % (
                    option.replace("_", "-"))))
            elif options.write_cases is None:
                errors.append(ContractError(
                    "cli.usage", "--%s gives the cases of a built cases file: it needs "
                    "--write-cases (with --cases, the cases file already has them)" % (
                        option.replace("_", "-"))))
    if errors:
        return errors
    inputs = options.baseline + options.candidate + [
        path for path in (options.mapping, options.cases) if path is not None]
    inputs += options.train_log + options.development_log
    outputs = [("--output", options.output)] + (
        [("--write-cases", options.write_cases)] if options.write_cases else [])
    for option, path in outputs:
        if any(same_file(path, given) for given in inputs):
            errors.append(ContractError("cli.report_path", "%s names an input file: it would "
                                        "be overwritten" % option, (), path))
        elif any(inside_folder(path, given) for given in inputs):
            errors.append(ContractError("cli.report_path", "%s names a file inside an input "
                                        "folder (a log that is a folder): it would change "
                                        "the log" % option, (), path))
    if len(outputs) == 2 and same_file(outputs[0][1], outputs[1][1]):
        errors.append(ContractError("cli.report_path", "--output and --write-cases name the "
                                    "same file", (), options.write_cases))
    return errors


def empty_values(options: argparse.Namespace, names: Sequence[str]) -> List[ContractError]:
    """A usage error for each value of the options ``names`` that is empty or blank (each
    value of an option given more than once; an option not given has none)."""
    errors = []
    for name in names:
        value = getattr(options, name)
        for item in value if isinstance(value, list) else [] if value is None else [value]:
            if not item.strip():
                errors.append(ContractError("cli.usage", "--%s was given an empty value" % (
                    name.replace("_", "-"))))
    return errors


def unwritable(path: str, reason: str) -> Outcome:
    """Exit 2: the file at ``path`` could not be written (nothing was)."""
    return contract_error_outcome([ContractError(
        "cli.report_unwritable", "cannot write %s: %s" % (quote(path), reason), (), path)])


def _size(path: str) -> int:
    """A log's bytes: a file's, or the files' of a folder log (a tau2-bench results folder, a
    Harbor job), which decide whether the candidate's logs are read in a forked process."""
    try:
        if os.path.isdir(path):
            return sum(os.path.getsize(os.path.join(root, name))
                       for root, _folders, names in os.walk(path) for name in names)
        return os.path.getsize(path)
    except (OSError, ValueError):
        return 0


def inside_folder(path: str, folder: str) -> bool:
    """Whether ``path`` would be written inside ``folder`` (an input that is a folder)."""
    if not os.path.isdir(folder):
        return False
    try:
        real_folder = os.path.normcase(os.path.realpath(folder))
        real_path = os.path.normcase(os.path.realpath(path))
        return os.path.commonpath([real_folder, real_path]) == real_folder
    except ValueError:  # another drive, an embedded NUL
        return False


def _summary(imported: Imported, options: argparse.Namespace) -> JSONObject:
    systems = [system for system in imported.systems if system.is_system]
    return {
        "action": IMPORTED,
        "results": options.output,
        "cases": options.write_cases,
        "cases_schema_version": (imported.cases["schema_version"] if imported.cases
                                 else None),
        "absent_splits": (imported.cases.get("absent_splits", []) if imported.cases
                          else None),
        "systems": [{
            "system_id": system.system_id,
            "role": system.role,
            "log": system.source.shown,
            "logs": [log.source.shown for log in system.logs],
            "log_format": system.run.log_format,
            "run_status": system.run.status,
            "records": len(system.records),
            "records_by_status": {status: sum(1 for record in system.records
                                              if record["status"] == status)
                                  for status in STATUSES},
            "recorded_unknown": len(system.recorded_unknown),
            "failure_origins": {origin: system.origins.get(origin, 0) for origin in ORIGINS},
            "samples_not_test": system.not_test,
            "side_effect_rule": system.run.side_effect_rule,
            "side_effects": {name: system.run.side_effect_rules[name] for name in sorted(
                {effect for record in system.records for effect in record["side_effects"]})},
        } for system in systems],
        "case_logs": [{"split": system.role, "log": system.source.shown,
                       "cases": len(system.cases)}
                      for system in imported.systems if not system.is_system],
        "harness": harness(),
    }


def _lines(imported: Imported) -> List[str]:
    lines = []
    for system in imported.systems:
        if not system.is_system:
            lines.append("read %d %s cases from %s" % (len(system.cases), system.role,
                                                       quote(system.source.file_name)))
            continue
        lines.append("imported %s %s: %d records from %s (%s)%s%s" % (
            system.role, quote(system.system_id or ""), len(system.records),
            quote(system.source.file_name), system.run.log_format,
            "; %d train/development samples are cases, not records" % system.not_test
            if system.not_test else "",
            "; %d missing trials recorded as unknown" % len(system.recorded_unknown)
            if system.recorded_unknown else ""))
        lost = system.origins.get(INFRASTRUCTURE, 0)
        if lost:  # reported whatever the version written: never silently the agent's
            lines.append("  %d of %d trials lost to the infrastructure, as the harness says "
                         "(failure origin; each a failed trial)" % (lost, len(system.records)))
        effects = sorted({effect for record in system.records
                          for effect in record["side_effects"]})
        if system.parts:
            for number, log in enumerate(system.parts, 1):
                lines.append("  log %d %s: trials %d to %d" % (
                    number, quote(log.source.file_name), log.first_trial_id,
                    log.first_trial_id + log.protocol["trial_count"] - 1))
        # Each rule once, with the side effects it made (every tool of an Inspect log is one
        # rule's: a line per tool would repeat it).
        by_rule: Dict[str, List[str]] = {}
        for name in effects:
            by_rule.setdefault(system.run.side_effect_rules[name], []).append(name)
        for rule, names in by_rule.items():
            lines.append("  side effect%s %s: %s" % ("s" if len(names) > 1 else "",
                                                     ", ".join(names), rule))
        if not effects:
            lines.append("  no side effect recorded (rule: %s)" % system.run.side_effect_rule)
    return lines
