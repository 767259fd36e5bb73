"""The ``diff`` command at a terminal (``--format text``, the default when stdout is a
terminal), in the gate's text mode's manner (:mod:`.terminal`): ASCII, every text from the
inputs cleaned, a few dozen lines however many cases, and last what the new file requires."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, List, Optional

from .terminal import BOLD, DIM, RED, YELLOW, Painter, _plain, _wrap
from ..text import listed
from .words import counted

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

MAX_TASKS = 20
MAX_VALUE = 60
BREAK_COLOURS = {"answer": RED, "grading_rule": RED, "task_input": RED, "test_set": RED,
                 "protocol": RED, "contamination": YELLOW}


def _value(value: object) -> str:
    text = json.dumps(value, ensure_ascii=True, sort_keys=True)
    return _plain(text, MAX_VALUE)


def render(document: JSONObject, width: int = 100, colour: bool = False,
           output: Optional[str] = None) -> bytes:
    """The text mode's bytes (ASCII) for the DIFF document."""
    paint = Painter(colour)
    lines: List[str] = []
    for field in document["header"]:
        lines.append("%s: %s -> %s  (%s)" % (_plain(field["field"], 80), _value(field["old"]),
                                             _value(field["new"]), ", ".join(field["breaks"])))
    if document["header"]:
        lines.append("")
    tasks = document["tasks"]
    summary = document["summary"]
    if document["kind"] == "cases":
        lines.append(paint("Cases: %d added, %d removed, %d changed" % (
            summary["added"], summary["removed"], summary["changed"]), BOLD))
    shown, rest = counted(tasks, MAX_TASKS)
    for task in shown:
        breaks = ", ".join(task["breaks"])
        code = next((BREAK_COLOURS[name] for name in task["breaks"] if name in BREAK_COLOURS),
                    None)
        head = "  %s  %s  [%s]" % (_plain(task["case_id"], 80), task["change"],
                                   paint(breaks, code) if code else breaks)
        lines.append(head)
        for field in task["fields"]:
            wrapped = _wrap("%s: %s -> %s" % (field["field"], _value(field["old"]),
                                              _value(field["new"])), width, 8)
            lines.extend("      " + line for line in wrapped)
    if rest:
        lines.append("  %d more (the JSON document lists them)" % rest)
    for package in document["packages"]:
        lines.append("")
        lines.append(paint("Records of %s under the new cases" % _plain(package["file"], 200),
                           BOLD))
        for system in package["systems"]:
            lines.append("  %s %s: %d of %d records stay comparable; %d trials grade "
                         "differently" % (system["role"], _plain(system["system_id"], 80),
                                          system["comparable_records"], system["records"],
                                          system["regraded_differently"]))
        if package["new_test_tasks_without_records"]:
            lines.append("  new test tasks without records: %s" % _plain(", ".join(
                package["new_test_tasks_without_records"]), 600))
    lines.append("")
    old, new = document["old"], document["new"]
    lines.append(paint("%s (%s) -> %s (%s)" % (
        _plain(old["file"], 200), _plain(old.get("dataset_version") or
                                         old.get("protocol_version") or "", 80),
        _plain(new["file"], 200), _plain(new.get("dataset_version") or
                                         new.get("protocol_version") or "", 80)), DIM))
    lines.append(paint("The JSON document: %s." % (output or "--format json, or --output FILE"),
                       DIM))
    lines.append("")
    requires = document["requires"]
    what = "cases file" if document["kind"] == "cases" else "spec"
    lines.append("%s  %s" % (paint("DIFF", BOLD), "The new %s requires %s." % (
        what, listed(requires)) if requires else "Nothing breaks: the new %s requires no new "
        "version, and every record stays comparable." % what))
    return ("\n".join(lines) + "\n").encode("ascii", "backslashreplace")
