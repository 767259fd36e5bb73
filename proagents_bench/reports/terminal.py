"""The gate's words for a person at a terminal: the text mode (``--format text``, the default
when stdout is a terminal) and the short summary on stderr (``--summary``).

The text mode is a few dozen lines however large the package: the metric table (baseline
beside candidate, the candidate's gate and whether it held), the paired difference and its
interval, the tasks the candidate fails (the first :data:`MAX_FAILING_TASKS`), the
informational notes, where the rest is, and last, where a terminal keeps them in view, the
decision and its reasons grouped by gate (``81 critical tasks failed: t0, t1, t2 ... (78
more)``). Everything is
ASCII (other characters are escaped as ``\\xe9``, so no console's encoding matters) and every
text from the inputs is cleaned of control characters, so no input can move the cursor or
recolour the screen; colour (ANSI SGR codes) is added only when the command line says the
stream is a terminal that takes it.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from ..contract.gates import Gate
from ..contract.vocabulary import BLOCK, BLOCKING, INCOMPARABLE, PASS, REVIEW, REVIEWING
from .sequential_view import sequential_view
from .view import (REPLACED, action_words, gate_states, gate_text, hardness, interval_rows,
                   metric_rows, metric_value, notes, problems_first, reason_groups, task_rows)
from .words import clean, counted, show, show_gate

if TYPE_CHECKING:  # for annotations only
    from ..evaluation.decision import Decision
    from ..jsonio import JSONObject
    from ..pipeline import Evaluation
    from ..render.nodecision import NoDecision

MAX_FAILING_TASKS = 10
MAX_GROUPS = 12
ELLIPSIS = "..."

# SGR codes: bold, and the colours of the decisions and of a held or failed gate.
BOLD = "1"
GREEN, YELLOW, RED, MAGENTA, DIM = "32", "33", "31", "35", "2"
ACTION_COLOURS = {PASS: GREEN, REVIEW: YELLOW, BLOCK: RED, INCOMPARABLE: MAGENTA}
# A reason group's tag by its severity (a reason that is no failed gate has none).
SEVERITY_WORDS: Dict[Optional[str], Tuple[str, str]] = {BLOCKING: ("BLOCK", RED),
                                                        REVIEWING: ("REVIEW", YELLOW)}
TAG_WIDTH = 8  # "REVIEW" and two spaces


class Painter:
    """Colours text when ``colour`` is on; otherwise returns it as it is."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, *codes: str) -> str:
        if not self.colour or not codes:
            return text
        return "\x1b[%sm%s\x1b[0m" % (";".join(codes), text)


def _plain(value: object, limit: int = 300) -> str:
    """A text from the inputs, safe for a terminal: control characters removed, cut to
    ``limit`` characters (the ASCII escaping happens when the whole text is encoded)."""
    text = clean(value).replace("\u2014", "-").replace("\u2026", ELLIPSIS)
    return text if len(text) <= limit else text[:limit - len(ELLIPSIS)] + ELLIPSIS


def _wrap(text: str, width: int, indent: int) -> List[str]:
    """``text`` wrapped to ``width`` columns, the lines after the first indented by
    ``indent`` (never split inside a word: ids stay whole)."""
    return textwrap.wrap(text, max(width - indent, 20), break_long_words=False,
                         break_on_hyphens=False) or [""]


def render(evaluation: "Evaluation", width: int = 100, colour: bool = False,
           hints: Sequence[str] = ()) -> bytes:
    """The text mode's bytes (ASCII) for an :class:`~proagents_bench.pipeline.Evaluation`;
    ``width`` is the terminal's, ``hints`` are lines saying where the JSON document went and
    which options give more. The decision and its grouped reasons come last, as pytest puts
    its summary: a terminal shows the end of what was written, so they are on the screen
    however long the rest is."""
    paint = Painter(colour)
    document = evaluation.lazy_document
    action = document["action"]
    lines: List[str] = []
    if document["comparable"]:
        lines += _metrics(document, evaluation.gates, evaluation.gate_rows, paint) + [""]
        lines += _failing(document, width, paint) + [""]
    view = sequential_view(evaluation)
    if view is not None:
        for line in view.lines():
            indent = len(line) - len(line.lstrip())
            wrapped = _wrap(_plain(line.strip(), 2000), width, indent + 2)
            lines += [" " * indent + wrapped[0]] + [" " * (indent + 2) + more
                                                    for more in wrapped[1:]]
        lines.append("")
    found = notes(evaluation.decision)
    if found:
        lines.append("Notes (never a gate, never a reason)")
        for finding in found:
            wrapped = _wrap(_plain(finding.reason, 600), width, 4)
            lines += ["  - " + wrapped[0]] + ["    " + line for line in wrapped[1:]]
        lines.append("")
    lines += [paint("%s %s, dataset %s, evidence %s" % (
        _plain(document["benchmark_id"], 80), _plain(document["benchmark_version"], 40),
        _plain(document["dataset_version"], 80), _plain(document["evidence_fingerprint"])),
        DIM)]
    lines += [paint(hint, DIM) for hint in hints] + [""]
    lines += _headline(document, width, paint)
    lines += _groups(evaluation.decision, width, paint)
    return ("\n".join(lines) + "\n").encode("ascii", "backslashreplace")


def _headline(document: JSONObject, width: int, paint: Painter) -> List[str]:
    """The decision, its words and the two systems, wrapped as the reasons under it are
    (the action and its words painted wherever the wrap puts them)."""
    action, words = document["action"], action_words(document)
    text = "%s  %s  (candidate %s, baseline %s)" % (
        action, words, _plain(document["candidate_system"], 80),
        _plain(document["baseline_system"], 80))
    spans = [(0, len(action), (BOLD, ACTION_COLOURS.get(action, BOLD))),
             (len(action) + 2, len(action) + 2 + len(words), (BOLD,))]
    indent = " " * TAG_WIDTH  # the action is the first line's tag
    lines: List[str] = []
    position = 0
    for line in textwrap.wrap(text, max(width, 20 + TAG_WIDTH), subsequent_indent=indent,
                              break_long_words=False, break_on_hyphens=False):
        line = line[len(indent):] if lines else line
        start = text.index(line, position)  # the wrap only drops the spaces it breaks at
        position = start + len(line)
        lines.append((indent if lines else "") + _painted(line, start, spans, paint))
    return lines


def _painted(line: str, start: int, spans: Sequence[Tuple[int, int, Tuple[str, ...]]],
             paint: Painter) -> str:
    """``line``, found at ``start`` of a text, with the parts of the text's ``spans`` (start,
    end, codes; in order, apart) that it holds painted."""
    out, at, end = [], start, start + len(line)
    for low, high, codes in spans:
        low, high = max(low, at), min(high, end)
        if low < high:
            out += [line[at - start:low - start], paint(line[low - start:high - start], *codes)]
            at = high
    return "".join(out) + line[at - start:]


def _groups(decision: "Decision", width: int, paint: Painter) -> List[str]:
    groups = reason_groups(decision, ellipsis=ELLIPSIS)
    lines = []
    for group in groups[:MAX_GROUPS]:
        word, code = SEVERITY_WORDS.get(group.severity, ("", ""))
        wrapped = _wrap(_plain(group.headline, 2000), width, TAG_WIDTH)
        lines.append(paint(word.ljust(TAG_WIDTH), BOLD, code) + wrapped[0] if word
                     else " " * TAG_WIDTH + wrapped[0])
        lines.extend(" " * TAG_WIDTH + line for line in wrapped[1:])
    if len(groups) > MAX_GROUPS:
        lines.append(" " * TAG_WIDTH + "%d more failed gates (see the JSON document)" % (
            len(groups) - MAX_GROUPS))
    return lines


def _metrics(document: JSONObject, gates: JSONObject, gate_rows: Sequence[Gate],
             paint: Painter) -> List[str]:
    states = gate_states(document)
    baseline, candidate = document["baseline_metrics"], document["candidate_metrics"]
    comparison = document["comparison"]
    rows = [(row.label, show(metric_value(baseline, row)), show(metric_value(candidate, row)),
             gate_text(row, gates), row.gate_key) for row in metric_rows(gate_rows)]
    rows += [(row.gate.label, "", show(row.low), ">= %s" % show_gate(gates[row.gate.key]),
              row.gate.key) for row in interval_rows(gate_rows, document)]
    table = [("Metric", "Baseline", "Candidate", "Gate (candidate)")] + [
        (label, base, cand, gate) for label, base, cand, gate, _key in rows]
    widths = [max(len(_plain(row[column])) for row in table) for column in range(4)]
    lines = []
    for position, row in enumerate(table):
        cells = [_plain(row[0]).ljust(widths[0]), _plain(row[1]).rjust(widths[1]),
                 _plain(row[2]).rjust(widths[2]), _plain(row[3]).ljust(widths[3])]
        line = "  ".join(cells)
        if position == 0:
            lines.append(paint(line + "  Held?", BOLD))
            continue
        key = rows[position - 1][4]
        if key is None:
            lines.append(line.rstrip())
        elif states.get(key) == REPLACED:
            lines.append(line + "  " + paint(REPLACED, DIM))
        elif key in states:
            lines.append(line + "  " + paint("%s (%s)" % (states[key].upper(), hardness(key)),
                                             BOLD, RED))
        else:
            lines.append(line + "  " + paint("held", GREEN))
    low, high = comparison["paired_bootstrap_interval"]
    lines.append("Paired difference (candidate - baseline) %s, %s%% bootstrap interval "
                 "[%s, %s]" % (show(comparison["paired_task_success_delta"]),
                               show(comparison["confidence"] * 100), show(low), show(high)))
    return lines


def _failing(document: JSONObject, width: int, paint: Painter) -> List[str]:
    rows = task_rows(document)
    failing = [row for row in problems_first(rows) if row.candidate.misses_gate]
    lines = ["Tasks the candidate fails: %d of %d" % (len(failing), len(rows))]
    shown, rest = counted(failing, MAX_FAILING_TASKS)
    for row in shown:
        task = row.candidate
        passing = sum(1 for trial in task.trials if trial.passed)
        head = "  %s%s %d/%d  " % (_plain(row.case_id, 80), paint(" CRITICAL", BOLD, RED)
                                   if row.critical else "", passing, len(task.trials))
        lines.append(head + _plain(task.failed_check_summary() or "below the task gate", 300))
    if rest:
        lines.append("  %d more (the JSON document and the HTML report have them)" % rest)
    return lines


def summary_lines(evaluation: "Evaluation") -> List[str]:
    """A few lines for stderr (``--summary``; the default when stderr is a terminal and
    stdout is not): the decision with its first reason group, the other groups, both
    systems' task success rates with the paired difference and its interval, and every
    informational note."""
    document = evaluation.lazy_document
    groups = reason_groups(evaluation.decision, ellipsis=ELLIPSIS)
    lines = ["proagents-bench: %s: %s" % (evaluation.action, groups[0].headline)]
    lines.extend("  %s: %s" % (SEVERITY_WORDS.get(group.severity, ("reason", ""))[0].lower(),
                               group.headline) for group in groups[1:MAX_GROUPS])
    if len(groups) > MAX_GROUPS:
        lines.append("  and %d more failed gates in the document" % (len(groups) - MAX_GROUPS))
    baseline, candidate = document["baseline_metrics"], document["candidate_metrics"]
    if baseline and candidate:
        comparison = document["comparison"]
        low, high = comparison["paired_bootstrap_interval"]
        lines.append("  task success rate: candidate %s %s, baseline %s %s; paired difference "
                     "%s, %s%% bootstrap interval [%s, %s]" % (
                         document["candidate_system"],
                         show(candidate["primary_task_success_rate"]),
                         document["baseline_system"],
                         show(baseline["primary_task_success_rate"]),
                         show(comparison["paired_task_success_delta"]),
                         show(comparison["confidence"] * 100), show(low), show(high)))
    view = sequential_view(evaluation)
    if view is not None:
        lines += ["  " + line for line in view.lines()]
    lines.extend("  note: %s" % finding.reason for finding in notes(evaluation.decision))
    return lines


def no_decision(outcome: "NoDecision", hint: Optional[str] = None) -> bytes:
    """The text mode's bytes for a run without a decision
    (:class:`~proagents_bench.render.nodecision.NoDecision`): its errors are on stderr
    already, so one line says what happened and how many there are."""
    count = len(outcome.errors) + outcome.omitted
    line = "%s%s" % (outcome.headline, "; %d error%s on stderr" % (
        count, "" if count == 1 else "s") if count else "")
    return ("\n".join([line] + ([hint] if hint else [])) + "\n").encode(
        "ascii", "backslashreplace")
