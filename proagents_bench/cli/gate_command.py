"""The gate: ``run_benchmark.py [--spec F] [--cases F] [--results F] [--candidate ID]
[--ledger F] [--html P] [--markdown P] [--junit-xml P] [--schema KIND]``.

Without arguments it evaluates the shipped example package, where the working folder holds no
benchmark of the user's own (:func:`unnamed_inputs`); ``--schema`` prints a JSON Schema and
reads nothing. stdout carries one ASCII JSON document (the decision, or CONTRACT_ERROR);
stderr carries ``ERROR: FILE:LINE:COLUMN: PATH: MESSAGE`` lines.
"""

from __future__ import annotations

import argparse
import os
import sys
import shutil
from typing import TYPE_CHECKING, Callable, List, Optional, Sequence, Tuple, TypeVar, Union

from .. import pipeline
from ..contract.vocabulary import BLOCK, INCOMPARABLE, PASS, REVIEW, SCHEMA_KINDS
from ..errors import ContractError, ContractErrors
from ..jsonio import load
from ..jsonio.paths import same_file
from ..reports.registry import REPORTS, TextModule, gate_text
from ..text import listed, quote
from ..version import NAME, VERSION
from . import Outcome, Session, command_word, contract_error_outcome
from .fork import forking_fingerprinter
from .progress import EAGER_BYTES, Progress
from .report_files import FORMATS, GITHUB, Targets, add_output_options
from .status import (EXIT_BLOCK, EXIT_DECISION, EXIT_INCOMPARABLE, EXIT_PASS, EXIT_REVIEW)
from .streams import colour_wanted
from .usage import Parser, choice_list

if TYPE_CHECKING:  # for annotations only
    from ..evaluation.decision import Actioned, Decided
    from ..jsonio import BytesLike
    from ..render.evaluation import Locate, Place

# The shipped example package, evaluated when no file is given; shown relative to the
# project (``examples/benchmark_spec.json``) so the document is the same on every machine.
EXAMPLES_FOLDER = "examples"
DEFAULT_FILES = {
    "spec": "benchmark_spec.json",
    "cases": "benchmark_cases.json",
    "results": "benchmark_results_pass.json",
}
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES_PATH = os.path.join(PROJECT_ROOT, EXAMPLES_FOLDER)
# The file of each kind that ``init`` writes, in the directory given. The example stands in
# for an input not given only where the working folder holds none of them (but the example's
# own): see :func:`unnamed_inputs`.
INIT_FILE_NAMES = {"spec": "benchmark_spec.json", "cases": "benchmark_cases.json",
                   "results": "benchmark_results.json"}
# The rule of unnamed_inputs, as --help says it (the gate's and plan's).
DEFAULTS_HELP = ("Without --spec, --cases and --results the shipped example package is "
                 "evaluated; an input not given is the example's file only when every file "
                 "given is one of the example's and the working folder holds none of the "
                 "files init writes (%s): else exit 2 names the command to run." %
                 ", ".join(INIT_FILE_NAMES.values()))
# What a refusal's command names when there is no file to suggest.
PLACEHOLDERS = {"spec": "SPEC.json", "cases": "CASES.json", "results": "RESULTS.json"}

# --fail-on: the decisions that fail the run (exit 1, or their own status with
# --distinct-exit-codes); the others exit 0 like PASS. By default all three: the contract's
# 0/1/2.
FAIL_ON = {"review": REVIEW, "block": BLOCK, "incomparable": INCOMPARABLE}
DISTINCT_EXIT = {REVIEW: EXIT_REVIEW, BLOCK: EXIT_BLOCK, INCOMPARABLE: EXIT_INCOMPARABLE}
# The terminal's width for the text mode when it cannot be told, and the widths it keeps to.
TEXT_WIDTH = (100, 60, 160)


def _fail_on(text: str) -> List[str]:
    return [FAIL_ON[word] for word in choice_list(text, list(FAIL_ON), "none")]


def add_arguments(parser: Parser) -> None:
    parser.description = ("Release gate for AI agents: validate the spec, cases and results "
                          "files, grade every trial, compare baseline and candidate, and "
                          "decide PASS, REVIEW, BLOCK or INCOMPARABLE.")
    parser.epilog = ("Exit status: 0 PASS; 1 REVIEW, BLOCK or INCOMPARABLE; 2 contract or "
                     "command-line error; 3 internal error (a bug); 4 the document could not "
                     "be written whole; 10, 11, 12 REVIEW, BLOCK, INCOMPARABLE with "
                     "--distinct-exit-codes. %s" % DEFAULTS_HELP)
    parser.add_argument("--spec", metavar="FILE",
                        help="benchmark spec (default: the example's, as said below; - reads "
                             "standard input)")
    parser.add_argument("--cases", metavar="FILE",
                        help="benchmark cases (default: the example's, as said below; - "
                             "reads standard input)")
    parser.add_argument("--results", metavar="FILE",
                        help="results package (default: the example's PASS results, as said "
                             "below; - reads standard input)")
    parser.add_argument("--candidate", metavar="ID",
                        help="the candidate's system_id; optional, checked when given")
    parser.add_argument("--ledger", metavar="FILE",
                        help="the ledger of looks, written by the gate: read before the "
                             "decision (a file not there yet starts one) and replaced, with "
                             "the reports, by the ledger with this look added; a sequential "
                             "design's looks are held to it, and a fixed design's candidate "
                             "judged again is said (docs/contract.md: Looks and the ledger)")
    add_output_options(parser, REPORTS, "the decision document", _gate_inputs,
                       FORMATS + (GITHUB,))
    add_decision_options(parser, "decisions")
    parser.add_argument("--schema", choices=SCHEMA_KINDS,
                        help="print the JSON Schema of a file kind, or of the output "
                             "document, and exit; reads no input")
    parser.add_argument("-V", "--version", action="version",
                        version="%s %s" % (NAME, VERSION))


def add_decision_options(parser: Parser, decisions: str) -> None:
    """The options of a command that decides (the gate, the release): ``--summary``, and which
    of its ``decisions`` fail the run (``--fail-on``, ``--distinct-exit-codes``)."""
    parser.add_argument("--summary", action="store_true",
                        help="also write a short human summary to stderr (the default when "
                             "stderr is a terminal and stdout is not)")
    parser.add_argument("--fail-on", metavar="DECISIONS", type=_fail_on,
                        default=[REVIEW, BLOCK, INCOMPARABLE],
                        help="the %s that fail the run, comma-separated: review, "
                             "block, incomparable (default: all three), or none; the others "
                             "exit 0 with a note on stderr" % decisions)
    parser.add_argument("--distinct-exit-codes", action="store_true",
                        help="a failing REVIEW exits 10, BLOCK 11, INCOMPARABLE 12, instead "
                             "of 1")


STDIN_PATH = "-"
STDIN_SHOWN = "<stdin>"


def read_standard_input() -> bytes:
    """Standard input's bytes, read up to just past the loader's size limit."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        return b""
    chunks, size = [], 0
    while size <= load.MAX_FILE_BYTES:
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def default_inputs(spec: Optional[str] = None, cases: Optional[str] = None,
                   results: Optional[str] = None,
                   stdin: Callable[[], bytes] = read_standard_input) -> List[pipeline.InputFile]:
    """The three inputs; a file not given is the shipped example's (where it may stand in,
    :func:`unnamed_inputs`); ``-`` is standard input (read by ``stdin()``)."""
    chosen = []
    for kind, given in (("spec", spec), ("cases", cases), ("results", results)):
        if given == STDIN_PATH:
            chosen.append(pipeline.InputFile(kind, None, STDIN_SHOWN, data=stdin()))
        elif given is not None:
            chosen.append(pipeline.InputFile(kind, given))
        else:
            name = DEFAULT_FILES[kind]
            chosen.append(pipeline.InputFile(kind, os.path.join(PROJECT_ROOT, EXAMPLES_FOLDER,
                                                                name),
                                             EXAMPLES_FOLDER + "/" + name))
    return chosen


def run(options: argparse.Namespace, session: Session) -> Outcome:
    """Run the gate. A run that ends without a decision (a contract or command-line error, an
    internal error, an interruption) replaces every report named on the command line by a
    report of that outcome, and the ``--output`` file by its CONTRACT_ERROR document (or
    removes it: exit 3, 130 and 143 have no document), so that no path is left holding an
    earlier run's decision (the dispatcher runs it guarded: :mod:`.report_files`)."""
    targets = session.targets
    problems = targets.aim(options)
    empty = [ContractError("cli.usage", "--%s was given an empty path: name a file" % option)
             for option in ("spec", "cases", "results", "output")
             if getattr(options, option) == ""]
    if [getattr(options, kind) for kind in ("spec", "cases", "results")].count(STDIN_PATH) > 1:
        empty.append(ContractError("cli.usage", "only one input can be standard input (-)"))
    if options.ledger is not None and options.ledger.strip() in ("", STDIN_PATH):
        empty.append(ContractError("cli.usage", "--ledger names a file the gate reads and "
                                   "writes: not an empty path, nor - (standard input)"))
    if empty:
        return contract_error_outcome(empty)
    if options.schema is not None:
        # Imported here: the schemas are built from every contract shape, the release's
        # and the import mapping's too, which a gate run never needs.
        from ..contract import publish
        return Outcome(EXIT_PASS, publish.schema_bytes(options.schema))
    inputs = default_inputs(options.spec, options.cases, options.results)
    missing = unnamed_inputs(options, session.command, session.arguments) or missing_examples(
        inputs, options)
    if missing:
        return contract_error_outcome(missing)
    problems += _ledger_problems(options.ledger, inputs)
    if problems:
        return contract_error_outcome(problems)
    size = sum(item.size() or 0 for item in inputs)
    progress = Progress(session.messages.say, size >= EAGER_BYTES,
                        status=session.messages.status) \
        if session.messages.isatty() else None
    try:
        if options.ledger is None:
            evaluation = pipeline.evaluate(inputs, options.candidate, progress,
                                           forking_fingerprinter(size))
        else:
            # Imported here: only a run with a ledger reads and writes one.
            from .. import ledgered
            evaluation = ledgered.evaluate(inputs, pipeline.InputFile("ledger", options.ledger),
                                           options.candidate, progress,
                                           forking_fingerprinter(size))
    except ContractErrors as failure:
        return contract_error_outcome(failure.errors, failure.omitted)
    also = [] if evaluation.ledger is None else [(options.ledger, evaluation.ledger, "ledger")]
    evaluation.locate = _located(inputs)
    return deliver(evaluation, gate_text, options, session, targets, progress, evaluation,
                   also, lambda: _annotations(evaluation))


def _ledger_problems(ledger: Optional[str],
                     inputs: Sequence[pipeline.InputFile]) -> List[ContractError]:
    """The ledger is a file of its own: never one of the three inputs."""
    if ledger is None:
        return []
    return [ContractError("cli.report_path", "--ledger names the %s input file %s: the "
                          "ledger is a file of its own, which the gate rewrites" % (
                              item.kind, quote(item.shown)), (), ledger)
            for item in inputs if item.path is not None and same_file(ledger, item.path)]


# What deliver() delivers: a decision made (the gate's Evaluation, a Release).
DecidedT = TypeVar("DecidedT", bound="Decided[Actioned]")


def deliver(decided: DecidedT, text: Callable[[], TextModule[DecidedT]],
            options: argparse.Namespace, session: Session, targets: Targets[DecidedT],
            progress: Optional[Progress], kept: object,
            also: Sequence[Tuple[str, bytes, str]] = (),
            annotations: Optional[Callable[[], bytes]] = None) -> Outcome:
    """The outcome of a decision (the gate's Evaluation, or a release): its exit status by
    ``--fail-on`` and ``--distinct-exit-codes``, its reports, ``--output`` and the files
    ``also`` (path, bytes, name: the ledger) written all or none, its summary on stderr and,
    on stdout, its document, the text mode of ``text()`` (the renderer's module, imported
    only when a person is to read the run) or ``annotations()`` (``--format github``).
    ``kept`` is what the process keeps until it ends."""
    status, lines = decision_status(decided.action, options.fail_on,
                                    options.distinct_exit_codes)
    output = targets.output
    chunks: Sequence[BytesLike] = []
    if output or not (targets.text or targets.annotations):
        if progress is not None:
            progress("rendering the decision document")
        chunks = decided.chunks()
        if progress is not None:
            progress("writing the decision document", sum(map(len, chunks)), "bytes")
    if progress is not None and targets.reports:
        progress("writing the reports", len(targets.reports), "files")
    decided.seconds = session.elapsed()  # the run's own time, for the reports that carry it
    # A decision's reports all or none, each replaced atomically (see report_files).
    problems = targets.write(decided, b"".join(chunks) if output else None, also)
    if problems:
        return contract_error_outcome(problems)
    if options.summary or (session.messages.isatty() and not targets.text):
        lines = text().summary_lines(decided) + lines
    stdout: Union[bytes, Sequence[BytesLike]]
    if targets.annotations and annotations is not None:
        stdout = annotations()
    elif targets.text:
        stdout = text().render(decided, text_width(), colour_wanted(
            session.stdout.isatty()), targets.hints())
    else:
        stdout = b"" if output else chunks
    return Outcome(status, stdout, lines, kept=kept,
                   after=None if progress is None else lambda: progress.done(
                       "done: %s, exit %d" % (decided.action, status)))


def decision_status(action: str, fail_on: List[str], distinct: bool) -> Tuple[int, List[str]]:
    """(exit status, stderr lines) of a decision: 0 for PASS and for a decision ``fail_on``
    does not name (one line says so), else 1 (or the decision's own status when
    ``distinct``)."""
    if action == PASS:
        return EXIT_PASS, []
    if action not in fail_on:
        return EXIT_PASS, ["proagents-bench: %s does not fail this run (--fail-on %s): exit %d"
                           % (action, ",".join(word for word, decision in FAIL_ON.items()
                                               if decision in fail_on) or "none", EXIT_PASS)]
    return (DISTINCT_EXIT[action] if distinct else EXIT_DECISION), []


def _annotations(evaluation: pipeline.Evaluation) -> bytes:
    from ..reports import github  # only for --format github
    return github.render(evaluation)


def _located(inputs: Sequence[pipeline.InputFile]) -> Locate:
    """Where each reason points in ``inputs`` (cli/annotations.py), imported and made on
    first use: only --format github and the GitLab report ask, and a plain run never."""
    made: List[Locate] = []

    def locate(what: str, key: str) -> Optional[Place]:
        if not made:
            from .annotations import locator
            made.append(locator(inputs))
        return made[0](what, key)

    return locate


def text_width() -> int:
    """The terminal's width for the text mode, within TEXT_WIDTH's bounds."""
    default, narrowest, widest = TEXT_WIDTH
    columns = shutil.get_terminal_size((default, 24)).columns
    return min(max(columns, narrowest), widest)


def _gate_inputs(options: argparse.Namespace) -> List[pipeline.InputFile]:
    """The gate's input files (for the report paths' checks): standard input is no path; the
    ledger, which no report may overwrite either."""
    ledger = getattr(options, "ledger", None)
    return default_inputs(options.spec, options.cases, options.results, stdin=lambda: b"") + (
        [pipeline.InputFile("ledger", ledger)] if ledger else [])


def missing_examples(inputs: Sequence[pipeline.InputFile],
                     options: argparse.Namespace) -> List[ContractError]:
    """An installed package has no examples/ (only a checkout has): say so, not just "no such
    file", for every input left to its default whose example is missing."""
    errors = []
    for item in inputs:
        if getattr(options, item.kind) is None and not os.path.exists(item.path or ""):
            errors.append(ContractError(
                "cli.no_example", "no %s file given, and the shipped example %s is not here "
                "(an installed proagents-bench has no examples; a checkout has them): pass "
                "--%s FILE" % (item.kind, quote(item.shown), item.kind), (), item.shown))
    return errors


def example_file(path: str) -> bool:
    """Whether ``path`` is a file of the shipped examples folder (as :func:`same_file` tells:
    by its path, or by a link of the same name)."""
    return same_file(path, os.path.join(EXAMPLES_PATH, os.path.basename(path)))


def unnamed_inputs(options: argparse.Namespace, command: str,
                   arguments: Sequence[str]) -> List[ContractError]:
    """The refusal (``cli.missing_input``, exit 2) of a command line that leaves an input to
    the shipped example where the example must not stand in for it.

    The example completes the inputs not given only when every file given is one of its own
    (the README's scenarios, from the project folder or from ``examples/``) and the working
    folder holds none of the files ``init`` writes (but the example's own, in ``examples/``).
    Otherwise the run would decide on the example in place of a benchmark of the user's own
    (a CI step that lost its options passing for ever), or judge the user's files against
    the example's. The error names the inputs not given and the whole command to run,
    ``command`` (the program as the user pastes it) and their ``arguments`` with the missing
    options added, naming the files ``init`` wrote where they are (beside a file given, else
    in the working folder)."""
    given = [(kind, getattr(options, kind)) for kind in pipeline.KINDS]
    missing = [kind for kind, path in given if path is None]
    foreign = [(kind, path) for kind, path in given
               if path is not None and (path == STDIN_PATH or not example_file(path))]
    own = [name for name in INIT_FILE_NAMES.values()
           if os.path.isfile(name) and not example_file(name)]
    if not missing or not (foreign or own):
        return []
    folders: List[str] = []  # where init's files are looked for: beside a file given, here
    for folder in [os.path.dirname(path) for _kind, path in foreign if path != STDIN_PATH]:
        folders += [] if folder in folders else [folder]
    folders += [] if "" in folders else [""]
    added, unknown = [], []
    for kind in missing:
        found = [os.path.join(folder, INIT_FILE_NAMES[kind]) for folder in folders]
        found = [path for path in found if os.path.isfile(path) and not example_file(path)]
        added += ["--" + kind, found[0] if found else PLACEHOLDERS[kind]]
        unknown += [] if found else [kind]
    reasons = ["--%s %s" % (kind, "reads standard input" if path == STDIN_PATH else
                            "names %s, not a file of the example" % quote(path))
               for kind, path in foreign]
    reasons += ["the working folder holds %s (init's files)" % listed(own)] if own else []
    return [ContractError("cli.missing_input", (
        "%s, and %s; the shipped example stands in for an input not given only "
        "when each file given is its own and the working folder holds none of init's files, "
        "so that a command that lost its options never decides on the example instead of "
        "your benchmark, nor mixes the two. Name every input: %s%s" % (
            "no input file given" if len(missing) == len(given) else "%s not given" % (
                listed(["--" + kind for kind in missing])), "; and ".join(reasons),
            " ".join([command] + [command_word(word) for word in list(arguments) + added]),
            " (%s: your %s file%s)" % (
                listed([PLACEHOLDERS[kind] for kind in unknown]), listed(unknown),
                "s" if len(unknown) > 1 else "") if unknown else "")))]

