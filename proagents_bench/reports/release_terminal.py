"""The release's words for a person at a terminal: its text mode (``release --format text``,
the default when stdout is a terminal) and its short summary on stderr (``--summary``), as
the gate's (:mod:`.terminal`): ASCII, every text from the inputs cleaned, colour only on a
terminal that takes it, and the decision and its reasons last, where a terminal keeps them in
view.

The text mode shows a row per benchmark (its tier, its own decision, what it makes of the
release, both systems' task success and the paired difference), the multiplicity table, the
notes, where the rest is, then the release's decision and its reasons. Each benchmark's own
section is in the JSON document and the reports (``release --html``); a line says how to see
one benchmark alone (its gate, on its files).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Sequence, Tuple

from ..contract.vocabulary import BLOCK, INCOMPARABLE, REVIEW
from .release_view import ACTION_WORDS, hypothesis_text, rows
from .terminal import ACTION_COLOURS, BOLD, DIM, Painter, _plain, _wrap

if TYPE_CHECKING:  # for annotations only
    from ..release_outcome import Release


MAX_ROWS = 40
MAX_REASONS = 12

# How each reason of the release is tagged: its group's action ("INCOMPARABLE" and two spaces).
_REASON_TAGS = (INCOMPARABLE, BLOCK, REVIEW)
TAG_WIDTH = 14


def _table(header: Sequence[str], body: List[Sequence[str]], paint: Painter) -> List[str]:
    widths = [max(len(row[column]) for row in [header] + body) for column in range(len(header))]
    lines = [paint("  ".join(cell.ljust(width) for cell, width in zip(header, widths)).rstrip(),
                   BOLD)]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
              for row in body]
    return lines


def render(release: "Release", width: int = 100, colour: bool = False,
           hints: Sequence[str] = ()) -> bytes:
    """The text mode's bytes (ASCII) for a :class:`~proagents_bench.release_outcome.Release`."""
    paint = Painter(colour)
    decision = release.decision
    found = rows(release)
    shown = found[:MAX_ROWS]
    lines = _table(("Benchmark", "Tier", "Decision", "Release", "Candidate vs baseline",
                    "Difference [interval]"),
                   [(_plain(row.name, 64), row.tier, row.action, row.effect, row.rates(),
                     _plain(row.difference()).replace("\u2014", "-")) for row in shown],
                   paint)
    lines += ["", paint("Many comparisons at once: Holm over %d hypotheses at family-wise "
                        "level %s" % (decision.hypothesis_count, decision.level), BOLD)]
    lines += _table(("Benchmark", "Favour cand./base.", "Regression", "Improvement",
                     "Release reports", "Alone"),
                    [(_plain(row.name, 64), _plain(row.discordant()),
                      _plain(hypothesis_text(row.regression)),
                      _plain(hypothesis_text(row.improvement)), row.result,
                      row.result_alone) for row in shown], paint)
    if len(found) > MAX_ROWS:
        lines.append("%d more benchmarks (see the JSON document)" % (len(found) - MAX_ROWS))
    lines.append("")
    if decision.notes:
        lines.append("Notes (never a reason)")
        for note in decision.notes:
            wrapped = _wrap(_plain(note, 600), width, 4)
            lines += ["  - " + wrapped[0]] + ["    " + line for line in wrapped[1:]]
        lines.append("")
    lines.append(paint("release %s, evidence %s; one benchmark alone: its gate on its files "
                       "(its section of --html shows its report)" % (
                           _plain(release.manifest.value["release_id"], 80),
                           release.fingerprint), DIM))
    lines += [paint(hint, DIM) for hint in hints] + [""]
    action = decision.action
    lines.append("%s  %s" % (paint(action, BOLD, ACTION_COLOURS.get(action, BOLD)),
                             paint(ACTION_WORDS[action], BOLD)))
    lines += _reasons(release, width, paint)
    return ("\n".join(lines) + "\n").encode("ascii", "backslashreplace")


def _tagged(release: "Release") -> List[Tuple[str, str]]:
    """(action, reason) of every reason of the release, in its order."""
    decision = release.decision
    tagged = [(effect, reason) for effect, reason in zip(decision.effects,
                                                         decision.tier_reasons)
              if reason is not None]
    tagged += [(REVIEW, reason) for reason in decision.regression_reasons
               if reason is not None]
    return sorted(tagged, key=lambda item: _REASON_TAGS.index(item[0]))


def _reasons(release: "Release", width: int, paint: Painter) -> List[str]:
    tagged = _tagged(release)
    if not tagged:
        return [" " * TAG_WIDTH + line for line in _wrap(_plain(
            release.decision.reasons[0], 2000), width, TAG_WIDTH)]
    lines = []
    for action, reason in tagged[:MAX_REASONS]:
        wrapped = _wrap(_plain(reason, 600), width, TAG_WIDTH)
        lines.append(paint(action.ljust(TAG_WIDTH), BOLD, ACTION_COLOURS.get(action, BOLD))
                     + wrapped[0])
        lines.extend(" " * TAG_WIDTH + line for line in wrapped[1:])
    if len(tagged) > MAX_REASONS:
        lines.append(" " * TAG_WIDTH + "%d more reasons (see the JSON document)" % (
            len(tagged) - MAX_REASONS))
    return lines


def summary_lines(release: "Release") -> List[str]:
    """A few lines for stderr: the release's decision and primary reason, a line per
    benchmark (its tier, its decision, what it makes of the release, its discordant tasks),
    the adjustment, and the notes."""
    decision = release.decision
    lines = ["proagents-bench release %s: %s: %s" % (
        _plain(release.manifest.value["release_id"], 80), decision.action,
        _plain(decision.reasons[0], 600))]
    more = len(decision.reasons) - 1
    if more:
        lines.append("  and %d more reason%s in the document" % (more, "" if more == 1 else "s"))
    found = rows(release)
    name_width = max(len(_plain(row.name, 64)) for row in found)
    for row in found[:MAX_ROWS]:
        lines.append("  %-10s %-*s %-12s -> release %-12s units favouring candidate/baseline %s" % (
            row.tier, name_width, _plain(row.name, 64), row.action, row.effect,
            _plain(row.discordant()).replace("\u2014", "-")))
    lines.append("  Holm over %d hypotheses at family-wise level %s" % (
        decision.hypothesis_count, decision.level))
    lines.extend("  note: %s" % _plain(note, 600) for note in decision.notes)
    return lines
