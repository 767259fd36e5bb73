"""The release's HTML report: one self-contained page, as the gate's (no script, no external
asset), the release first and each benchmark's own report below it.

The release's part: its decision in a banner (its notes inside it, as the gate's notes are),
its reasons, what was decided on (the release id, the manifest, the evidence fingerprint, the
family-wise level), a row per benchmark (its tier, its decision and what it makes of the
release, both systems' task success, the paired difference, a link to its section), and the
multiplicity table (each benchmark's discordant tasks, the one-sided p-values raw and
Holm-adjusted, what the release reports and what the benchmark alone would).

Then one section per benchmark: the body of its gate's HTML report, byte for byte, with each
id prefixed (``NAME--``) so that the page's ids stay unique, and its headings one level down.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, List, Sequence, Tuple

from ..evaluation.release import alone_level
from ..text import show_number
from .html import render_no_decision as render_no_decision  # the no-decision page: the gate's
from .html_parts import STYLE, breakable_digest, breakable_id, escaped, scrolling_table
from .release_view import (ACTION_WORDS, RESULT_WORDS, BenchmarkRow, anchor, benchmark_count,
                           hypothesis_text, rows)
from .words import counted

if TYPE_CHECKING:  # for annotations only
    from ..evaluation.release import ReleaseDecision
    from ..release_outcome import Release
    from ..stats.exact import Exact


MAX_NOTES = 50
MAX_REASONS = 200

RELEASE_STYLE = """
section.benchmark { border-top: 4px solid #1b1f24; margin-top: 36px; padding-top: 4px; }
section.benchmark > h2.benchmark-head { font-size: 1.4rem; border: 0; margin: 10px 0 0; }
section.benchmark .banner .action { font-size: 1.8rem; }
section.benchmark h3 { font-size: 1.1rem; margin: 24px 0 8px;
  border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
section.benchmark h4 { font-size: 1rem; margin: 14px 0 4px; }
section.benchmark summary h3 { display: inline-block; border: 0; margin: 24px 0 8px; }
.act { font-weight: 700; color: #fff; padding: 0 6px; border-radius: 3px; white-space: nowrap; }
table.release td.reason { min-width: 18em; }
@media (max-width: 600px) {
  table.release td.reason { min-width: 0; }
}
@media print {
  section.benchmark { break-before: page; }
  [id$="--bootstrap"], [id$="--slices"] { break-inside: avoid; }
}
"""

# The body of a gate's report: between these.
_BODY_START = "<body>\n"
_BODY_END = "</body>\n"
_IDS = re.compile(r' id="')
_HEADINGS = re.compile(r"<(/?)h([23])\b")


def section_body(report: bytes, prefix: str) -> str:
    """The body of a gate's HTML report, its ids prefixed with ``prefix`` and ``--`` and its
    ``h2``/``h3`` headings made ``h3``/``h4``. Every text of the report is escaped with its
    quotes, so `` id="`` and ``<h2`` occur in its markup only."""
    text = report.decode("utf-8")
    body = text[text.index(_BODY_START) + len(_BODY_START):text.rindex(_BODY_END)]
    body = _IDS.sub(' id="%s--' % prefix, body)
    return _HEADINGS.sub(lambda match: "<%sh%d" % (match.group(1), int(match.group(2)) + 1),
                         body)


def _action(action: str) -> str:
    return '<span class="act %s">%s</span>' % (escaped(action), escaped(action))



def render(release: "Release") -> bytes:
    """The page's bytes (UTF-8) for a :class:`~proagents_bench.release_outcome.Release`."""
    decision = release.decision
    manifest = release.manifest
    found = rows(release)
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>%s: release %s (%s)</title>\n<style>%s%s</style>\n</head>\n"
        "<body>\n" % (escaped(decision.action), escaped(manifest.value["release_id"], 80),
                      benchmark_count(len(found)),
                      STYLE, RELEASE_STYLE),
        _banner(release),
        _reasons(decision),
        _facts(release),
        _benchmarks(found),
        _multiplicity(release, found),
        '<section id="limitations">\n<h2>Limitations</h2>\n<ul>\n%s\n</ul>\n</section>\n' % (
            "\n".join("<li>%s</li>" % escaped(text, 2000)
                      for text in release.document["limitations"])),
    ]
    for row in found:
        parts.append('<section class="benchmark" id="%s">\n<h2 class="benchmark-head">'
                     'Benchmark <span class="id">%s</span> (%s): %s</h2>\n%s</section>\n' % (
                         escaped(row.anchor), breakable_id(row.name), escaped(row.tier),
                         _action(row.action), section_body(row.sections["html"], row.anchor)))
    parts.append("</body>\n</html>\n")
    return "".join(parts).encode("utf-8")


def _banner(release: "Release") -> str:
    decision = release.decision
    notes = ""
    if decision.notes:
        shown, rest = counted(decision.notes, MAX_NOTES)
        items = ['<li><span class="sev note-tag">NOTE</span>%s</li>' % escaped(note, 2000)
                 for note in shown]
        if rest:
            items.append('<li class="cut">%d more notes not shown (the JSON document lists '
                         'them all)</li>' % rest)
        notes = ('<div class="notes" id="notes">\n<p class="notes-head">%d informational '
                 'note%s (never a reason)</p>\n<ul>\n%s\n</ul>\n</div>\n' % (
                     len(decision.notes), "" if len(decision.notes) == 1 else "s",
                     "\n".join(items)))
    return ('<header class="banner %s" id="decision">\n<p class="action">%s</p>\n'
            '<p class="meaning">Release %s: %s</p>\n<p class="primary">%s</p>\n%s</header>\n'
            % (escaped(decision.action), escaped(decision.action),
               breakable_id(release.manifest.value["release_id"], 120),
               escaped(ACTION_WORDS[decision.action]), escaped(decision.reasons[0], 2000), notes))


def _reasons(decision: "ReleaseDecision") -> str:
    shown, rest = counted(decision.reasons, MAX_REASONS)
    items = ["<li>%s</li>" % escaped(reason, 2000) for reason in shown]
    if rest:
        items.append('<li class="cut">%d more reasons not shown (the JSON document lists '
                     'them all)</li>' % rest)
    return ('<section id="reasons">\n<h2>Reasons</h2>\n<ol class="reasons">\n%s\n</ol>\n'
            '</section>\n' % "\n".join(items))


def _facts(release: "Release") -> str:
    manifest = release.manifest.describe()
    document = release.document
    facts = [
        ("Release", breakable_id(document["release_id"])),
        ("Manifest", "%s (%s bytes, SHA-256 %s)" % (breakable_id(manifest["file"]),
                                                   escaped(manifest["bytes"]),
                                                   breakable_digest(manifest["sha256"]))),
        ("Evidence fingerprint", breakable_digest(document["evidence_fingerprint"])),
        ("Family-wise level", escaped(release.decision.level)),
        ("Harness", breakable_id("%s %s" % (document["harness"]["name"],
                                   document["harness"]["version"]))),
    ]
    body = "\n".join('<tr><th scope="row">%s</th><td class="id">%s</td></tr>' % (
        escaped(label), value) for label, value in facts)
    return ('<section id="about">\n<h2>What was decided on</h2>\n%s\n</section>\n'
            % scrolling_table("facts", body))


BENCHMARK_COLUMNS = ("Tier", "Its decision", "Makes the release",
                     "Task success, candidate vs baseline", "Paired difference [interval]",
                     "Primary reason")
MULTIPLICITY_COLUMNS = ("Units favouring the candidate / the baseline", "Regression",
                        "Improvement", "The release reports", "Alone it would report")


def page_head(columns: Sequence[str]) -> str:
    return "<thead><tr><th>Benchmark</th>%s</tr></thead>\n<tbody>" % "".join(
        "<th>%s</th>" % escaped(column) for column in columns)


def _cells(columns: Sequence[str], cells: Sequence[Tuple[str, str]]) -> str:
    """The row's cells, each labelled with its column (a narrow window shows each row as a
    card, every value under its label)."""
    return "".join('<td%s data-label="%s">%s</td>' % (
        ' class="%s"' % html_class if html_class else "", escaped(column), value)
        for column, (html_class, value) in zip(columns, cells))


def _name_cell(row: BenchmarkRow, detail: str = "") -> str:
    return '<th scope="row"><a class="id" href="#%s">%s</a>%s</th>' % (
        escaped(row.anchor), breakable_id(row.name), detail)


def _benchmarks(found: List[BenchmarkRow]) -> str:
    lines = [page_head(BENCHMARK_COLUMNS)]
    for row in found:
        more = ' <span class="note">(%d more reason%s in its section)</span>' % (
            row.reason_count - 1, "" if row.reason_count == 2 else "s") if (
            row.reason_count > 1) else ""
        lines.append("<tr>%s%s</tr>" % (
            _name_cell(row, '<br><span class="note">%s</span>' % breakable_id(row.benchmark, 120)),
            _cells(BENCHMARK_COLUMNS, [
                ("", escaped(row.tier)), ("", _action(row.action)), ("", _action(row.effect)),
                ("num", escaped(row.rates())), ("num", escaped(row.difference())),
                ("reason", escaped(row.primary_reason, 400) + more)])))
    lines.append("</tbody>")
    return ('<section id="benchmarks">\n<h2>Benchmarks</h2>\n<p class="note">Each benchmark is '
            'decided exactly as its gate decides it alone (its section below is its own '
            'report). Critical: its BLOCK or INCOMPARABLE stops the release; supporting: any '
            'decision but PASS asks for review; info: reported only.</p>\n%s\n</section>\n'
            % scrolling_table("stack release", "\n".join(lines)))


def _multiplicity(release: "Release", found: List[BenchmarkRow]) -> str:
    decision = release.decision
    lines = [page_head(MULTIPLICITY_COLUMNS)]
    for row in found:
        lines.append("<tr>%s%s</tr>" % (_name_cell(row), _cells(MULTIPLICITY_COLUMNS, [
            ("num", escaped(row.discordant())), ("", escaped(hypothesis_text(row.regression))),
            ("", escaped(hypothesis_text(row.improvement))),
            ("", escaped(RESULT_WORDS[row.result])),
            ("", escaped(RESULT_WORDS[row.result_alone]))])))
    lines.append("</tbody>")
    return ('<section id="multiplicity">\n<h2>Many comparisons at once</h2>\n<p class="note">'
            'On each comparable benchmark the release tests two one-sided hypotheses, a '
            'regression and an improvement, each with its gate\'s one-sided test on its '
            'discordant resampling units (McNemar\'s exact test on test tasks; on families, '
            'the exact sign-flip randomization test), and holds all %d of them '
            'together at family-wise level %s with Holm\'s step-down procedure: with no true '
            'difference anywhere, the chance that the release reports any regression or '
            'improvement is at most %s. Alone, a benchmark would call a one-sided p-value at or '
            'below %s (half the level, for either direction) a difference. A regression beyond '
            'chance on a critical or supporting benchmark asks for review.</p>\n%s\n'
            '</section>\n' % (decision.hypothesis_count, escaped(decision.level),
                              escaped(decision.level), escaped(_half(decision.level)),
                              scrolling_table("stack multiplicity", "\n".join(lines))))


def _half(level: Exact) -> str:
    return show_number(alone_level(level))
