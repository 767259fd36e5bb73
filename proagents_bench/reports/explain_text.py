"""explain's words for a person at a terminal (``--format text``, the default when stdout is a
terminal) and its lines on stderr (``--summary``).

Each task explained: its verdict and counts, why it is explained, the trials compared and
where their traces are, the two systems' tool calls aligned (``=`` the same, ``~`` another,
``-`` the baseline's alone, ``+`` the candidate's alone) with the first divergence marked,
the rule broken and the step that broke it, the final state against the expected one, the
checks failed; every step by its position in the harness's own viewer. Then what could not
be read, the rules that chose what is shown, where the rest is, and last, where a terminal
keeps them in view, the decision and its reasons. ASCII only, every text from the inputs
cleaned of control characters, as the gate's text mode (:mod:`.terminal`).
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, List, Optional, Sequence

from ..contract.vocabulary import INCOMPARABLE, ROLES
from .terminal import ACTION_COLOURS, BOLD, DIM, RED, Painter
from .words import clean

if TYPE_CHECKING:  # for annotations only
    from ..explain.explanation import Explained
    from ..jsonio import JSONObject

# What each alignment row is marked with: the same call, another, the baseline's alone, the
# candidate's alone.
MARKS = {"same": "=", "changed": "~", "baseline_only": "-", "candidate_only": "+"}
# The words every explain report says where it explains no task, and over the traces it could
# not read.
NOTHING_TO_EXPLAIN = "none is worse for the candidate, named by a failed gate, or broke a rule"
NOT_READ = "Traces not read (the decision stands without them)"


def render(explained: Explained, width: int = 100, colour: bool = False,
           hints: Sequence[str] = ()) -> bytes:
    """The text's bytes (ASCII), lines wrapped to ``width``."""
    paint = Painter(colour)
    document = explained.document
    decision = document["decision"]
    lines: List[str] = []
    for task in document["tasks"]:
        lines += _task(task, width, paint) + [""]
    if not document["tasks"]:
        lines += ["No task to explain: %s." % (
            "the systems are not comparable (the reasons below)"
            if decision["action"] == INCOMPARABLE else NOTHING_TO_EXPLAIN), ""]
    if document["problems"]:
        lines.append(NOT_READ)
        for problem in document["problems"]:
            lines += _wrapped("%s: %s: %s" % (problem["code"], problem["where"],
                                              problem["message"]), width, "  - ", "    ")
        lines.append("")
    lines += [paint(line, DIM) for line in (
        _wrapped("Tasks: %s." % document["task_rule"], width, "", "  ")
        + _wrapped("Trials: %s." % document["trial_rule"], width, "", "  ")
        + list(hints))] + [""]
    action = decision["action"]
    lines.append("%s  explained: %d task%s  (candidate %s, baseline %s)" % (
        paint(action, BOLD, ACTION_COLOURS.get(action, BOLD)), len(document["tasks"]),
        "" if len(document["tasks"]) == 1 else "s", _plain(document["candidate_system"], 80),
        _plain(document["baseline_system"], 80)))
    for number, reason in enumerate(decision["reasons"], 1):
        lines += _wrapped("%d. %s" % (number, reason), width, "  ", "     ")
    return ("\n".join(lines) + "\n").encode("ascii", "backslashreplace")


def summary_lines(explained: Explained) -> List[str]:
    """A line per task explained, for stderr: its sentence (``summary``)."""
    document = explained.document
    lines = ["proagents-bench explain: %s, %d task%s explained" % (
        explained.action, len(document["tasks"]), "" if len(document["tasks"]) == 1 else "s")]
    lines += ["  %s" % _plain(task["summary"], 2000) for task in document["tasks"]]
    lines += ["  %s: %s: %s" % (problem["code"], problem["where"], problem["message"])
              for problem in document["problems"]]
    return lines


def _task(task: JSONObject, width: int, paint: Painter) -> List[str]:
    counts = task["passing_trials"]
    head = "%s%s: %s (baseline %d of %d trials pass, candidate %d of %d)%s" % (
        task["case_id"], " (critical)" if task["critical"] else "",
        task["verdict"].replace("_", " "), counts["baseline"], task["trial_count"],
        counts["candidate"], task["trial_count"], "; reason%s %s" % (
            "s" if len(task["reasons"]) > 1 else "", ", ".join(
                str(index + 1) for index in task["reasons"])) if task["reasons"] else "")
    lines = [paint(line, BOLD) for line in _wrapped(head, width, "", "  ")]
    for why in task["why"]:
        lines += _wrapped("why: " + why, width, "  ", "    ")
    for role in ROLES:
        trace = task["traces"][role]
        lines += _wrapped("%s trial %d: %s" % (role, trace["trial_id"], trace["where"] if (
            "where" in trace) else "no trace: " + trace["problem"]["message"]), width, "  ",
            "    ")
    if task["alignment"]:
        lines.append("  tool calls (= the same, ~ another, - the baseline's alone, + the "
                     "candidate's alone):")
        first = task["first_divergence"]
        for row in task["alignment"]:
            marked = first is not None and all(row[key] == first[key] for key in
                                               ("op", "baseline", "candidate"))
            text = _wrapped("%s %s%s" % (MARKS[row["op"]], _row(row), "  <- first divergence"
                                         if marked else ""), width, "  ", "      ")
            lines += [paint(line, RED) for line in text] if marked else text
    for broken in task["rules_broken"]:
        step = broken["step"]
        lines += [paint(line, RED) for line in _wrapped("rule broken: %s%s" % (
            broken["rule"], " at %s (%s %s)" % (step["position"], step["name"], step["text"])
            if step else "; %s" % broken.get("note", "no trace shows the step")),
            width, "  ", "    ")]
    for row in task["final_state"]:
        lines += _wrapped("final state%s: %s, expected %s%s" % (
            " " + row["key"] if row["key"] is not None else "", _quoted(row["actual"]),
            _quoted(row["expected"]), "" if row["equal"] else " (differs)"), width, "  ",
            "    ")
    for check in task["failed_checks"]:
        lines += _wrapped("failed check %s: %s" % (check["check"], check["text"]), width,
                          "  ", "    ")
    for check in task["harness_checks"]:
        lines += _wrapped("the harness's check failed: %s at %s%s" % (
            check["name"], check["position"], ": " + check["text"] if check["text"] else ""),
            width, "  ", "    ")
    for role in ROLES:
        for cut in task["traces"][role].get("cuts", []):
            lines += _wrapped("cut (%s): %s" % (role, cut), width, "  ", "    ")
    return lines


def _row(row: JSONObject) -> str:
    """One aligned pair of calls: the call once, with both positions, when they are the
    same; else each system's own."""
    baseline, candidate = row["baseline"], row["candidate"]
    if row["op"] == "same":
        return "%s %s (baseline %s, candidate %s)" % (
            baseline["name"], baseline["text"], baseline["position"], candidate["position"])
    return "; ".join("%s %s %s at %s" % (role, step["name"], step["text"], step["position"])
                     for role, step in zip(ROLES, (baseline, candidate)) if step is not None)


def _quoted(value: Optional[str]) -> str:
    return "null" if value is None else '"%s"' % value


def _plain(value: object, limit: int = 300) -> str:
    text = clean(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _wrapped(text: str, width: int, first: str, rest: str) -> List[str]:
    """``text`` (from the inputs: cleaned) in lines of ``width`` columns, the first indented
    by ``first``, the others by ``rest``; never split inside a word (ids and positions stay
    whole)."""
    return textwrap.wrap(_plain(text, 4000), max(width, 40), initial_indent=first,
                         subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False) or [first.rstrip()]
