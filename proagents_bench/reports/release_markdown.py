"""The release's Markdown summary, for CI job pages (``--markdown "$GITHUB_STEP_SUMMARY"``): the
release's decision, notes and reasons, a row per benchmark and the multiplicity table, then
each benchmark's own Markdown summary exactly as its gate alone writes it, its headings two
levels down (under the benchmark's own heading).

GitHub refuses a step summary above 1 MiB: the release's part is bounded (lists are cut, texts
shortened), and a benchmark's section that would take the summary past
:data:`~.markdown.MAX_BYTES` is replaced by a line saying where it is (the HTML report and the
JSON document have every section).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .markdown import ICONS, MAX_BYTES, code, text
from .markdown import render_no_decision as render_no_decision  # the gate's no-decision summary
from .release_view import ACTION_WORDS, RESULT_WORDS, benchmark_count, hypothesis_text, rows
from .words import counted

if TYPE_CHECKING:  # for annotations only
    from ..release_outcome import Release


MAX_REASONS = 20
MAX_NOTES = 20
MAX_ROWS = 100
# Room kept for the lines that say a section was left out.
RESERVE_BYTES = 64 * 1024

# A heading line: every ``#`` in a text from the inputs is escaped, so a line that starts with
# ``#`` is a heading the renderer wrote.
_HEADING = re.compile(r"^(#{1,4}) ", re.M)


def section_text(report: bytes) -> str:
    """A gate's Markdown summary with its headings two levels down (``##`` becomes ``####``)."""
    return _HEADING.sub(lambda match: "##" + match.group(1) + " ", report.decode("utf-8"))



def render(release: "Release") -> bytes:
    """The summary's bytes (UTF-8) for a :class:`~proagents_bench.release_outcome.Release`."""
    decision = release.decision
    found = rows(release)
    lines = [
        "## %s %s: release %s (%s)" % (
            ICONS.get(decision.action, ""), decision.action,
            code(release.manifest.value["release_id"], 80), benchmark_count(len(found))),
        "",
        "**%s.** Evidence `%s`; family-wise level %s." % (
            ACTION_WORDS[decision.action].capitalize(), release.fingerprint, decision.level),
        "",
    ]
    if decision.notes:
        shown, rest = counted(decision.notes, MAX_NOTES)
        lines += ["\u2139\ufe0f **%d informational note%s** (never a reason):" % (
            len(decision.notes), "" if len(decision.notes) == 1 else "s"), ""]
        lines += ["- %s" % text(note, 600) for note in shown]
        if rest:
            lines += ["", "*%d more notes not shown; the JSON document lists them all.*" % rest]
        lines.append("")
    lines += ["### Reasons", ""]
    shown, rest = counted(decision.reasons, MAX_REASONS)
    lines += ["%d. %s" % (index, text(reason, 600)) for index, reason in enumerate(shown, 1)]
    if rest:
        lines += ["", "*%d more reasons not shown; the JSON document lists them all.*" % rest]
    listed, rest = counted(found, MAX_ROWS)
    lines += ["", "### Benchmarks", "",
              "| Benchmark | Tier | Its decision | Makes the release | Task success, candidate "
              "vs baseline | Paired difference [interval] | Primary reason |",
              "|---|---|---|---|---:|---:|---|"]
    lines += ["| %s | %s | %s %s | %s | %s | %s | %s |" % (
        text(row.name, 64), row.tier, ICONS.get(row.action, ""), row.action, row.effect,
        row.rates(), row.difference(), text(row.primary_reason, 200)) for row in listed]
    lines += ["", "### Many comparisons at once (Holm, family-wise level %s, %d hypotheses)" % (
        decision.level, decision.hypothesis_count), "",
              "| Benchmark | Units favouring candidate / baseline | Regression | Improvement | The "
              "release reports | Alone it would report |",
              "|---|---:|---|---|---|---|"]
    lines += ["| %s | %s | %s | %s | %s | %s |" % (
        text(row.name, 64), row.discordant(), hypothesis_text(row.regression),
        hypothesis_text(row.improvement), RESULT_WORDS[row.result],
        RESULT_WORDS[row.result_alone]) for row in listed]
    if rest:
        lines += ["", "*%d more benchmarks not shown; the JSON document lists them all.*" % rest]
    lines += ["", "<sub>%s %s</sub>" % (text(release.document["harness"]["name"]),
                                         text(release.document["harness"]["version"])), ""]
    head = "\n".join(lines)
    parts = [head]
    size = len(head.encode("utf-8"))
    for row in found:
        section = "\n---\n\n### Benchmark %s (%s)\n\n%s" % (
            text(row.name, 64), row.tier, section_text(row.sections["markdown"]))
        length = len(section.encode("utf-8"))
        if size + length > MAX_BYTES - RESERVE_BYTES:
            section = ("\n---\n\n### Benchmark %s (%s)\n\n*Its section is not shown: the summary "
                       "would pass GitHub's 1 MiB limit; the HTML report and the JSON document "
                       "have it.*\n" % (text(row.name, 64), row.tier))
            length = len(section.encode("utf-8"))
        parts.append(section)
        size += length
    return "".join(parts).encode("utf-8")
