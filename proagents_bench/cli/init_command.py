"""``run_benchmark.py init [--directory DIR] [--from-log LOG [--mapping F] [--baseline-id ID]
[--train-log LOG] [--development-log LOG]] [--sequential [--cases F] [--unit U] [--effect D]
[--discordance Q] [--power P] [--looks N] [--growth G]] [--force]``: a new benchmark's first
files (see :mod:`proagents_bench.importers.scaffold`).

From nothing it writes ``benchmark_spec.json``, ``benchmark_cases.json`` and a results
template ``benchmark_results.json`` (every trial ``unknown``, nothing measured) that the gate
validates as they are; from a log, the spec (the log's protocol and ids) and the cases file
its samples make, for ``import --cases`` to check the logs against. stdout is one JSON
document, ``{"action": "INITIALIZED", ...}``, naming the files and the commands to run next
(stderr says the same in lines). A file that exists is never overwritten without
``--force`` (``cli.init_exists``, exit 2, nothing written); the files are written all or
none, atomically. With ``--sequential`` the spec is a spec v5 whose sequential design is
frozen on the cases (those written, the log's, or a cases file of the team's own given with
``--cases``, which is read and never written), and the results template is shaped as its
first look; it is not a look (nothing has run in it), so the next steps check it without
``--ledger`` and judge each look's package with it.
"""

from __future__ import annotations

import argparse
import os
from typing import Dict, List, Optional, Tuple

from ..contract.harnesses import formats_help
from ..errors import ContractError, ContractErrors
from ..contract.validate import file_errors
from ..contract.rules import cases_errors
from ..contract.sequential import NAMED_TASKS, named_tasks, pool_order
from ..contract.vocabulary import TEST_SPLIT
from ..importers.scaffold import SequentialChoice, blank_package, from_log
from ..jsonio import JSONObject, load
from ..importers.settings import load_settings
from ..importers.source import LogSource
from ..jsonio.atomic import AtomicWriteError, write_files_atomically
from ..jsonio.dump import document_bytes
from ..jsonio.paths import same_file
from ..text import quote
from ..version import harness
from . import Outcome, Session, command_word, contract_error_outcome
from .gate_command import INIT_FILE_NAMES as FILE_NAMES
from .import_command import (add_split_log_options, empty_values, inside_folder, split_logs,
                             unwritable)
from .plan_command import add_design_options, fraction_option, looks_problems
from .report_files import add_format_option, for_people, text_wanted
from .status import EXIT_PASS
from .usage import Parser

INITIALIZED = "INITIALIZED"
# The ledger the next steps name, beside the files init writes.
LEDGER_NAME = "ledger.json"


def add_arguments(parser: Parser) -> None:
    parser.description = ("Write a new benchmark's first files: from nothing, a spec, a cases "
                          "file with the three splits and a results template the gate "
                          "validates; from a harness log (%s), the spec of the protocol it "
                          "recorded and the cases of its samples. Never overwrites a file "
                          "without --force." % formats_help())
    parser.epilog = ("Exit status: 0 written; 2 a file exists, a contract or command-line "
                     "error (nothing written).")
    parser.add_argument("--directory", metavar="DIR", default=".",
                        help="where to write %s (default: the working directory; created "
                             "when missing)" % ", ".join(FILE_NAMES.values()))
    parser.add_argument("--from-log", metavar="LOG",
                        help="build the spec and cases from this log of the baseline (the "
                             "results then come from the import command)")
    parser.add_argument("--mapping", metavar="FILE",
                        help="with --from-log: the import's mapping file (protocol values "
                             "the log lacks, case overrides)")
    parser.add_argument("--baseline-id", metavar="ID",
                        help="with --from-log: the baseline's system_id (default: the log's "
                             "model)")
    add_split_log_options(parser, "--from-log")
    parser.add_argument("--sequential", action="store_true",
                        help="write a spec v5 with a sequential design frozen on the cases "
                             "(docs/statistics.md): the gate then decides look by look, with "
                             "--ledger")
    parser.add_argument("--cases", metavar="FILE",
                        help="with --sequential: freeze the design on this cases file of "
                             "your own (read, never written) instead of writing one")
    add_design_options(parser, "", " (default: tasks for --unit task; for trial, trials "
                                   "when that allows the looks)")
    parser.add_argument("--effect", type=fraction_option,
                        help="with --sequential: the paired difference of the unit's pass "
                             "rates worth detecting (default 0.1)")
    parser.add_argument("--discordance", type=fraction_option,
                        help="with --sequential: the share of units where the systems will "
                             "differ, assumed since nothing has run (default 0.3)")
    parser.add_argument("--power", type=fraction_option,
                        help="with --sequential: the chance of a PASS at the effect "
                             "(default 0.8)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite files that exist (default: refuse, exit 2)")
    add_format_option(parser, "the INITIALIZED document")


def run(options: argparse.Namespace, session: Session) -> Outcome:
    return for_people(_initialized(options, session), text_wanted(options, session))


def _initialized(options: argparse.Namespace, session: Session) -> Outcome:
    problems = _usage_problems(options)
    if problems:
        return contract_error_outcome(problems)
    kinds = ("spec", "cases") if options.from_log is not None else tuple(FILE_NAMES)
    if options.cases is not None:
        kinds = ("spec", "results")
    paths = {kind: _in(options.directory, FILE_NAMES[kind]) for kind in kinds}
    problems = _target_problems(options, paths)
    if problems:
        return contract_error_outcome(problems)
    choice = _choice(options)
    try:
        given = _given_cases(options.cases)
        if options.from_log is None:
            scaffold = None
            files = blank_package(choice, given)
        else:
            settings = load_settings(options.mapping)
            scaffold = from_log(LogSource(options.from_log), settings, options.baseline_id,
                                split_logs(options), choice)
            files = scaffold.files
    except ContractErrors as failure:
        return contract_error_outcome(failure.errors, failure.omitted)
    try:
        if not os.path.isdir(options.directory):
            os.makedirs(options.directory)
        write_files_atomically([(paths[kind], data) for kind, data in files],
                               session.guard.deferred)
    except AtomicWriteError as problem:
        return unwritable(problem.path, problem.reason)
    except OSError as problem:
        return unwritable(options.directory, problem.strerror or str(problem))
    if options.cases is not None:
        paths["cases"] = options.cases
    steps = _next_steps(session.command, options, paths,
                        None if scaffold is None else scaffold.system_id)
    design = None if choice is None else _design(files, given)
    document = {
        "action": INITIALIZED,
        "files": {kind: paths.get(kind) for kind in FILE_NAMES},
        "sequential": design,
        "from_log": None if scaffold is None else {
            "log": options.from_log,
            "log_format": scaffold.log_format,
            "baseline_system_id": scaffold.system_id,
            "test_records": scaffold.samples,
            "absent_splits": scaffold.absent_splits,
            "unmeasured_gates": scaffold.unmeasured,
        },
        "next": steps,
        "harness": harness(),
    }
    lines = ["wrote %s" % paths[kind] for kind in kinds]
    if scaffold is not None and scaffold.absent_splits:
        lines.append("the log holds no %s case: the cases file declares %s absent (cases v2), "
                     "and the gate reports the family contamination check as not run" % (
                         " or ".join(scaffold.absent_splits),
                         " and ".join(scaffold.absent_splits)))
    if scaffold is not None:
        lines.append("the gates on latency and cost start at 1.25 times what the log "
                     "measured, in the units the import writes")
        if scaffold.unmeasured:
            lines.append("the log records no value for %s: those gates cannot be judged, and "
                         "the gate answers REVIEW, until the harness records them" % (
                             ", ".join(scaffold.unmeasured)))
    if design is not None:
        first = design["first_look"]
        lines.append("the spec's sequential design (%s level, win share %s, at most %d "
                     "discordant units) is frozen on the %d test cases: look 1 runs %d "
                     "task%s x %d trials: %s%s; judge each look with --ledger %s" % (
                         design["unit"], design["win_share"], design["max_discordant"],
                         design["pool"], len(first["tasks"]),
                         "" if len(first["tasks"]) == 1 else "s", first["trials"],
                         named_tasks(first["tasks"]),
                         " (sequential.first_look lists them all)"
                         if len(first["tasks"]) > NAMED_TASKS else "",
                         command_word(_in(options.directory, LEDGER_NAME))))
    lines.append("the gates are starting values: set them to your release criteria in %s" %
                 paths["spec"])
    checks = steps[:-1] if design is not None else steps
    lines.extend("next: " + step for step in checks)
    if design is not None:
        if scaffold is None:
            lines.append("      that checks the files on the template, without --ledger: "
                         "nothing has run in it, so it is not a look (with --ledger the gate "
                         "refuses it: ledger.look_unmeasured)")
        lines.append("then, each look (a package of every trial of the looks before and the "
                     "new batch): " + steps[-1])
    return Outcome(EXIT_PASS, document_bytes(document), lines)


def _usage_problems(options: argparse.Namespace) -> List[ContractError]:
    """Empty values, the options of a log given without --from-log, and those of a design
    given without --sequential."""
    errors = empty_values(options, ("directory", "from_log", "mapping", "baseline_id",
                                    "cases"))
    for option in ("mapping", "baseline_id", "train_log", "development_log"):
        if getattr(options, option) and options.from_log is None:
            errors.append(ContractError("cli.usage", "--%s needs --from-log: it says how to "
                                        "read a log" % option.replace("_", "-")))
    for option in SEQUENTIAL_OPTIONS:
        if getattr(options, option) is not None and not options.sequential:
            errors.append(ContractError("cli.usage", "--%s needs --sequential: it says what "
                                        "the design is" % option))
    if options.cases is not None and options.from_log is not None:
        errors.append(ContractError("cli.usage", "--cases and --from-log both name the "
                                    "cases: give one"))
    return errors + looks_problems(options)


# The options of a sequential design (init --sequential).
SEQUENTIAL_OPTIONS = ("cases", "unit", "effect", "discordance", "power", "looks", "growth")


def _choice(options: argparse.Namespace) -> Optional[SequentialChoice]:
    """The design init is asked for (None: a fixed design, spec v3 as before)."""
    if not options.sequential:
        return None
    asked = {name: getattr(options, name) for name in SEQUENTIAL_OPTIONS[1:]
             if getattr(options, name) is not None}
    return SequentialChoice(**asked)


def _given_cases(path: Optional[str]) -> Optional[JSONObject]:
    """The team's own cases file (``--cases``), checked against its contract; None when
    not given."""
    if path is None:
        return None
    document = load.load_file(path)
    errors = file_errors("cases", document.value) or cases_errors(document.value)
    if errors:
        raise ContractErrors(document.errors_at(errors))
    found: JSONObject = document.value
    return found


def _design(files: List[Tuple[str, bytes]], given: Optional[JSONObject]) -> JSONObject:
    """The INITIALIZED document's ``sequential``: the design written, the size of its pool,
    and the tasks of its first look in the frozen order (those to run first)."""
    written = dict(files)
    block = load.parse_bytes(written["spec"], "spec").value["sequential"]
    cases = given if given is not None else load.parse_bytes(written["cases"], "cases").value
    pool = pool_order([case["id"] for case in cases["cases"] if case["split"] == TEST_SPLIT],
                      block["order_seed"])
    first = block["looks"][0]
    return {"unit": block["unit"], "win_share": float(block["win_share"]),
            "max_discordant": block["max_discordant"], "looks": block["looks"],
            "pool": len(pool), "first_look": {"tasks": pool[:first["tasks"]],
                                              "trials": first["trials"]}}


def _target_problems(options: argparse.Namespace,
                     paths: Dict[str, str]) -> List[ContractError]:
    """A file to write that exists (without --force), or that is an input or inside one."""
    inputs = [path for path in [options.from_log, options.mapping, options.cases] +
              options.train_log +
              options.development_log if path]
    errors = []
    for kind, path in paths.items():
        if any(same_file(path, given) or inside_folder(path, given) for given in inputs):
            errors.append(ContractError("cli.report_path", "the %s file would overwrite an "
                                        "input (or a file inside an input folder)" % kind,
                                        (), path))
        elif os.path.lexists(path) and not options.force:
            errors.append(ContractError("cli.init_exists", "%s exists: init never overwrites "
                                        "a file; move it, choose another --directory, or "
                                        "pass --force" % quote(path), (), path))
    return errors


def _next_steps(program: str, options: argparse.Namespace, paths: Dict[str, str],
                baseline_id: Optional[str]) -> List[str]:
    """The commands to run next, with the paths written; the import names the baseline as
    the spec does (``baseline_id``), whatever the candidate's log calls its model."""
    gate = "%s --spec %s --cases %s --results %s" % (
        program, command_word(paths["spec"]), command_word(paths["cases"]),
        command_word(paths.get("results") or _in(options.directory, FILE_NAMES["results"])))
    # Under a sequential design, last: each look, judged with the ledger.
    looks = ["%s --spec %s --cases %s --results LOOK_RESULTS --ledger %s" % (
        program, command_word(paths["spec"]), command_word(paths["cases"]),
        command_word(_in(options.directory, LEDGER_NAME)))] if options.sequential else []
    if options.from_log is None:
        return [gate] + looks
    mapping = " --mapping %s" % command_word(options.mapping) if options.mapping else ""
    return ["%s import --baseline %s --candidate CANDIDATE_LOG%s --cases %s --baseline-id %s "
            "--candidate-id CANDIDATE_ID --output %s" % (
                program, command_word(options.from_log), mapping,
                command_word(paths["cases"]), command_word(baseline_id or ""),
                command_word(_in(options.directory, FILE_NAMES["results"]))), gate] + looks


def _in(directory: str, name: str) -> str:
    """The file ``name`` in ``directory`` as a person writes it: the bare name in ``.``."""
    return name if directory == os.curdir else os.path.join(directory, name)
