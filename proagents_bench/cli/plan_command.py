"""``run_benchmark.py plan [--spec F] [--cases F] [--results F] [--effect D] [--power P]
[--confidence C] [--gate G] [--lower-bound RULE] [--budget B] [--max-tasks N] [--max-trials K]
[--cost-per-task C] [--like candidate|baseline] [--sequential [--unit U] [--looks N]
[--growth G] [--write-spec F]] [--summary]``: how many tasks and trials buy the power to
detect an effect on the trial-level success rate (see :mod:`proagents_bench.planning`). Under
a sequential design, the one ``--sequential`` proposes (written into a spec v5 with
``--write-spec``) or else a spec v5's own, the design decides: no fixed plan of the
trial-level gate is made (the design replaces that gate or leaves it as a further condition),
and the plan is what the design costs beside the fixed design of its hypotheses and power
(:mod:`proagents_bench.planning.sequential`).

stdout carries one ASCII JSON document (``"action": "PLAN"``, keys sorted); stderr a short
table for people when asked (``--summary``) or when it is a terminal, as the gate's summary.
A package or setting the plan cannot use is a CONTRACT_ERROR document (exit 2).
"""

from __future__ import annotations

from argparse import ArgumentTypeError, Namespace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import List, Optional, Tuple

from .. import pipeline
from ..contract.sequential import MAX_LOOKS, SequentialDesign, design_of
from ..contract.sequential_proposal import SequentialPlanError, with_design
from ..contract.vocabulary import SEQUENTIAL_UNITS, TASK_UNIT, TEST_SPLIT
from ..jsonio.atomic import AtomicWriteError, write_files_atomically
from ..jsonio.paths import same_file
from ..planning import planner
from ..planning.measured import Measured, PlanError, measure
from ..planning.sequential import (costs, measured_discordance, of_spec, other_gate_note,
                                   proposal_document, proposal_notes, summary_lines)
from ..stats.sequential_plan import DEFAULT_LOOKS, GROWTHS
from ..errors import ContractError, ContractErrors
from ..jsonio import JSONObject
from ..jsonio.dump import document_bytes
from ..text import show_number
from ..version import harness
from . import Outcome, Session, contract_error_outcome
from .gate_command import DEFAULTS_HELP, default_inputs, missing_examples, unnamed_inputs
from .report_files import add_format_option, for_people, text_wanted
from .status import EXIT_PASS
from .usage import Parser


# A command-line number: at most this many characters, and a decimal exponent within this
# (1e-1000 .. 1e1000 in size), so that reading it never builds a number of millions of
# digits.
MAX_NUMBER_CHARACTERS = 100
MAX_EXPONENT = 1000


def fraction_option(text: str) -> Fraction:
    """A decimal (``0.1``, ``1e-3``) or a fraction (``1/3``), exactly; anything else, or a
    number too long or too large or small to read, is a usage error that says so."""
    if len(text) > MAX_NUMBER_CHARACTERS:
        raise ArgumentTypeError("a number of at most %d characters, not %d" % (
            MAX_NUMBER_CHARACTERS, len(text)))
    try:
        written = None if "/" in text else Decimal(text.strip())
        if (written is not None and written.is_finite() and written
                and not -MAX_EXPONENT <= written.adjusted() <= MAX_EXPONENT):
            raise ArgumentTypeError("%r: a number from 1e-%d to 1e%d in size, or 0" % (
                text, MAX_EXPONENT, MAX_EXPONENT))
        return Fraction(text)
    except (ValueError, ZeroDivisionError, InvalidOperation):
        raise ArgumentTypeError("not a number: %r" % text)


def add_arguments(parser: Parser) -> None:
    parser.description = ("How many tasks and trials to run: the power to detect an effect on "
                          "the trial-level success rate (candidate minus baseline), from a "
                          "package's measured variances and costs, by Miller's K-samples "
                          "formula and by the gate's own rule.")
    parser.epilog = "Exit status: 0 a plan; 2 a contract or command-line error. " + DEFAULTS_HELP
    parser.add_argument("--spec", metavar="FILE",
                        help="benchmark spec (default: the example's, as said below)")
    parser.add_argument("--cases", metavar="FILE",
                        help="benchmark cases (default: the example's, as said below)")
    parser.add_argument("--results", metavar="FILE",
                        help="results package, or the import command's output (default: the "
                             "example's PASS results, as said below)")
    parser.add_argument("--effect", type=fraction_option, default=Fraction(1, 10),
                        help="the difference in success rate to detect (default 0.1)")
    parser.add_argument("--power", type=fraction_option, default=Fraction(4, 5),
                        help="the power wanted (default 0.8)")
    parser.add_argument("--confidence", type=fraction_option,
                        help="the gate's confidence, alpha = 1 - it (default: the spec's)")
    parser.add_argument("--gate", type=fraction_option,
                        help="the trial-level gate (default: the spec's min_trial_delta_ci_low, "
                             "else 0)")
    parser.add_argument("--lower-bound", choices=("inclusive", "strict"),
                        help="the gate's lower-bound rule (default: the spec's, else "
                             "inclusive)")
    parser.add_argument("--budget", type=fraction_option,
                        help="the most a run may cost, in cost units (default: no limit)")
    parser.add_argument("--max-tasks", type=int,
                        help="the test tasks available (default: the package's)")
    parser.add_argument("--max-trials", type=int, default=planner.MAX_TRIALS,
                        help="the most trials per task (default %d)" % planner.MAX_TRIALS)
    parser.add_argument("--cost-per-task", type=fraction_option, default=Fraction(0),
                        help="a fixed cost per task besides its trials (default 0)")
    parser.add_argument("--like", choices=("candidate", "baseline"), default="candidate",
                        help="the planned candidate differs from the baseline task by task as "
                             "the package's candidate does, or as the baseline from itself "
                             "(default candidate)")
    parser.add_argument("--sequential", action="store_true",
                        help="also propose a sequential design for the spec, the discordance "
                             "measured in the package, and say what it costs at no effect "
                             "and at the effect beside the fixed design (docs/statistics.md)")
    add_design_options(parser, "; --effect is then on that unit's pass rate", "")
    parser.add_argument("--write-spec", metavar="PATH",
                        help="with --sequential: write the spec v5 with the design to PATH "
                             "(atomically), frozen on the cases given")
    parser.add_argument("--summary", action="store_true",
                        help="also write a short table to stderr (the default when stderr "
                             "is a terminal and stdout is not)")
    add_format_option(parser, "the PLAN document")


def run(options: Namespace, session: Session) -> Outcome:
    text = text_wanted(options, session)
    return for_people(_planned(options, session, text), text)


def _planned(options: Namespace, session: Session, text: bool) -> Outcome:
    inputs = default_inputs(options.spec, options.cases, options.results,
                            stdin=lambda: b"")
    missing = unnamed_inputs(options, session.command + " plan", session.arguments) or \
        missing_examples(inputs, options)
    if missing:
        return contract_error_outcome(missing)
    problems = _sequential_usage(options, inputs)
    if problems:
        return contract_error_outcome(problems)
    try:
        checked = pipeline.check(inputs)
        evaluation = checked.decide()
    except ContractErrors as failure:
        return contract_error_outcome(failure.errors, failure.omitted)
    try:
        measured = measure(evaluation)
        own = design_of(evaluation.spec)
        written = None
        if options.sequential or own is not None:
            answer, written = _design_plan(options, evaluation, checked.cases, measured, own)
        else:
            settings = planner.settings_from_spec(
                evaluation.spec, measured, options.effect, options.power, options.confidence,
                options.gate, options.lower_bound, options.max_tasks, options.max_trials,
                options.budget, options.cost_per_task, options.like)
            answer = planner.plan(measured, settings, evaluation.spec)
    except (PlanError, SequentialPlanError) as problem:
        return contract_error_outcome([ContractError("cli.plan", str(problem))])
    if written is not None:
        try:
            write_files_atomically([(options.write_spec, document_bytes(written))],
                                   session.guard.deferred)
        except AtomicWriteError as problem:
            return contract_error_outcome([ContractError(
                "cli.report_unwritable", "cannot write the spec: %s" % problem.reason, (),
                options.write_spec)])
        answer["sequential"]["written_spec"] = options.write_spec
    document = evaluation.lazy_document
    answer.update({
        "benchmark_id": document["benchmark_id"],
        "benchmark_version": document["benchmark_version"],
        "evidence_fingerprint": document["evidence_fingerprint"],
        "harness": harness(),
    })
    lines = []
    if text or options.summary or session.messages.isatty():
        lines = design_summary(answer) if "sequential" in answer else summary(answer)
    return Outcome(EXIT_PASS, document_bytes(answer), lines)


def add_design_options(parser: Parser, unit_note: str, growth_note: str) -> None:
    """The options ``plan --sequential`` and ``init --sequential`` share: what the design
    counts, how many looks, and what each adds (each help ending with its note)."""
    parser.add_argument("--unit", choices=SEQUENTIAL_UNITS,
                        help="with --sequential: what the design counts, tasks or trial pairs "
                             "(default task)" + unit_note)
    parser.add_argument("--looks", type=int,
                        help="with --sequential: how many looks (default %d)" % DEFAULT_LOOKS)
    parser.add_argument("--growth", choices=GROWTHS,
                        help="with --sequential: what each look adds: tasks, trials, or "
                             "both" + growth_note)


def looks_problems(options: Namespace) -> List[ContractError]:
    """``--looks`` outside the looks a design may have."""
    if options.looks is not None and not 1 <= options.looks <= MAX_LOOKS:
        return [ContractError("cli.usage", "--looks is 1..%d" % MAX_LOOKS)]
    return []


def _sequential_usage(options: Namespace,
                      inputs: List[pipeline.InputFile]) -> List[ContractError]:
    """The options of a design given without --sequential, and a spec to write over an
    input."""
    errors = [ContractError("cli.usage", "--%s needs --sequential: it says what the design "
                            "is" % name.replace("_", "-"))
              for name in ("unit", "looks", "growth", "write_spec")
              if getattr(options, name) is not None and not options.sequential]
    errors += looks_problems(options)
    if options.write_spec is not None:
        if not options.write_spec.strip():
            errors.append(ContractError("cli.usage", "--write-spec was given an empty path"))
        errors += [ContractError("cli.report_path", "--write-spec would overwrite the %s "
                                 "input file %s" % (item.kind, item.shown), (),
                                 options.write_spec)
                   for item in inputs if item.path and same_file(options.write_spec,
                                                                 item.path)]
    return errors


def _design_plan(options: Namespace, evaluation: pipeline.Evaluation, cases: JSONObject,
                 measured: Measured, own: Optional[SequentialDesign]
                 ) -> Tuple[JSONObject, Optional[JSONObject]]:
    """The plan under a sequential design (the one ``--sequential`` proposes, else the
    spec's own): the design decides, so no fixed plan of the trial-level gate is made; the
    design's costs beside the fixed design of its hypotheses and power. And the spec v5 to
    write (``--write-spec``)."""
    # The fixed plan's limits and costs hold here too (--effect and --power are the design's).
    planner.check_limits(None, options.confidence, options.gate, options.max_tasks,
                         options.max_trials, options.budget, options.cost_per_task)
    per_trial, counted = planner.cost_per_trial(measured)
    found, written = _sequential(options, evaluation, cases, per_trial, own)
    answer: JSONObject = {
        "action": "PLAN",
        "metric": "sequential_design",
        "settings": {"budget": None if options.budget is None else float(options.budget),
                     "cost_per_task": float(options.cost_per_task)},
        "measured": planner.measured_document(measured, counted),
        "sequential": found,
        "notes": [],
    }
    return answer, written


def _sequential(options: Namespace, evaluation: pipeline.Evaluation, cases: JSONObject,
                per_trial: Fraction, own: Optional[SequentialDesign] = None
                ) -> Tuple[JSONObject, Optional[JSONObject]]:
    """The plan's ``sequential`` object (``proposed``: made by ``--sequential``; else the
    spec's own design ``own``), and the spec v5 to write (``--write-spec``)."""
    unit = (options.unit or TASK_UNIT) if options.sequential or own is None else own.unit
    discordant, units = measured_discordance(evaluation, unit)
    if not discordant:
        raise SequentialPlanError("the package shows no %s where the systems differ: there "
                                  "is no discordance to plan a design on" % unit)
    rate = Fraction(discordant, units)
    if options.sequential or own is None:
        test_ids = [case["id"] for case in cases["cases"] if case["split"] == TEST_SPLIT]
        spec, proposal = with_design(evaluation.spec, test_ids, unit, options.effect, rate,
                                     options.power, options.looks or DEFAULT_LOOKS,
                                     options.growth, options.max_tasks, options.max_trials)
        looks, power = options.looks or DEFAULT_LOOKS, options.power
    else:
        spec, proposal = evaluation.spec, of_spec(own, rate)
        looks, power = len(own.looks), 1 - own.statistics.beta
    found = costs(proposal)
    notes = proposal_notes(proposal, found, looks, power)
    if not options.sequential:
        notes.append("the spec's design is costed as written: --effect, --power and the "
                     "fixed plan's options change nothing (plan --sequential proposes another)")
    other = other_gate_note(spec, unit)
    document = proposal_document(proposal, found, per_trial, options.cost_per_task,
                                 notes + ([other] if other else []))
    document["proposed"] = bool(options.sequential or own is None)
    document["replaces"] = next(iter(SequentialDesign(spec).replaced_gates()), None)
    document["measured_discordance"] = {"discordant": discordant, "units": units}
    if options.budget is not None and Fraction(str(document["worst"]["cost"])) > \
            options.budget:
        document["notes"].append("the worst case costs %s, above the budget %s: plan for a "
                                 "larger effect, a lower power or fewer looks" % (
                                     show_number(document["worst"]["cost"]),
                                     show_number(options.budget)))
    return document, spec if options.write_spec is not None else None


def _design(label: str, design: Optional[JSONObject]) -> str:
    if design is None:
        return "%-12s none within the limits" % label
    return ("%-12s %5d tasks x %3d trials  cost %-10s power %-8s (Miller %s)%s" % (
        label, design["tasks"], design["trials"], show_number(design["cost"]),
        show_number(design["power"]), show_number(design["miller_power"]),
        "" if design.get("within_budget", True) else "  over the budget"))


def _cost(value: Optional[float]) -> str:
    return "unmeasured" if value is None else show_number(value)


def _measured_line(measured: JSONObject) -> str:
    rates, within = measured["success_rate"], measured["within_task_variance"]
    costs = measured["cost_per_trial"]
    return ("measured: %d tasks x %d trials; success %s (baseline) and %s (candidate); "
            "within-task variance %s and %s; between-task variance of the difference %s; cost "
            "per trial %s and %s%s" % (
                measured["tasks"], measured["trials"], show_number(rates["baseline"]),
                show_number(rates["candidate"]), show_number(within["baseline"]),
                show_number(within["candidate"]),
                show_number(measured["between_task_variance"]["difference"]),
                _cost(costs["baseline"]), _cost(costs["candidate"]),
                " (no cost known: cost counts trials)" if measured["cost_counted_in_trials"]
                else ""))


def design_summary(answer: JSONObject) -> List[str]:
    """A few lines for a person when a sequential design decides: which design, what was
    measured, then the design's costs beside the fixed design of its hypotheses."""
    found = answer["sequential"]
    unit = found["design"]["unit"]
    return [
        "plan: %s decides, at the %s level%s: the fixed plan of the trial-level gate is not "
        "made; the design's costs follow, beside the fixed design of its hypotheses and "
        "power" % (
            "the sequential design proposed (--sequential)" if found["proposed"]
            else "the spec's sequential design", unit,
            " (its boundary in place of %s)" % found["replaces"] if found["replaces"]
            else ""),
        _measured_line(answer["measured"])] + summary_lines(found, unit)


def summary(answer: JSONObject) -> List[str]:
    """A few lines for a person: the settings, what was measured, now and recommended."""
    settings, measured, now = answer["settings"], answer["measured"], answer["now"]
    smallest = now["smallest_detectable_effect"]
    lines = [
        "plan: detect %s on the trial-level success rate with power %s; gate %s (%s%s), "
        "confidence %s" % (
            show_number(settings["effect"]), show_number(settings["power"]),
            show_number(settings["gate"]), settings["lower_bound"],
            ", small-sample rules" if settings["small_sample_rules"] else "",
            show_number(settings["confidence"])),
        _measured_line(measured),
        _design("now:", dict(now, within_budget=True)),
        "%-12s smallest effect detected %s (Miller %s); false passes %s" % (
            "", "none up to 1" if smallest is None else show_number(smallest),
            show_number(now["miller_minimum_detectable_effect"]),
            "none possible" if now["false_pass_rate"] is None
            else show_number(now["false_pass_rate"])),
        _design("recommended:", answer["recommended"]),
    ]
    if answer["recommended"] is None:
        lines.append(_design("best:", answer["best_within_limits"]))
        more = answer["with_more_tasks"]
        if more is None:
            lines.append("%-12s none up to %s tasks, or the budget binds" % (
                "more tasks:", show_number(planner.MAX_PLANNED_TASKS)))
        else:
            lines.append("%s  (%d more tasks than the %d available)" % (
                _design("more tasks:", more), more["tasks_beyond_limit"],
                answer["settings"]["max_tasks"]))
    return lines + ["note: %s" % note for note in answer["notes"]]
