"""``run_benchmark.py bench gate|health|service|attack|import|release|false-pass|plan
[options]``: time the gate on a synthetic package, or ``health`` on many packages, against a
bare ``json.load`` of the same files (see :mod:`proagents_bench.tools.bench` and
:mod:`proagents_bench.tools.health_bench`), load the private-test service, run the boosting
attack against it at every feedback level (:mod:`proagents_bench.tools.attack_bench`), time
the import of two synthetic logs (Inspect AI, promptfoo or JSON lines) against the gate on its
output
(:mod:`proagents_bench.tools.import_bench`), time a release of several synthetic benchmarks
against their gates one after another (:mod:`proagents_bench.tools.release_bench`),
enumerate the bootstrap gate's false-pass rate exactly
(:mod:`proagents_bench.tools.falsepass`), or check ``plan`` against a simulated gate
(:mod:`proagents_bench.tools.plan_check`), and print the figures on stdout."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from typing import List

from ..contract.harnesses import INSPECT_EVAL
from ..errors import ContractError
from ..service.phases import PhaseError, parse_share
from ..tools import (attack_bench, bench, falsepass, harness_bench, health_bench, import_bench,
                     import_formats, plan_check, release_bench, service_bench)
from . import Outcome, Session, contract_error_outcome
from .parallel import FORK_LOG_BYTES, usable_cores
from .status import EXIT_INTERNAL_ERROR, EXIT_PASS
from .usage import Parser, UsageError

# The log formats ``bench import`` writes.
IMPORT_BENCH_FORMATS = tuple(import_formats.BARE_READ_KIND) + tuple(
    sorted(harness_bench.WRITERS))


def _package_options(parser: Parser, tasks: int, repeat: int) -> None:
    """The options of a benchmark on a synthetic package, timed in child processes."""
    parser.add_argument("--tasks", type=int, default=tasks,
                        help="test tasks of the synthetic package (default %d)" % tasks)
    parser.add_argument("--trials", type=int, default=5,
                        help="trials per task and system, 2..100 (default 5)")
    parser.add_argument("--repeat", type=int, default=repeat,
                        help="runs of each child; the median is reported (default %d)" % repeat)
    parser.add_argument("--python", metavar="EXE", default=sys.executable,
                        help="interpreter for the children (default: this one)")


def build_parser(program: str) -> Parser:
    parser = Parser(prog=program + " bench",
                    description="Benchmarks of proagents-bench, each process timed whole.")
    kinds = parser.add_subparsers(dest="kind", metavar="KIND")
    kinds.required = True
    gate = kinds.add_parser("gate", help="the gate against a bare json.load of the same files")
    _package_options(gate, tasks=10000, repeat=1)
    gate.add_argument("--samples", type=int, default=10000,
                      help="bootstrap samples, 100..100000 (default 10000)")
    gate.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    gate.add_argument("--keep", metavar="DIR",
                      help="write the package and the gate's document to DIR and keep them")
    gate.add_argument("--write", metavar="DIR",
                      help="only write the package (spec.json, cases.json, results.json) to "
                           "DIR, and time nothing")
    gate.add_argument("--reports", action="store_true",
                      help="also time the gate writing all three reports (--html, "
                           "--markdown, --junit-xml) beside the plain gate")
    health = kinds.add_parser(
        "health", help="health over many packages against a bare json.load of the same "
                       "files")
    _package_options(health, tasks=10000, repeat=1)
    health.add_argument("--packages", type=int, default=20,
                        help="results packages, one shared baseline (default 20)")
    health.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    health.add_argument("--keep", metavar="DIR",
                        help="write the benchmark and the documents to DIR and keep them")
    health.add_argument("--write", metavar="DIR",
                        help="only write the benchmark (spec.json, cases.json, "
                             "results-NN.json) to DIR, and time nothing")
    release = kinds.add_parser(
        "release", help="a release of several synthetic benchmarks against their gates run "
                        "one after another")
    _package_options(release, tasks=10000, repeat=1)
    release.add_argument("--benchmarks", type=int, default=5,
                         help="benchmarks in the release (default 5)")
    release.add_argument("--samples", type=int, default=10000,
                         help="bootstrap samples, 100..100000 (default 10000)")
    release.add_argument("--seed", type=int, default=1,
                         help="the first benchmark's generator seed; the next ones count up "
                              "(default 1)")
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
    attack = kinds.add_parser(
        "attack", help="the boosting attack (Blum & Hardt 2015) against the service at every "
                       "feedback level: the inflation of the public and final boards")
    attack.add_argument("--cases", type=int, default=100, help="test cases (default 100)")
    attack.add_argument("--submissions", type=int, default=150,
                        help="random submissions per team before its majority (default 150)")
    attack.add_argument("--repetitions", type=int, default=10,
                        help="teams per level, each with its own random vectors (default 10)")
    attack.add_argument("--private-share", default="0.5",
                        help="the phase's private share; 0: no phase (default 0.5)")
    attack.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    attack.add_argument("--python", metavar="EXE", default=sys.executable,
                        help="interpreter for the servers (default: this one)")
    attack.add_argument("--strategy", choices=attack_bench.STRATEGIES,
                        default=attack_bench.BOTH,
                        help="the boosting attack, the choice of a submission and its "
                             "complement for the final board, or both (default)")
    attack.add_argument("--pairs", type=int, default=attack_bench.DEFAULT_PAIRS,
                        help="teams of the choice attack per number of final choices "
                             "(default %d)" % attack_bench.DEFAULT_PAIRS)
    imports = kinds.add_parser(
        "import", help="the import of two synthetic logs (Inspect AI .eval, promptfoo "
                       "results, JSON lines, Harbor jobs or SWE-bench run summaries: --format) "
                       "against the gate on the package it writes")
    imports.add_argument("--tasks", type=int, default=10000,
                         help="samples per epoch, each a test task, at least %d; tasks times "
                              "epochs at most %d (default 10000)" % (
                                  import_bench.MIN_TASKS, import_bench.MAX_TRIALS_PER_SYSTEM))
    imports.add_argument("--epochs", type=int, default=5,
                         help="epochs, 2..100: the trials of each task (default 5)")
    imports.add_argument("--repeat", type=int, default=1,
                         help="runs of each child, 1..%d; the median is reported (default 1)"
                              % import_bench.MAX_REPEAT)
    imports.add_argument("--python", metavar="EXE", default=sys.executable,
                         help="interpreter for the children (default: this one)")
    imports.add_argument("--keep", metavar="DIR",
                         help="write the logs, the package and the documents to DIR and keep "
                              "them")
    imports.add_argument("--format", choices=IMPORT_BENCH_FORMATS, default=INSPECT_EVAL,
                         help="the logs' format (default %s); harbor-job: a job folder per "
                              "system, --epochs attempts; swebench-summary: --epochs run "
                              "summaries per system" % INSPECT_EVAL)
    imports.add_argument("--template-log", metavar="LOG",
                         help="an Inspect AI .eval log whose samples are the templates "
                              "(default: a synthetic sample of about 4 KB)")
    enumeration = kinds.add_parser(
        "false-pass", help="the bootstrap gate's false-pass rate with no true difference, by "
                           "exact enumeration (the docs' Markdown tables)")
    enumeration.add_argument("--tasks", default="10,20,30,50,100,200",
                             help="comma-separated test task counts of the first table "
                                  "(default 10,20,30,50,100,200)")
    enumeration.add_argument("--families", default="3,6,10,20,40",
                             help="comma-separated family counts of the second table "
                                  "(default 3,6,10,20,40)")
    enumeration.add_argument("--family-size", type=int, default=5,
                             help="near-duplicate tasks per family (default 5)")
    enumeration.add_argument("--confidence", default="0.95", help="confidence (default 0.95)")
    enumeration.add_argument("--beta", default="2,2",
                             help="the Beta(alpha, beta) of a task's success probability "
                                  "(default 2,2)")
    enumeration.add_argument("--seeds", type=int, default=0, metavar="N",
                             help="also the strict gate's rates with the gate's own "
                                  "bootstrap of --samples resamples, at seeds 0..N-1, for "
                                  "each of --tasks (default 0: none)")
    enumeration.add_argument("--samples", type=int, default=1000, metavar="B",
                             help="the bootstrap's resamples for --seeds (default 1000)")
    planning = kinds.add_parser(
        "plan", help="time the plan command on the example and on a synthetic package, each "
                     "in a fresh child process")
    _package_options(planning, tasks=1000, repeat=3)
    planning.add_argument("--simulate", type=int, default=0, metavar="N",
                          help="also simulate N benchmarks of the gate at the synthetic "
                               "package's recommended design and at its own, beside the "
                               "plan's power (default 0: none)")
    return parser


def phases_share_ok(text: str) -> bool:
    try:
        parse_share(text)
    except PhaseError:
        return False
    return True


def run(arguments: List[str], session: Session) -> Outcome:
    try:
        options = build_parser(session.program).parse_args(arguments)
    except UsageError as usage:
        return contract_error_outcome([ContractError("cli.usage", "%s (see --help)" % usage)])
    if options.kind == "false-pass":
        return _false_pass(options, session)
    if options.kind == "health":
        if (options.packages < 1 or options.tasks < 1 or not 2 <= options.trials <= 100
                or options.repeat < 1):
            return contract_error_outcome([ContractError(
                "cli.usage", "--packages, --tasks and --repeat are at least 1; --trials is "
                             "2..100")])
        succeeded = health_bench.health_benchmark(options, session.say)
        return Outcome(EXIT_PASS if succeeded else EXIT_INTERNAL_ERROR)
    if options.kind == "plan":
        if (options.tasks < 2 or not 2 <= options.trials <= 100 or options.repeat < 1
                or options.simulate < 0):
            return contract_error_outcome([ContractError(
                "cli.usage", "--tasks is at least 2, --trials 2..100, --repeat at least 1, "
                "--simulate at least 0")])
        succeeded = plan_check.plan_benchmark(options, session.say)
        return Outcome(EXIT_PASS if succeeded else EXIT_INTERNAL_ERROR)
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
    if options.kind == "attack":
        if (options.cases < 4 or options.submissions < 1 or options.repetitions < 1
                or options.pairs < 2 or options.seed < 0 or (
                    options.private_share != "0" and not phases_share_ok(
                        options.private_share))):
            return contract_error_outcome([ContractError(
                "cli.usage", "--cases is at least 4, --submissions and --repetitions at least "
                "1, --pairs at least 2, --seed at least 0, --private-share 0 or a decimal in "
                "(0, 1)")])
        succeeded = attack_bench.attack_benchmark(
            options.cases, options.submissions, options.repetitions, options.private_share,
            options.seed, options.python, session.say, options.strategy, options.pairs)
        return Outcome(EXIT_PASS if succeeded else EXIT_INTERNAL_ERROR)
    if options.kind == "import":
        templates = None
        if options.template_log is not None and options.format != INSPECT_EVAL:
            return contract_error_outcome([ContractError(
                "cli.usage", "--template-log takes the samples of an .eval log: it needs "
                "--format %s" % INSPECT_EVAL)])
        problems = import_bench.argument_problems(options)
        if problems:
            return contract_error_outcome([ContractError("cli.usage", "%s (see --help)" % problem)
                                           for problem in problems])
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


def _false_pass(options: argparse.Namespace, session: Session) -> Outcome:
    try:
        tasks = [int(item) for item in options.tasks.split(",")]
        families = [int(item) for item in options.families.split(",")]
        confidence = Fraction(options.confidence)
        alpha, beta = (Fraction(item) for item in options.beta.split(","))
    except ValueError as problem:
        return contract_error_outcome([ContractError("cli.usage", "%s (see --help)" %
                                                     problem)])
    if (min(tasks + families) < 1 or options.family_size < 1 or not 0 < confidence < 1
            or alpha <= 0 or beta <= 0 or options.seeds < 0 or options.samples < 1):
        return contract_error_outcome([ContractError(
            "cli.usage", "--tasks, --families, --family-size and --samples are at least 1, "
            "--seeds at least 0, --confidence lies between 0 and 1, and --beta is two "
            "positive numbers")])
    q = falsepass.discordance(alpha, beta)
    session.say("Independent tasks; p ~ Beta(%s, %s), so a task is discordant with chance "
                "%s; gate min_paired_delta_ci_low = 0 at confidence %s, ideal bootstrap; "
                "exact:" % (alpha, beta, q, options.confidence))
    session.say("")
    falsepass.task_table(tasks, confidence, alpha, beta, session.say)
    session.say("")
    session.say("Families of %d near-duplicate tasks (each system passes all of a family or "
                "none, with chance p); D counts discordant families:" % options.family_size)
    session.say("")
    falsepass.family_table(families, options.family_size, confidence, alpha, beta,
                           session.say)
    if options.seeds:
        session.say("")
        session.say("Independent tasks, the strict gate with the gate's own bootstrap of %d "
                    "resamples at each seed 0..%d; exact given each seed's draws:" % (
                        options.samples, options.seeds - 1))
        session.say("")
        falsepass.seed_table(tasks, options.samples, options.seeds, confidence, alpha, beta,
                             session.say)
    return Outcome(EXIT_PASS)
