"""explain's Markdown summary: the gate's own (:mod:`.markdown`), its reasons followed by a
short section with a line per task explained (its sentence: the verdict, where the candidate left the baseline's
path, the step that broke the rule, the checks failed) and what could not be read; the HTML
report and the JSON document hold the rest. Cut as the gate's is, so a CI step summary stays
small whatever the package holds."""

from __future__ import annotations

from typing import TYPE_CHECKING, List

from . import markdown
from .explain_text import NOT_READ, NOTHING_TO_EXPLAIN
from .words import counted

if TYPE_CHECKING:  # for annotations only
    from ..explain.explanation import Explained
    from ..render.nodecision import NoDecision

MAX_TASKS = 50
MAX_PROBLEMS = 10


def render(explained: Explained) -> bytes:
    """The gate's summary of ``explained``'s decision, its explanation after the reasons."""
    return markdown.summary(explained.evaluation, section(explained))


def render_no_decision(outcome: NoDecision) -> bytes:
    return markdown.render_no_decision(outcome)


def section(explained: Explained) -> List[str]:
    """The section's lines: a line per task explained, then the traces not read."""
    document = explained.document
    tasks, more = counted(document["tasks"], MAX_TASKS)
    lines = ["", "### Why: each task explained from the traces (%d)" % len(document["tasks"]),
             ""]
    lines += ["- %s" % markdown.text(task["summary"], 600) for task in tasks]
    if more:
        lines.append("- %d more tasks explained in the JSON document and the HTML report" % more)
    if not document["tasks"]:
        lines.append("No task to explain: %s." % NOTHING_TO_EXPLAIN)
    problems, rest = counted(document["problems"], MAX_PROBLEMS)
    if problems:
        lines += ["", NOT_READ + ":", ""]
        lines += ["- `%s` %s: %s" % (problem["code"], markdown.text(problem["where"]),
                                     markdown.text(problem["message"], 300))
                  for problem in problems]
        if rest:
            lines.append("- %d more" % rest)
    return lines
