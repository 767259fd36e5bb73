"""``python -B -m devtools bench KIND [options]``: the benchmarks of proagents-bench, each a row
of :data:`BENCHES`, its figures printed on stdout.

- ``gate``: the gate on a synthetic package against a bare ``json.load`` of the same files
  (:mod:`.gate_bench`); ``health``: health over many packages, the same way
  (:mod:`.health_bench`); ``release``: a release of several synthetic benchmarks against
  their gates one after another (:mod:`.release_bench`); ``import``: the import of two
  synthetic logs against the gate on its output (:mod:`.import_bench`); ``explain``: explain
  on logs of samples hundreds of megabytes large (:mod:`.explain_bench`); ``plan``: the plan
  command timed, and checked against a simulated gate (:mod:`.plan_check`);
- ``service``: the private-test service under load (:mod:`.service_bench`); ``attack``: the
  boosting attack against it at every feedback level (:mod:`.attack_bench`);
- ``false-pass``: the bootstrap gate's false-pass rate, by exact enumeration
  (:mod:`.falsepass`); ``sequential``: the sequential design's exact tables
  (:mod:`.sequential_tables`).

A row holds the kind's options, the bounds of its numbers (:class:`Range`, checked before
anything is written), any further check, and the function that runs it. A bad argument is a
usage error (exit 2, the product's ``cli.usage``); a child that fails makes the run exit 3.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from fractions import Fraction
from typing import Callable, List, NamedTuple, Optional, Tuple

from proagents_bench.cli import Outcome, Session, contract_error_outcome
from proagents_bench.cli.status import EXIT_INTERNAL_ERROR, EXIT_PASS
from proagents_bench.cli.usage import Parser
from proagents_bench.contract.harnesses import INSPECT_EVAL
from proagents_bench.errors import ContractError
from proagents_bench.service.phases import PhaseError, parse_share

from . import (attack_bench, explain_bench, falsepass, gate_bench, harness_logs, health_bench,
               import_bench, import_formats, plan_check, release_bench, sequential_tables,
               service_bench)

Say = Callable[[str], None]


class Range(NamedTuple):
    """The bounds of an integer option (``high`` None: none above); ``why``, when given, is
    said with a value out of them. An option left unset (None) is not checked."""
    option: str
    low: int
    high: Optional[int] = None
    why: str = ""

    def problem(self, options: argparse.Namespace) -> Optional[str]:
        value = getattr(options, self.option[2:].replace("-", "_"))
        if value is None or (self.low <= value and (self.high is None or value <= self.high)):
            return None
        return "%s must be %s%s, got %d" % (
            self.option, "at least %d" % self.low if self.high is None else "%d..%d" % (
                self.low, self.high), " (%s)" % self.why if self.why else "", value)


def _no_check(options: argparse.Namespace) -> List[str]:
    return []


class Bench(NamedTuple):
    """One kind of benchmark: its name and help, the options it adds to its parser, the
    bounds of its numbers, the further problems its arguments may have (:func:`problems`),
    and the function that runs it (False when a child failed; a :class:`UsageError` for an
    argument it finds wrong only when it reads it)."""
    kind: str
    help: str
    add_options: Callable[[Parser], None]
    run: Callable[[argparse.Namespace, Say], bool]
    ranges: Tuple[Range, ...] = ()
    check: Callable[[argparse.Namespace], List[str]] = _no_check


TRIALS = Range("--trials", 2, 100, "the protocol's trial_count")
REPEAT = Range("--repeat", 1)
SAMPLES = Range("--samples", 100, 100000, "the spec's bootstrap samples")
IMPORT_BENCH_FORMATS = tuple(import_formats.BARE_READ_KIND) + tuple(sorted(harness_logs.WRITERS))


def _package_options(tasks: int, repeat: int, samples: bool = False,
                     seed: str = "generator seed (default 1)") -> Callable[[Parser], None]:
    """The options of a benchmark on a synthetic package, timed in child processes."""

    def add(parser: Parser) -> None:
        parser.add_argument("--tasks", type=int, default=tasks,
                            help="test tasks of the synthetic package (default %d)" % tasks)
        parser.add_argument("--trials", type=int, default=5,
                            help="trials per task and system, 2..100 (default 5)")
        parser.add_argument("--repeat", type=int, default=repeat,
                            help="runs of each child; the median is reported (default %d)"
                                 % repeat)
        parser.add_argument("--python", metavar="EXE", default=sys.executable,
                            help="interpreter for the children (default: this one)")
        if samples:
            parser.add_argument("--samples", type=int, default=10000,
                                help="bootstrap samples, 100..100000 (default 10000)")
            parser.add_argument("--seed", type=int, default=1, help=seed)
    return add


def _kept(parser: Parser, what: str, written: str = "") -> None:
    parser.add_argument("--keep", metavar="DIR", help="write %s to DIR and keep them" % what)
    if written:
        parser.add_argument("--write", metavar="DIR",
                            help="only write %s to DIR, and time nothing" % written)


def _gate_options(parser: Parser) -> None:
    _package_options(10000, 1, samples=True)(parser)
    _kept(parser, "the package and the gate's document",
          "the package (spec.json, cases.json, results.json)")
    parser.add_argument("--reports", action="store_true",
                        help="also time the gate writing all three reports (--html, "
                             "--markdown, --junit-xml) beside the plain gate")


def _health_options(parser: Parser) -> None:
    _package_options(10000, 1)(parser)
    parser.add_argument("--packages", type=int, default=20,
                        help="results packages, one shared baseline (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    _kept(parser, "the benchmark and the documents",
          "the benchmark (spec.json, cases.json, results-NN.json)")


def _release_options(parser: Parser) -> None:
    _package_options(10000, 1, samples=True, seed="the first benchmark's generator seed; "
                                                  "the next ones count up (default 1)")(parser)
    parser.add_argument("--benchmarks", type=int, default=5,
                        help="benchmarks in the release (default 5)")
    _kept(parser, "the packages, the manifest and the documents")


def _service_options(parser: Parser) -> None:
    parser.add_argument("--tasks", type=int, default=None,
                        help="test tasks of a synthetic package (default: the shipped "
                             "example)")
    parser.add_argument("--trials", type=int, default=3,
                        help="trials per task of the synthetic package (default 3)")
    parser.add_argument("--requests", type=int, default=200,
                        help="submissions to send (default 200)")
    parser.add_argument("--concurrency", type=int, default=20,
                        help="concurrent clients (default 20)")
    parser.add_argument("--python", metavar="EXE", default=sys.executable,
                        help="interpreter for the server (default: this one)")


def _share(text: str) -> str:
    """``--private-share``: 0 (no phase) or a phase's private share."""
    if text != "0":
        try:
            parse_share(text)
        except PhaseError as problem:
            raise argparse.ArgumentTypeError(str(problem)) from None
    return text


def _attack_options(parser: Parser) -> None:
    parser.add_argument("--cases", type=int, default=100, help="test cases (default 100)")
    parser.add_argument("--submissions", type=int, default=150,
                        help="random submissions per team before its majority (default 150)")
    parser.add_argument("--repetitions", type=int, default=10,
                        help="teams per level, each with its own random vectors (default 10)")
    parser.add_argument("--private-share", type=_share, default="0.5",
                        help="the phase's private share; 0: no phase (default 0.5)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument("--python", metavar="EXE", default=sys.executable,
                        help="interpreter for the servers (default: this one)")
    parser.add_argument("--strategy", choices=attack_bench.STRATEGIES, default=attack_bench.BOTH,
                        help="the boosting attack, the choice of a submission and its "
                             "complement for the final board, or both (default)")
    parser.add_argument("--pairs", type=int, default=attack_bench.DEFAULT_PAIRS,
                        help="teams of the choice attack per number of final choices "
                             "(default %d)" % attack_bench.DEFAULT_PAIRS)


def _import_options(parser: Parser) -> None:
    parser.add_argument("--tasks", type=int, default=10000,
                        help="samples per epoch, each a test task, at least %d; tasks times "
                             "epochs at most %d (default 10000)" % (
                                 import_bench.MIN_TASKS, import_bench.MAX_TRIALS_PER_SYSTEM))
    parser.add_argument("--epochs", type=int, default=5,
                        help="epochs, 2..100: the trials of each task (default 5)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each child, 1..%d; the median is reported (default 1)"
                             % import_bench.MAX_REPEAT)
    parser.add_argument("--python", metavar="EXE", default=sys.executable,
                        help="interpreter for the children (default: this one)")
    _kept(parser, "the logs, the package and the documents")
    parser.add_argument("--format", choices=IMPORT_BENCH_FORMATS, default=INSPECT_EVAL,
                        help="the logs' format (default %s); harbor-job: a job folder per "
                             "system, --epochs attempts; swebench-summary: --epochs run "
                             "summaries per system" % INSPECT_EVAL)
    parser.add_argument("--template-log", metavar="LOG",
                        help="an Inspect AI .eval log whose samples are the templates "
                             "(default: a synthetic sample of about 4 KB)")


def _counts(text: str) -> List[int]:
    """A comma-separated list of counts, each at least 1."""
    try:
        counts = [int(item) for item in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("not a comma-separated list of counts: %r" % text
                                         ) from None
    if min(counts) < 1:
        raise argparse.ArgumentTypeError("every count is at least 1: %r" % text)
    return counts


def _fraction(low: Fraction, high: Optional[Fraction]) -> Callable[[str], Fraction]:
    """A number above ``low`` (and below ``high``, when given), as an exact fraction."""

    def parse(text: str) -> Fraction:
        try:
            value = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise argparse.ArgumentTypeError("not a number: %r" % text) from None
        if value <= low or (high is not None and value >= high):
            raise argparse.ArgumentTypeError("%r is not %s" % (text, "above %s" % low
                                             if high is None else "between %s and %s" % (
                                                 low, high)))
        return value
    return parse


def _beta(text: str) -> Tuple[Fraction, Fraction]:
    """``ALPHA,BETA``: two positive numbers."""
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError("two positive numbers, ALPHA,BETA: %r" % text)
    alpha, beta = (_fraction(Fraction(0), None)(part) for part in parts)
    return alpha, beta


def _sequential_options(parser: Parser) -> None:
    parser.add_argument("--table", choices=sequential_tables.TABLES,
                        help="print only this table (default: all three)")


def _false_pass_options(parser: Parser) -> None:
    parser.add_argument("--tasks", type=_counts, default=[10, 20, 30, 50, 100, 200],
                        help="comma-separated test task counts of the first table "
                             "(default 10,20,30,50,100,200)")
    parser.add_argument("--families", type=_counts, default=[3, 6, 10, 20, 40],
                        help="comma-separated family counts of the second table "
                             "(default 3,6,10,20,40)")
    parser.add_argument("--family-size", type=int, default=5,
                        help="near-duplicate tasks per family (default 5)")
    parser.add_argument("--confidence", type=_fraction(Fraction(0), Fraction(1)),
                        default=Fraction(95, 100), help="confidence (default 0.95)")
    parser.add_argument("--beta", type=_beta, default=(Fraction(2), Fraction(2)),
                        help="the Beta(alpha, beta) of a task's success probability "
                             "(default 2,2)")
    parser.add_argument("--seeds", type=int, default=0, metavar="N",
                        help="also the strict gate's rates with the gate's own bootstrap of "
                             "--samples resamples, at seeds 0..N-1, for each of --tasks "
                             "(default 0: none)")
    parser.add_argument("--samples", type=int, default=1000, metavar="B",
                        help="the bootstrap's resamples for --seeds (default 1000)")


def _explain_options(parser: Parser) -> None:
    parser.add_argument("--tasks", type=int, default=1000,
                        help="test tasks of the logs, at least 8 (default 1000)")
    parser.add_argument("--epochs", type=int, default=3,
                        help="epochs (the protocol's trial_count), 2..100 (default 3)")
    parser.add_argument("--sample-mb", type=int, default=300,
                        help="megabytes of JSON of each candidate sample explain reads, "
                             "1..500 (default 300: Inspect's viewer drops events past 350 MB)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each child; the median is reported (default 1)")
    parser.add_argument("--python", metavar="EXE", default=sys.executable,
                        help="interpreter for the children (default: this one)")
    _kept(parser, "the logs, the package and the documents")


def _plan_options(parser: Parser) -> None:
    _package_options(1000, 3)(parser)
    parser.add_argument("--simulate", type=int, default=0, metavar="N",
                        help="also simulate N benchmarks of the gate at the synthetic "
                             "package's recommended design and at its own, beside the "
                             "plan's power (default 0: none)")


BENCHES = (
    Bench("gate", "the gate against a bare json.load of the same files", _gate_options,
          gate_bench.gate_benchmark, (Range("--tasks", 1), TRIALS, REPEAT, SAMPLES)),
    Bench("health", "health over many packages against a bare json.load of the same files",
          _health_options, health_bench.health_benchmark,
          (Range("--packages", 1), Range("--tasks", 1), TRIALS, REPEAT)),
    Bench("release", "a release of several synthetic benchmarks against their gates run one "
                     "after another", _release_options,
          release_bench.release_benchmark,
          (Range("--benchmarks", 1), Range("--tasks", 1), TRIALS, REPEAT, SAMPLES)),
    Bench("service", "the private-test service under load: requests per second and latency "
                     "of submissions", _service_options, service_bench.service_benchmark,
          (Range("--tasks", 1), TRIALS, Range("--requests", 1), Range("--concurrency", 1))),
    Bench("attack", "the boosting attack (Blum & Hardt 2015) against the service at every "
                    "feedback level: the inflation of the public and final boards",
          _attack_options, attack_bench.attack_benchmark,
          (Range("--cases", 4), Range("--submissions", 1), Range("--repetitions", 1),
           Range("--pairs", 2), Range("--seed", 0))),
    Bench("import", "the import of two synthetic logs (Inspect AI .eval, promptfoo results, "
                    "JSON lines, Harbor jobs or SWE-bench run summaries: --format) against the "
                    "gate on the package it writes", _import_options, import_bench.import_benchmark,
          (Range("--tasks", import_bench.MIN_TASKS, why=import_bench.MIN_TASKS_WHY),
           TRIALS._replace(option="--epochs"),
           REPEAT._replace(high=import_bench.MAX_REPEAT)), import_bench.argument_problems),
    Bench("explain", "explain on logs whose samples it shows are hundreds of megabytes, "
                     "against the gate on the same package and a bare read of one sample",
          _explain_options, explain_bench.explain_benchmark,
          (Range("--tasks", 8, why="every 50th task from the 8th is explained"),
           TRIALS._replace(option="--epochs"), Range("--sample-mb", 1, 500), REPEAT)),
    Bench("false-pass", "the bootstrap gate's false-pass rate with no true difference, by "
                        "exact enumeration (the docs' Markdown tables)", _false_pass_options,
          falsepass.false_pass_benchmark,
          (Range("--family-size", 1), Range("--seeds", 0), Range("--samples", 1))),
    Bench("sequential", "the sequential design's exact tables: its guarantee, its cost in "
                        "batches, a fixed gate looked at again (the docs' Markdown tables)",
          _sequential_options, sequential_tables.sequential_benchmark),
    Bench("plan", "time the plan command on the example and on a synthetic package, each in "
                  "a fresh child process", _plan_options, plan_check.plan_benchmark,
          (Range("--tasks", 2), TRIALS, REPEAT, Range("--simulate", 0))),
)

BENCH_OF = {bench.kind: bench for bench in BENCHES}


def add_arguments(parser: Parser) -> None:
    parser.description = "Benchmarks of proagents-bench, each process timed whole."
    kinds = parser.add_subparsers(dest="kind", metavar="KIND")
    kinds.required = True
    for bench in BENCHES:
        bench.add_options(kinds.add_parser(bench.kind, help=bench.help))


def _python_problems(options: argparse.Namespace) -> List[str]:
    """The interpreter of a bench's children (or server) must be one that runs."""
    python = getattr(options, "python", None)
    if python is not None and shutil.which(python) is None:
        return ["--python %s is not an interpreter that can be run" % python]
    return []


def _folder_problems(options: argparse.Namespace) -> List[str]:
    """The folders a bench writes to (``--keep``, ``--write``), made here: what cannot be."""
    problems = []
    for option in ("--keep", "--write"):
        folder = getattr(options, option[2:], None)
        if folder is None:
            continue
        if os.path.exists(folder) and not os.path.isdir(folder):
            problems.append("%s %s is a file, not a folder" % (option, folder))
            continue
        try:
            os.makedirs(folder, exist_ok=True)
        except (OSError, ValueError) as problem:
            problems.append("%s %s cannot be made a folder: %s" % (
                option, folder, getattr(problem, "strerror", None) or problem))
    return problems


def problems(options: argparse.Namespace) -> List[str]:
    """Every problem of a bench's parsed arguments, before anything is written: the bounds
    of its numbers, its own check, the interpreter; then the folders it writes to, made here
    when all else holds."""
    bench = BENCH_OF[options.kind]
    found = [problem for problem in (bound.problem(options) for bound in bench.ranges)
             if problem is not None]
    found += bench.check(options) + _python_problems(options)
    return found or _folder_problems(options)


def run(options: argparse.Namespace, session: Session) -> Outcome:
    """Run the bench asked for; its runner's :class:`UsageError` is a usage error too (the
    dispatcher's)."""
    found = problems(options)
    if found:
        return contract_error_outcome([ContractError("cli.usage", "%s (see --help)" % problem)
                                       for problem in found])
    succeeded = BENCH_OF[options.kind].run(options, session.say)
    return Outcome(EXIT_PASS if succeeded else EXIT_INTERNAL_ERROR)
