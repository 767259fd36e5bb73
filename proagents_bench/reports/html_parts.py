"""What every HTML page of proagents-bench is made of: the stylesheet (the gate's report,
the release's and the health's pages all start from it) and the helpers that put text from
the inputs on a page, escaped and cut (:func:`escaped`), breakable where an id or a digest
may break, and a table or a chart in its own scroll container (a chart at both its widths,
the one that fits the window shown).

A page is whole at a laptop's width (1280 px) and a phone's (390 px): no table or chart cut
at its edge (tests/test_report_layout.py measures the pages in Chromium)."""

from __future__ import annotations

import re
from html import escape

from typing import Callable

from .svg import MIN_DISPLAY_WIDTH, NARROW_MIN_DISPLAY_WIDTH, NARROW_WIDTH, WIDTH
from .words import shorten

MAX_TEXT = 300
# The window's width below which a chart is the narrow one: where the wide one, with the
# page's margins (20 px each side), would be drawn below MIN_DISPLAY_WIDTH.
CHART_SWITCH = MIN_DISPLAY_WIDTH + 2 * 20 - 1

STYLE = """
:root { --pass: #1a7f37; --review: #b35c00; --block: #c62828; --incomparable: #6a1b9a;
  --note: #0b5cad; --none: #424a53; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif;
  color: #1b1f24; margin: 0 auto; max-width: 1180px; padding: 0 20px 40px;
  overflow-wrap: break-word; }
h1 { font-size: 1.2rem; margin: 18px 0 4px; } h2 { font-size: 1.15rem; margin: 28px 0 8px;
  border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
.banner { color: #fff; padding: 18px 24px; border-radius: 8px; margin-top: 16px; }
.banner .action { font-size: 2.6rem; font-weight: 800; letter-spacing: .04em; margin: 0; }
.banner .meaning { font-size: 1.1rem; margin: 2px 0 10px; }
.banner .primary { font-size: 1.05rem; margin: 0; font-weight: 600; list-style: none;
  padding: 0; } .banner .primary li { margin: 3px 0; }
.banner .sev.block, .banner .sev.review { background: #fff; }
.banner .sev.block { color: var(--block); } .banner .sev.review { color: var(--review); }
summary h2 { display: inline-block; border: 0; margin: 28px 0 8px; }
summary { cursor: pointer; border-bottom: 1px solid #d0d7de; }
.banner .notes { background: #fff; color: #1b1f24; border-radius: 6px; padding: 8px 12px;
  margin-top: 14px; border-left: 6px solid var(--note); }
.notes .notes-head { margin: 0 0 4px; font-weight: 700; color: var(--note); }
.notes ul { margin: 0; padding-left: 1.2em; } .notes li { margin: 2px 0; }
.notes .facts { color: #57606a; font-size: .9em; }
.PASS { background: var(--pass); } .REVIEW { background: var(--review); }
.BLOCK { background: var(--block); } .INCOMPARABLE { background: var(--incomparable); }
.CONTRACT_ERROR, .INTERNAL_ERROR, .INTERRUPTED { background: var(--none); }
.reasons li, .errors li { margin: 3px 0; } .sev { font-weight: 700; font-size: .8rem; padding: 0 5px;
  border-radius: 3px; color: #fff; margin-right: 6px; }
.sev.block { background: var(--block); } .sev.review { background: var(--review); }
.sev.note-tag { background: var(--note); }
.scroll { overflow-x: auto; max-width: 100%; margin: 6px 0; }
table { border-collapse: collapse; margin: 0; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f5f7; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.held { color: var(--pass); font-weight: 700; } .failed { color: var(--block); font-weight: 700; }
.unjudged { color: var(--review); font-weight: 700; } .replaced { color: #57606a; }
td.held { white-space: nowrap; }
.facts th { width: 13em; }
code, .id { font-family: ui-monospace, Consolas, monospace; font-size: .9em; }
.chart { width: 100%; max-width: 760px; min-width: @CHART_MIN@px; height: auto;
  display: block; margin: 4px 0 12px; }
.chart.narrow { display: none; max-width: 480px; min-width: @NARROW_CHART_MIN@px; }
@media (max-width: @CHART_SWITCH@px) {
  .chart.wide { display: none; } .chart.narrow { display: block; }
}
.chart .bar { fill: #5b7fa6; } .chart .bar.baseline { fill: #9aa5b1; }
.chart .bar.candidate { fill: #2f6fb3; } .chart .band { fill: #cfe3f7; }
.chart .bar.off-scale { fill: #b7c3d0; stroke: #5b7fa6; stroke-dasharray: 3 2; }
.chart .axis, .chart .tick { stroke: #57606a; } .chart .grid { stroke: #e3e7eb; }
.chart text { font: 11px system-ui, Arial, sans-serif; fill: #1b1f24; }
.chart .marker-label { paint-order: stroke; stroke: #fff; stroke-width: 3px;
  stroke-linejoin: round; }
.chart .bar-value.inside { fill: #fff; }
.chart .marker { stroke-width: 2; } .chart .marker.gate { stroke: var(--block);
  stroke-dasharray: 6 4; } .chart .marker-label.gate { fill: var(--block); font-weight: 700; }
.chart .marker-arrow.gate { fill: var(--block); } .chart .marker-arrow { fill: #1b1f24; }
.chart .marker.bound { stroke: #1f5a96; } .chart .marker.observed { stroke: #1b1f24; }
.chart .boundary { fill: none; stroke-width: 2; } .chart .boundary.pass { stroke: var(--pass); }
.chart .boundary.futile { stroke: var(--block); stroke-dasharray: 5 3; }
.chart .path { fill: none; stroke: #1f5a96; stroke-width: 2; }
.chart .look { stroke: #9aa5b1; stroke-dasharray: 2 3; } .chart .look-label { fill: #57606a; }
.chart .point { fill: #1b1f24; stroke: #fff; stroke-width: 1.5; }
.chart .point.pass { fill: var(--pass); } .chart .point.futility,
.chart .point.exhausted, .chart .point.blocked { fill: var(--block); }
table.grid { font-size: 12px; } table.grid td, table.grid th { padding: 2px 5px; }
table.grid td.ok { background: #dcf5e3; color: #14532d; text-align: center; }
table.grid td.bad { background: #fde2e1; color: #7f1d1d; }
table.grid td.task-pass { font-weight: 700; color: var(--pass); }
table.grid td.task-fail { font-weight: 700; color: var(--block); }
table.grid tr.critical td:first-child { border-left: 5px solid var(--block); }
table.grid tbody td:first-child { position: sticky; left: 0; background: #fff;
  min-width: 9em; }
.badge { font-size: .72rem; font-weight: 700; background: var(--block); color: #fff;
  padding: 0 4px; border-radius: 3px; margin-left: 4px; }
.badge, .sev { white-space: nowrap; overflow-wrap: normal; }
.note { color: #57606a; font-size: .9rem; } .cut { font-weight: 600; color: #7f1d1d; }
table.metrics tr.failed-row th { color: var(--block); }
h3 { font-size: 1rem; margin: 14px 0 4px; }
table.stack tbody th { min-width: 10em; }
@media (max-width: 600px) {
  table.stack, table.stack tbody, table.stack tr, table.stack th, table.stack td {
    display: block; }
  table.stack thead { display: none; }
  table.stack tr { border: 1px solid #d0d7de; border-radius: 4px; margin: 0 0 8px; }
  table.stack th, table.stack td { border: 0; padding: 2px 8px; min-width: 0; }
  table.stack tbody th { background: #f3f5f7; }
  table.stack td.num { text-align: left; }
  table.stack td[data-label]::before { content: attr(data-label) ": "; color: #57606a;
    font-size: .85em; }
  body { padding: 0 10px 30px; } .banner { padding: 12px 14px; }
  table.metrics, table.metrics tbody, table.metrics tr, table.metrics th { display: block; }
  table.metrics thead { display: none; }
  table.metrics tr { border: 1px solid #d0d7de; margin: 0 0 6px; }
  table.metrics th, table.metrics td { border: 0; padding: 2px 8px; }
  table.metrics td { display: inline-block; text-align: left; }
  table.metrics td[data-label]::before { content: attr(data-label) " "; color: #57606a;
    font-size: .85em; }
  table.grid, table.grid tbody, table.grid tr { display: block; }
  table.grid thead, table.grid td.ok, table.grid td:empty { display: none; }
  table.grid tr { border: 1px solid #d0d7de; margin: 0 0 6px; }
  table.grid td { display: inline-block; border: 0; padding: 1px 6px; margin: 1px 0; }
  table.grid tbody td:first-child { display: block; position: static; }
  table.grid td[data-label]::before { content: attr(data-label) ": "; color: #57606a;
    font-weight: 400; }
  .banner .action { font-size: 2rem; } .facts th { width: auto; }
  table.inputs .id { overflow-wrap: anywhere; }
  .banner .primary { font-size: .95rem; }
  .banner.CONTRACT_ERROR .action, .banner.INTERNAL_ERROR .action { font-size: 1.5rem; }
}
@media print {
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  body { font-size: 10pt; max-width: none; padding: 0; }
  h2 { break-after: avoid; }
  tr, .chart, .banner, #bootstrap, #slices { break-inside: avoid; }
  thead { display: table-header-group; } table.grid { font-size: 7.5pt; }
  .scroll { overflow: visible; }
  .id { overflow-wrap: anywhere; }
  table.grid tbody td:first-child { position: static; min-width: 0; }
  a { color: inherit; text-decoration: none; }
}
""".replace("@CHART_MIN@", str(MIN_DISPLAY_WIDTH)).replace(
    "@NARROW_CHART_MIN@", str(NARROW_MIN_DISPLAY_WIDTH)).replace(
    "@CHART_SWITCH@", str(CHART_SWITCH))


def escaped(text: object, limit: int = MAX_TEXT) -> str:
    """Text from the inputs as HTML: without control characters, cut to ``limit`` characters
    (an ellipsis says so), escaped (quotes too, so it may stand in an attribute)."""
    return escape(shorten(text, limit), quote=True)


# Where a long id may break: after a separator, never inside a word (so "test-safety" breaks
# as "test-" / "safety", not "test-saf" / "ety"); <wbr> adds no character to a copied id.
_ID_BREAKS = re.compile(r"([-_/.\\:])(?!$)")
_HEX_GROUP = re.compile(r"([0-9a-f]{16})(?=[0-9a-f])")


def breakable_id(text: object, limit: int = MAX_TEXT) -> str:
    """An id, path or version, escaped, breakable after its separators only."""
    return _ID_BREAKS.sub(r"\1<wbr>", escaped(text, limit))


def breakable_digest(text: object) -> str:
    """A hash (``sha256:`` and 64 hex digits): breakable between groups of 16 digits."""
    return _HEX_GROUP.sub(r"\1<wbr>", breakable_id(text))


def scrolling_chart(draw: Callable[[int], str]) -> str:
    """A chart, drawn by ``draw(width)`` at both its widths (:data:`~.svg.WIDTH` and
    :data:`~.svg.NARROW_WIDTH`), in its own scroll container: the stylesheet shows the wide
    one where it fits at a readable size (:data:`~.svg.MIN_DISPLAY_WIDTH`), else the narrow
    one, so that at any common width the whole chart is on the screen, never cut at its
    edge; on a window narrower still, the chart scrolls, never the page."""
    return '<div class="scroll">%s%s</div>' % (draw(WIDTH), draw(NARROW_WIDTH))


def scrolling_table(html_class: str, body: str) -> str:
    """A table in its own scroll container: on a narrow window the table scrolls, never the
    page (print shows it whole). A table of class ``stack`` whose cells name their column
    (``data-label``) becomes a card per row on a narrow window instead, whole on a phone's
    screen."""
    return '<div class="scroll">\n<table class="%s">\n%s\n</table>\n</div>' % (html_class, body)


def page_head(title: str) -> str:
    """A page's opening up to ``<body>``: the ``title`` (already escaped) and the
    stylesheet."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n" % (title, STYLE))
