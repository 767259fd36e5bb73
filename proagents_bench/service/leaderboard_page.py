"""The leaderboard's page, ``GET /``: one self-contained HTML page (no script, no external
asset, every value escaped) of the boards :func:`.leaderboard.boards` makes, the first one
the latest result, with how rows are chosen and ranked under them. Each board's table fits a
phone's screen (a final board's in 390 pixels, the others scrolling inside their frame).
"""

from __future__ import annotations

import html
import time
from typing import Dict, List, Optional, Tuple

from ..version import VERSION
from . import versions
from .leaderboard import (CHOSEN_BY_DEFAULT, CHOSEN_BY_TEAM, FINAL, PUBLIC, RANKING_NOTE,
                          ROW_RULE, Board, Entry, boards)

DIGEST_SHOWN = 12  # hex digits of a SHA-256 shown; the whole one is the cell's tooltip
CHOSEN_SHOWN = {CHOSEN_BY_TEAM: "by the team", CHOSEN_BY_DEFAULT: "last (default)"}

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #1a1a1a; max-width: 72em; }
h1 { font-size: 1.5em; margin: 0 0 .3em; } h2 { font-size: 1.15em; margin: 1.6em 0 .3em; }
h2 span.versions { display: block; font-size: .8em; font-weight: normal; color: #444;
                   overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin-top: .5em; }
th, td { border-bottom: 1px solid #ccc; padding: .35em .5em; text-align: left;
         vertical-align: top; }
th { background: #f2f2f2; } td.num, th.num { text-align: right;
                                            font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
td.name { font-weight: 600; overflow-wrap: anywhere; min-width: 7em; max-width: 16em; }
td.name code { font-weight: normal; } td.decision { overflow-wrap: anywhere; }
table.final td.name { min-width: 0; } table.final td.name code { font-size: .75em; }
td.plain { white-space: nowrap; } tr.revoked td { color: #777; }
tr.revoked td.name { text-decoration: line-through; }
code { font-size: .85em; } p.note, p.empty { color: #444; overflow-wrap: anywhere; }
div.table { overflow-x: auto; } div.table table { min-width: 40em; }
@media (max-width: 40em) { body { margin: 1em; } th, td { padding: .3em .35em; }
                           h2 { margin-top: 1.2em; }
                           table.final th, table.final td { padding: .3em .2em; }
                           table.final th { font-size: .85em; } }
"""


def _cell(value: object, kind: str = "plain") -> str:
    return '<td class="%s">%s</td>' % (kind, html.escape(str(value)))


def show_score(score: float) -> str:
    """A released score with at most four decimals and at least one (``1.0``, ``0.8``)."""
    text = ("%.4f" % score).rstrip("0")
    return text + "0" if text.endswith(".") else text


def _digest(sha256: str) -> str:
    """The SHA-256 shortened, the whole value in its tooltip ("-" when there is none)."""
    if not sha256:
        return "-"
    return '<code title="%s">%s&hellip;</code>' % (html.escape(sha256),
                                                   html.escape(sha256[:DIGEST_SHOWN]))


def _heading(board: Board) -> str:
    """The board's title (what it is scored on, first: it is what tells the boards apart),
    its benchmark's versions on a line of their own."""
    if board.phase is None:  # the board of every test case (no phase)
        where = "every test case"
    elif board.kind == PUBLIC:
        where = "phase %s, public board" % board.phase.name
    else:
        where = "phase %s, final board" % board.phase.name
    tail = "" if board.current or board.kind == FINAL else (
        " (earlier; not ranked with the current one)")
    return '<h2>%s%s%s<span class="versions">%s</span></h2>' % (
        html.escape(where), " (current)" if board.current else "", html.escape(tail),
        html.escape("%s %s, dataset %s" % board.versions))


def _phase_note(board: Board) -> str:
    phase = board.phase
    if phase is None:
        return ""
    if board.kind == PUBLIC:
        text = ("Scored on the public part: %d of %d test cases. The private part is scored "
                "once, when the phase closes, on the submission%s each team chose (%s; by "
                "default its last). Phase %s; the split's seed has SHA-256 %s." % (
                    phase.public_count, phase.public_count + phase.private_count,
                    "" if phase.choices == 1 else "s",
                    "one" if phase.choices == 1 else "up to %d" % phase.choices,
                    phase.status, phase.commitment))
    else:
        text = ("Scored on the private part only (%d test cases), which no answer during the "
                "phase depended on%s. The seed, now published, is %s: the split can be "
                "recomputed and checked against its SHA-256." % (
                    phase.private_count, "" if phase.choices == 1 else (
                        "; of up to %d chosen submissions a team's row is its best"
                        % phase.choices), phase.seed))
    return '<p class="note">%s</p>' % html.escape(text)


def _version_notes(database_path: str, benchmark_id: str) -> Dict[Tuple[str, str, str], str]:
    """A note per dataset version that follows another: what changed in its public fields
    (the details: GET /v1/versions)."""
    notes: Dict[Tuple[str, str, str], str] = {}
    for version in versions.served(database_path, benchmark_id)["versions"]:
        changes = version["public_changes"]
        if changes is None:
            continue
        summary = changes["summary"]
        previous = version["previous"]
        text = ("Dataset %s follows %s %s, dataset %s: %d test or public cases added, %d "
                "removed, %d changed in their public fields%s. Withheld answers take no part "
                "in this comparison; GET /v1/versions lists each change and what it breaks." % (
                    version["dataset_version"], benchmark_id, previous["benchmark_version"],
                    previous["dataset_version"], summary["added"], summary["removed"],
                    summary["changed"], "; it requires " + ", ".join(changes["requires"])
                    if changes["requires"] else ""))
        notes[(benchmark_id, version["benchmark_version"], version["dataset_version"])] = (
            '<p class="note">%s</p>' % html.escape(text))
    return notes


def _rank_cell(entry: Entry) -> str:
    if entry.revoked:
        return _cell("revoked")
    if entry.rank is None:
        return _cell("-", "num")
    return _cell(("=%d" if entry.tied else "%d") % entry.rank, "num")


def _table(board: Board) -> List[str]:
    if board.kind == FINAL:
        return _final_table(board)
    if board.entries and not any(entry.scored for entry in board.entries):
        return ['<p class="empty">No scored submission yet. Taking part: %s.</p>' % (
            html.escape(", ".join(entry.team for entry in board.entries)))]
    heads = ["rank", "team", "released score", "precision", "decision", "scored",
             "feedback level", "budget", "submission"]
    parts = ['<div class="table"><table><thead><tr>%s</tr></thead><tbody>' % "".join(
        "<th>%s</th>" % head for head in heads)]
    if not board.entries:
        parts.append('<tr><td colspan="%d">No team yet.</td></tr>' % len(heads))
    for entry in board.entries:
        result = entry.result
        cells = [_rank_cell(entry), _name_cell(entry), _cell(
            show_score(result.score) if result else "not released" if entry.scored
            else "no submission", "num"),
            _cell(result.describe() if result else "-"), _cell(entry.decision or "-"),
            _cell(entry.scored, "num"), _cell(entry.level), _cell(entry.budget),
            "<td>%s</td>" % _digest(entry.sha256)]
        parts.append(_row(entry, cells))
    parts.append("</tbody></table></div>")
    return parts


def _final_table(board: Board) -> List[str]:
    """The final board, narrow enough to be whole on a phone's screen: the submission's
    SHA-256 under the team's name rather than in a column of its own."""
    parts = ['<table class="final"><thead><tr><th>rank</th><th>team, submission</th>'
             '<th class="num">private score</th><th>decision</th><th>chosen</th></tr>'
             '</thead><tbody>']
    if not board.entries:
        parts.append('<tr><td colspan="5">No submission was scored.</td></tr>')
    for entry in board.entries:
        parts.append(_row(entry, [
            _rank_cell(entry), _name_cell(entry, "<br>" + _digest(entry.sha256)),
            _cell(show_score(entry.result.score) if entry.result else "none", "num"),
            _cell(entry.decision or "-", "decision"),
            _cell(CHOSEN_SHOWN.get(entry.chosen or "", entry.chosen or "-"), "chosen")]))
    parts.append("</tbody></table>")
    return parts


def _name_cell(entry: Entry, below: str = "") -> str:
    """The team's name (marked when revoked), and ``below`` it some HTML."""
    return '<td class="name">%s%s</td>' % (
        html.escape(entry.team + (" (revoked)" if entry.revoked else "")), below)


def _row(entry: Entry, cells: List[str]) -> str:
    return '<tr%s>%s</tr>' % (' class="revoked"' if entry.revoked else "", "".join(cells))


def render(database_path: str, current: Tuple[str, str, str],
           now: Optional[float] = None) -> bytes:
    """The page's bytes (UTF-8): the boards first, the first one the latest result (see
    :func:`boards`); how rows are chosen and ranked after them."""
    moment = time.time() if now is None else now
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>Leaderboard: %s</title>" % html.escape(current[0]),
             "<style>%s</style></head><body>" % _STYLE,
             "<h1>Leaderboard: %s</h1>" % html.escape(current[0]),
             '<p class="note">Results are self-reported: the service grades the records each '
             "team submits with the same gate as <code>run_benchmark.py</code>, not the agent "
             "itself. How each row is chosen and ranked is said below the boards.</p>"]
    changes = _version_notes(database_path, current[0])
    for board in boards(database_path, current):
        parts.append(_heading(board))
        if board.kind == FINAL:  # the table first: it is the answer
            parts.extend(_table(board))
            parts.append(_phase_note(board))
            continue
        parts.append(_phase_note(board))
        parts.append(changes.get(board.versions, ""))
        parts.extend(_table(board))
    parts.append("<h2>How rows are chosen and ranked</h2>")
    parts.append('<p class="note">%s Scores are what each team\'s feedback level released, '
                 "with their precision. %s A team at the verdict level shows its decision "
                 "only and is not ranked. Each dataset version and phase is ranked on its "
                 "own.</p>" % (html.escape(ROW_RULE), html.escape(RANKING_NOTE)))
    parts.append('<p class="note">proagents-bench %s; page made %s.</p></body></html>' % (
        html.escape(VERSION), time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(moment))))
    return ("\n".join(part for part in parts if part) + "\n").encode("utf-8")
