"""The leaderboard: ``GET /``, one self-contained HTML page (no script, no external asset,
every value escaped).

One table per benchmark and dataset version (the service's current one first): a new
``dataset_version`` is never ranked with an old one. Per team: its best released result, its
submission counts, its feedback level and budget, and the SHA-256 of the submission behind
the result. Teams with a released score are ranked by it (higher first; a tie goes to the
earlier submission); a team whose level releases no score (``verdict``) shows its best action
and is not ranked. The scores are those the teams' levels released (rounded, Ladder or
exact), and the results are self-reported: the service grades the records a team sends, not
its agent.
"""

from __future__ import annotations

import html
import sqlite3
import time
from typing import Dict, List, Optional, Tuple

from ..contract.vocabulary import ACTIONS
from ..version import VERSION
from . import budget, database
from .submissions import SCORED

_ACTION_RANK = {action: index for index, action in enumerate(ACTIONS)}

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #1a1a1a; max-width: 72em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; width: 100%; margin-top: .5em; }
th, td { border-bottom: 1px solid #ccc; padding: .35em .6em; text-align: left;
         vertical-align: top; }
th { background: #f2f2f2; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.name { white-space: nowrap; font-weight: 600; } td.plain { white-space: nowrap; }
code { font-size: .8em; word-break: break-all; } p.note { color: #444; }
div.table { overflow-x: auto; } div.table table { min-width: 48em; }
@media (max-width: 40em) { body { margin: 1em; } }
"""


class Entry:
    """One team's row in one version group."""

    def __init__(self, team: str, level: str, budget_text: str, scored: int) -> None:
        self.team = team
        self.level = level
        self.budget = budget_text
        self.scored = scored
        self.score: Optional[float] = None
        self.score_time: Optional[float] = None
        self.sha256 = ""
        self.best_action: Optional[str] = None

    def sort_key(self) -> tuple:
        if self.score is not None:
            return (0, -self.score, self.score_time, self.team)
        return (1, _ACTION_RANK.get(self.best_action, len(ACTIONS)), 0, self.team)


def groups(database_path: str, current: Tuple[str, str, str]) -> List[Tuple[Tuple[str, str, str],
                                                                           List[Entry]]]:
    """[(benchmark id, benchmark version, dataset version), ranked entries], current first."""
    with database.connection(database_path) as opened:
        opened.row_factory = sqlite3.Row
        rows = opened.execute(
            "SELECT t.name, t.feedback_level, t.budget_count, t.budget_window_seconds, "
            "s.benchmark_id, s.benchmark_version, s.dataset_version, s.action, "
            "s.score_released, s.released_score, s.received_at, s.sha256, s.id "
            "FROM submissions s JOIN teams t ON t.id = s.team_id WHERE s.outcome = ? "
            "ORDER BY s.received_at, s.id", (SCORED,)).fetchall()
        active = opened.execute(
            "SELECT name, feedback_level, budget_count, budget_window_seconds FROM teams "
            "WHERE revoked = 0 ORDER BY name").fetchall()
    found: Dict[Tuple[str, str, str], Dict[str, Entry]] = {current: {}}
    for team in active:  # every team takes part in the current version, scored or not yet
        found[current][team["name"]] = Entry(
            team["name"], team["feedback_level"],
            budget.describe(team["budget_count"], team["budget_window_seconds"]), 0)
    latest: Dict[Tuple[str, str, str], float] = {}
    for row in rows:
        key = (row["benchmark_id"], row["benchmark_version"], row["dataset_version"])
        latest[key] = row["received_at"]
        entries = found.setdefault(key, {})
        entry = entries.get(row["name"])
        if entry is None:
            entry = entries[row["name"]] = Entry(
                row["name"], row["feedback_level"],
                budget.describe(row["budget_count"], row["budget_window_seconds"]), 0)
        entry.scored += 1
        if entry.best_action is None or (_ACTION_RANK[row["action"]]
                                         < _ACTION_RANK[entry.best_action]):
            entry.best_action = row["action"]
            if entry.score is None:
                entry.sha256 = row["sha256"]
        if row["score_released"] and (entry.score is None or row["released_score"] > entry.score):
            entry.score = row["released_score"]
            entry.score_time = row["received_at"]
            entry.sha256 = row["sha256"]
    order = sorted(found, key=lambda key: (key != current, -latest.get(key, 0.0), key))
    return [(key, sorted(found[key].values(), key=Entry.sort_key)) for key in order]


def _cell(value: object, kind: str = "plain") -> str:
    return '<td class="%s">%s</td>' % (kind, html.escape(str(value)))


def show_score(score: float) -> str:
    """A released score with at most four decimals and at least one (``1.0``, ``0.8``)."""
    text = ("%.4f" % score).rstrip("0")
    return text + "0" if text.endswith(".") else text


def render(database_path: str, current: Tuple[str, str, str],
           now: Optional[float] = None) -> bytes:
    """The page's bytes (UTF-8)."""
    moment = time.time() if now is None else now
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>Leaderboard: %s</title>" % html.escape(current[0]),
             "<style>%s</style></head><body>" % _STYLE,
             "<h1>Leaderboard: %s</h1>" % html.escape(current[0]),
             '<p class="note">Results are self-reported: the service grades the records each '
             "team submits with the same gate as <code>run_benchmark.py</code>, not the agent "
             "itself. Scores are what each team's feedback level released (rounded, Ladder or "
             "exact); a team at the verdict level shows its best decision only. Each dataset "
             "version is ranked on its own.</p>"]
    for key, entries in groups(database_path, current):
        parts.append("<h2>%s %s, dataset %s%s</h2>" % (
            html.escape(key[0]), html.escape(key[1]), html.escape(key[2]),
            " (current)" if key == current else " (earlier dataset; not ranked with the "
                                                "current one)"))
        parts.append('<div class="table"><table><thead><tr><th>rank</th><th>team</th>'
                     '<th>best released result</th><th>best decision</th>'
                     '<th>scored submissions</th>'
                     '<th>feedback level</th><th>budget</th><th>benchmark version</th>'
                     '<th>dataset version</th><th>submission sha256</th></tr></thead><tbody>')
        if not entries:
            parts.append('<tr><td colspan="10">No team yet.</td></tr>')
        rank = 0
        for entry in entries:
            if entry.score is not None:
                rank += 1
            parts.append("<tr>" + "".join([
                _cell(rank if entry.score is not None else "-", "num"),
                _cell(entry.team, "name"),
                _cell(show_score(entry.score) if entry.score is not None else "not released",
                      "num"),
                _cell(entry.best_action or "-"), _cell(entry.scored, "num"),
                _cell(entry.level),
                _cell(entry.budget), _cell(key[1]), _cell(key[2]),
                "<td><code>%s</code></td>" % html.escape(entry.sha256)]) + "</tr>")
        parts.append("</tbody></table></div>")
    parts.append('<p class="note">proagents-bench %s; page made %s.</p></body></html>' % (
        html.escape(VERSION), time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(moment))))
    return ("\n".join(parts) + "\n").encode("utf-8")
