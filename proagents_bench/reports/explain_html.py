"""explain's HTML report: the gate's own page (:mod:`.html`) with, after each reason, links to
the tasks explained for it, and a section where each task explained is folded (``<details>``):
its sentence as the fold's title, then the trials compared and where their traces are, the
two systems' tool calls aligned with the first divergence marked, the rule broken and the
step that broke it, the final state against the expected one, the checks failed, and both
traces step by step, each step at its position in the harness's own viewer. Everything from
the logs is escaped and cut (:func:`~.html_parts.escaped`); the JSON document holds it all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Sequence

from ..contract.vocabulary import ROLES
from . import html
from .explain_text import NOT_READ, NOTHING_TO_EXPLAIN
from .html_parts import escaped, scrolling_table

if TYPE_CHECKING:  # for annotations only
    from ..explain.explanation import Explained
    from ..jsonio import JSONObject
    from ..render.nodecision import NoDecision

# The section's own rules (the gate's stylesheet is shared by every page, and stays as it is).
STYLE = """<style>
#why details { border: 1px solid #d0d7de; border-radius: 6px; margin: 8px 0; padding: 0 10px; }
#why details > summary { border: 0; padding: 8px 0; font-weight: 600; }
#why .why-list { margin: 4px 0 8px; } #why .pos { color: #57606a; }
#why tr.same td.op { color: #57606a; } #why tr.first td { background: #fff4e5; }
#why tr.first td.op { color: #b35c00; font-weight: 800; }
#why .broken { color: #c62828; font-weight: 700; } #why ol.steps li { margin: 2px 0; }
.why-links { font-weight: 400; font-size: .9em; } .banner .why-links a { color: #fff; }
@media (max-width: 600px) {
  #why table.alignment { table-layout: fixed; width: 100%; }
  #why table.alignment th:first-child { width: 1.5em; }
  #why table.alignment td { overflow-wrap: anywhere; padding: 4px; }
}
</style>
"""
MARKS = {"same": "=", "changed": "~", "baseline_only": "&minus;", "candidate_only": "+"}


def anchor(case_id: str) -> str:
    """The id of a task's section: ``why-`` and the case id with anything but letters,
    digits, ``-`` and ``_`` as ``_``."""
    return "why-" + "".join(char if char.isalnum() or char in "-_" else "_" for char in case_id)


def render(explained: Explained) -> bytes:
    """The gate's page of ``explained``'s decision with its explanation in it."""
    document = explained.document
    reasons = explained.decision.reasons
    named: Dict[str, List[str]] = {}
    for task in document["tasks"]:
        for index in task["reasons"]:
            named.setdefault(reasons[index], []).append(task["case_id"])

    def links(group: Sequence[str]) -> str:
        cases = [case for reason in group for case in named.get(reason, [])]
        cases = sorted(set(cases), key=cases.index)
        if not cases:
            return ""
        return ' <span class="why-links">(why: %s)</span>' % ", ".join(
            '<a href="#%s">%s</a>' % (anchor(case), escaped(case, 80)) for case in cases)

    return html.page(explained.evaluation, links, section(document))


def render_no_decision(outcome: NoDecision) -> bytes:
    return html.render_no_decision(outcome)


def section(document: JSONObject) -> str:
    """The section of the tasks explained (each folded), and what could not be read."""
    parts = [STYLE, '<section id="why">\n<h2>Why: each task explained from the traces '
             '(%d)</h2>\n' % len(document["tasks"])]
    if not document["tasks"]:
        parts.append("<p>No task to explain: %s.</p>\n" % NOTHING_TO_EXPLAIN)
    for task in document["tasks"]:
        parts.append(_task(task))
    if document["problems"]:
        parts.append('<p>%s:</p>\n<ul>\n%s\n</ul>\n' % (NOT_READ, "\n".join(
            "<li><code>%s</code> %s: %s</li>" % (
                escaped(problem["code"]), escaped(problem["where"]),
                escaped(problem["message"], 600))
            for problem in document["problems"])))
    parts.append('<p class="pos">Tasks: %s. Trials: %s.</p>\n</section>\n' % (
        escaped(document["task_rule"], 1000), escaped(document["trial_rule"], 1000)))
    return "".join(parts)


def _task(task: JSONObject) -> str:
    traces = task["traces"]
    lines = ['<details id="%s">\n<summary>%s</summary>\n<ul class="why-list">' % (
        anchor(task["case_id"]), escaped(task["summary"], 1200))]
    lines += ["<li>why: %s</li>" % escaped(why, 600) for why in task["why"]]
    for role in ROLES:
        trace = traces[role]
        lines.append("<li>%s trial %d: %s</li>" % (role, trace["trial_id"], escaped(
            trace["where"] if "where" in trace else "no trace: " + trace["problem"]["message"],
            600)))
    for broken in task["rules_broken"]:
        step = broken["step"]
        lines.append('<li class="broken">rule broken: %s%s</li>' % (
            escaped(broken["rule"]), " at <code>%s</code>" % escaped(step["position"])
            if step else ""))
    for row in task["final_state"]:
        lines.append("<li>final state%s: %s, expected %s%s</li>" % (
            " <code>%s</code>" % escaped(row["key"]) if row["key"] is not None else "",
            _quoted(row["actual"]), _quoted(row["expected"]), "" if row["equal"] else
            ' <span class="broken">(differs)</span>'))
    lines += ["<li>failed check <code>%s</code>: %s</li>" % (
        escaped(check["check"]), escaped(check["text"], 600)) for check in task["failed_checks"]]
    lines += ["<li>the harness's check failed: %s at <code>%s</code></li>" % (
        escaped(check["name"]), escaped(check["position"])) for check in task["harness_checks"]]
    lines.append("</ul>")
    if task["alignment"]:
        lines.append(_alignment(task))
    for role in ROLES:
        if "steps" in traces[role]:
            lines.append(_steps(role, traces[role]))
    lines.append("</details>")
    return "\n".join(lines) + "\n"


def _alignment(task: JSONObject) -> str:
    """The two trials' tool calls side by side, the first divergence marked."""
    first = task["first_divergence"]
    rows = ["<thead><tr><th></th><th>baseline</th><th>candidate</th></tr></thead>\n<tbody>"]
    for row in task["alignment"]:
        marked = first is not None and all(row[key] == first[key] for key in
                                           ("op", "baseline", "candidate"))
        rows.append('<tr class="%s%s"><td class="op">%s</td>%s%s</tr>' % (
            row["op"], " first" if marked else "", MARKS[row["op"]],
            _call(row["baseline"]), _call(row["candidate"])))
    rows.append("</tbody>")
    return ("<p>Tool calls (= the same, ~ another, &minus; the baseline's alone, + the "
            "candidate's alone; the first divergence highlighted):</p>\n" + scrolling_table(
                "alignment", "\n".join(rows)))


def _call(step: object) -> str:
    if not isinstance(step, dict):
        return "<td></td>"
    return '<td><code>%s %s</code><br><span class="pos">%s</span></td>' % (
        escaped(step["name"], 120), escaped(step["text"], 300), escaped(step["position"]))


def _steps(role: str, trace: JSONObject) -> str:
    items = "\n".join("<li>%s</li>" % _step(step) for step in trace["steps"])
    cuts = "".join("<li>cut: %s</li>" % escaped(cut, 400) for cut in trace["cuts"])
    return ('<details><summary>The %s\'s trace, step by step (%d steps)</summary>\n'
            '<ol class="steps">\n%s\n</ol>%s\n</details>' % (
                role, len(trace["steps"]), items, "<ul>%s</ul>" % cuts if cuts else ""))


def _step(step: JSONObject) -> str:
    """A step: its position, its kind, who (a message's role, a call's tool), its status and
    its text."""
    who = step["role"] or step["name"]
    return '<span class="pos">%s</span> %s%s%s%s' % (
        escaped(step["position"]), escaped(step["kind"]), " " + escaped(who) if who else "",
        " (%s)" % escaped(step["status"]) if step["status"] else "",
        ": " + escaped(step["text"], 400) if step["text"] else "")


def _quoted(value: object) -> str:
    return "<code>null</code>" if value is None else "<code>&quot;%s&quot;</code>" % escaped(
        value, 300)
