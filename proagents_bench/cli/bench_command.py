"""``run_benchmark.py bench gate|import|release|false-pass|service [options]``: time the gate
on a synthetic package against a bare ``json.load`` of the same files (see
:mod:`proagents_bench.tools.bench`), the import of two synthetic Inspect AI logs against the
gate on its output (:mod:`proagents_bench.tools.import_bench`), or a release of several
synthetic benchmarks against their gates run one after another
(:mod:`proagents_bench.tools.release_bench`), and print the figures on stdout."""

from __future__ import annotations

import sys
from fractions import Fraction
from typing import List

from ..errors import ContractError
from ..tools import bench, import_bench, release_bench, service_bench, simulate
from . import Outcome, Session, contract_error_outcome
from .gate_command import Parser, UsageError
from .parallel import FORK_LOG_BYTES, usable_cores
from .status import EXIT_INTERNAL_ERROR, EXIT_PASS


def build_parser(program: str) -> Parser:
    parser = Parser(prog=program + " bench",
                    description="Benchmarks of proagents-bench, each process timed whole.")
    kinds = parser.add_subparsers(dest="kind", metavar="KIND")
    kinds.required = True
    gate = kinds.add_parser("gate", help="the gate against a bare json.load of the same files")
    gate.add_argument("--tasks", type=int, default=10000, help="test tasks (default 10000)")
    gate.add_argument("--trials", type=int, default=5,
                      help="trials per task and system, 2..100 (default 5)")
    gate.add_argument("--samples", type=int, default=10000,
                      help="bootstrap samples, 100..100000 (default 10000)")
    gate.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    gate.add_argument("--repeat", type=int, default=1,
                      help="runs of each child; the median is reported (default 1)")
    gate.add_argument("--python", metavar="EXE", default=sys.executable,
                      help="interpreter for the children (default: this one)")
    gate.add_argument("--keep", metavar="DIR",
                      help="write the package and the gate's document to DIR and keep them")
    gate.add_argument("--write", metavar="DIR",
                      help="only write the package (spec.json, cases.json, results.json) to "
                           "DIR, and time nothing")
    gate.add_argument("--reports", action="store_true",
                      help="also time the gate writing all three reports (--html, "
                           "--markdown, --junit-xml) beside the plain gate")
    release = kinds.add_parser(
        "release", help="a release of several synthetic benchmarks against their gates run "
                        "one after another")
    release.add_argument("--benchmarks", type=int, default=5,
                         help="benchmarks in the release (default 5)")
    release.add_argument("--tasks", type=int, default=10000,
                         help="test tasks per benchmark (default 10000)")
    release.add_argument("--trials", type=int, default=5,
                         help="trials per task and system, 2..100 (default 5)")
    release.add_argument("--samples", type=int, default=10000,
                         help="bootstrap samples, 100..100000 (default 10000)")
    release.add_argument("--seed", type=int, default=1,
                         help="the first benchmark's generator seed; the next ones count up "
                              "(default 1)")
    release.add_argument("--repeat", type=int, default=1,
                         help="runs of each child; the median is reported (default 1)")
    release.add_argument("--python", metavar="EXE", default=sys.executable,
                         help="interpreter for the children (default: this one)")
    release.add_argument("--keep", metavar="DIR",
                         help="write the packages, the manifest and the documents to DIR and "
                              "keep them")
    service = kinds.add_parser(
        "service", help="the private-test service under load: requests per second and "
                        "latency of submissions")
    service.add_argument("--tasks", type=int, default=None,
                         help="test tasks of a synthetic package (default: the shipped "
                              "example)")
    service.add_argument("--trials", type=int, default=3,
                         help="trials per task of the synthetic package (default 3)")
    service.add_argument("--requests", type=int, default=200,
                         help="submissions to send (default 200)")
    service.add_argument("--concurrency", type=int, default=20,
                         help="concurrent clients (default 20)")
    service.add_argument("--python", metavar="EXE", default=sys.executable,
                         help="interpreter for the server (default: this one)")
    imports = kinds.add_parser(
        "import", help="the import of two Inspect AI .eval logs against the gate on the "
                       "package it writes")
    imports.add_argument("--tasks", type=int, default=10000,
                         help="samples per epoch, each a test task (default 10000)")
    imports.add_argument("--epochs", type=int, default=5,
                         help="epochs, 2..100: the trials of each task (default 5)")
    imports.add_argument("--repeat", type=int, default=1,
                         help="runs of each child; the median is reported (default 1)")
    imports.add_argument("--python", metavar="EXE", default=sys.executable,
                         help="interpreter for the children (default: this one)")
    imports.add_argument("--keep", metavar="DIR",
                         help="write the logs, the package and the documents to DIR and keep "
                              "them")
    imports.add_argument("--template-log", metavar="LOG",
                         help="an Inspect AI .eval log whose samples are the templates "
                              "(default: a synthetic sample of about 4 KB)")
    simulation = kinds.add_parser(
        "false-pass", help="the bootstrap gate's false-pass rate under no true difference, "
                           "by a seeded simulation (a Markdown table)")
    simulation.add_argument("--tasks", default="10,50,200",
                            help="comma-separated test task counts (default 10,50,200)")
    simulation.add_argument("--shares", default="0.02,0.1,0.3",
                            help="comma-separated discordant shares (default 0.02,0.1,0.3)")
    simulation.add_argument("--repetitions", type=int, default=2000,
                            help="simulated benchmarks per cell (default 2000)")
    simulation.add_argument("--samples", type=int, default=1000,
                            help="bootstrap samples (default 1000)")
    simulation.add_argument("--confidence", default="0.95", help="confidence (default 0.95)")
    simulation.add_argument("--seed", type=int, default=20261202, help="seed")
    return parser


def run(arguments: List[str], session: Session) -> Outcome:
    try:
        options = build_parser(session.program).parse_args(arguments)
    except UsageError as usage:
        return contract_error_outcome([ContractError("cli.usage", "%s (see --help)" % usage)])
    if options.kind == "false-pass":
        try:
            tasks = [int(item) for item in options.tasks.split(",")]
            shares = [float(item) for item in options.shares.split(",")]
            confidence = Fraction(options.confidence)
        except ValueError as problem:
            return contract_error_outcome([ContractError("cli.usage", "%s (see --help)" %
                                                         problem)])
        for line in simulate.false_pass_table(tasks, shares, options.repetitions,
                                              options.samples, confidence, options.seed):
            session.say(line)
        return Outcome(EXIT_PASS)
    if options.kind == "service":
        if options.requests < 1 or options.concurrency < 1 or (
                options.tasks is not None and options.tasks < 1) or not 2 <= options.trials <= 100:
            return contract_error_outcome([ContractError(
                "cli.usage", "--requests, --concurrency and --tasks are at least 1; --trials "
                "is 2..100")])
        succeeded = service_bench.service_benchmark(options.tasks, options.trials,
                                                    options.requests, options.concurrency,
                                                    options.python, session.say)
        return Outcome(EXIT_PASS if succeeded else EXIT_INTERNAL_ERROR)
    if options.kind == "import":
        templates = None
        if options.template_log is not None:
            try:
                templates = import_bench.read_templates(options.template_log)
            except import_bench.TemplateError as problem:
                return contract_error_outcome([ContractError(
                    "cli.usage", "--template-log: %s" % problem)])
            for line in import_bench.zstd_speeds(options.template_log, max(options.repeat, 3)):
                session.say(line)
        succeeded = import_bench.import_benchmark(options, session.say, FORK_LOG_BYTES,
                                                  templates)
        return Outcome(EXIT_PASS if succeeded else EXIT_INTERNAL_ERROR)
    if options.kind == "release":
        if options.benchmarks < 1 or options.tasks < 1 or not 2 <= options.trials <= 100:
            return contract_error_outcome([ContractError(
                "cli.usage", "--benchmarks and --tasks are at least 1; --trials is 2..100")])
        succeeded = release_bench.release_benchmark(options, session.say, usable_cores())
        return Outcome(EXIT_PASS if succeeded else EXIT_INTERNAL_ERROR)
    succeeded = bench.gate_benchmark(options, session.say)
    return Outcome(EXIT_PASS if succeeded else EXIT_INTERNAL_ERROR)
