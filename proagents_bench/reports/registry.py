"""The reports a command can write beside its JSON document, a row each, and the text mode's
renderers: the one place that names them.

A row holds its option, its name for messages, its help and a loader: a small function that
imports the renderer's module and returns it, typed by what the module must offer
(:class:`ReportModule`). The loader runs only when the report is asked for, so a run without
reports (the usual one) never compiles a renderer; and the import inside it is an ordinary
``from . import html``, which the layer test reads and mypy checks against the protocol, as
it would a call.

Adding a report: its module (``render`` and ``render_no_decision``) and its row here
(docs/development.md, the recipes).
"""

from __future__ import annotations

from typing import (TYPE_CHECKING, Callable, Generic, List, Optional, Protocol, Sequence, Tuple,
                    TypeVar)

if TYPE_CHECKING:  # for annotations only
    from ..explain.explanation import Explained
    from ..maintenance.health_figures import Health
    from ..pipeline import Evaluation
    from ..release_outcome import Release
    from ..render.nodecision import NoDecision

# What a report reports: the gate's Evaluation, health's Health, a Release.
Reported = TypeVar("Reported", contravariant=True)


class ReportModule(Protocol[Reported]):
    """A report's renderer module: the report of a result, and of a run that ended without
    one (:class:`~proagents_bench.render.nodecision.NoDecision`: no report may keep an
    earlier run's result)."""

    def render(self, __decided: Reported) -> bytes: ...

    def render_no_decision(self, __outcome: NoDecision) -> bytes: ...


class TextModule(Protocol[Reported]):
    """The text mode's renderer of a decision (stdout at a terminal, ``--format text``) and
    its few lines for stderr (``--summary``)."""

    def render(self, __decided: Reported, __width: int, __colour: bool,
               __hints: Sequence[str]) -> bytes: ...

    def summary_lines(self, __decided: Reported) -> List[str]: ...


class NoDecisionText(Protocol):
    """The text mode's line for a run without a decision (every command's)."""

    def no_decision(self, __outcome: NoDecision, __hint: Optional[str]) -> bytes: ...


class Report(Generic[Reported]):
    """One kind of report: its command-line ``option`` (``--html``; ``attribute`` on the
    parsed options), its ``kind`` (``html``, ``markdown``, ``junit``: ``--markdown`` and
    ``--markdown-append`` are both ``markdown``; a release keeps each benchmark's reports by
    it), its ``name`` for messages, the option's ``help``, the ``load``er of its renderer,
    and whether it is ``append``ed to its file rather than replacing it."""

    def __init__(self, option: str, kind: str, name: str, help: str,
                 load: Callable[[], ReportModule[Reported]], append: bool = False) -> None:
        self.option = option
        self.attribute = option[2:].replace("-", "_")
        self.kind = kind
        self.name = name
        self.help = help
        self.load = load
        self.append = append  # added to the end of the file, not replacing it

    def render(self, decided: Reported) -> bytes:
        """The report of ``decided``."""
        return self.load().render(decided)

    def render_no_decision(self, outcome: NoDecision) -> bytes:
        """The report of a run without a result."""
        return self.load().render_no_decision(outcome)


def _html() -> ReportModule[Evaluation]:
    from . import html
    return html


def _markdown() -> ReportModule[Evaluation]:
    from . import markdown
    return markdown


def _junit() -> ReportModule[Evaluation]:
    from . import junit
    return junit


def _gitlab() -> ReportModule[Evaluation]:
    from . import gitlab
    return gitlab


def _explain_html() -> ReportModule[Explained]:
    from . import explain_html
    return explain_html


def _explain_markdown() -> ReportModule[Explained]:
    from . import explain_markdown
    return explain_markdown


def _health_html() -> ReportModule[Health]:
    from . import health_html
    return health_html


def _health_markdown() -> ReportModule[Health]:
    from . import health_markdown
    return health_markdown


def _release_html() -> ReportModule[Release]:
    from . import release_html
    return release_html


def _release_markdown() -> ReportModule[Release]:
    from . import release_markdown
    return release_markdown


def _release_junit() -> ReportModule[Release]:
    from . import release_junit
    return release_junit


APPEND_HELP = ("also append the Markdown summary to PATH, keeping what it holds (GitHub "
               "Actions: \"$GITHUB_STEP_SUMMARY\")")

# The gate's reports.
HTML = Report("--html", "html", "HTML report", "also write the HTML report to PATH", _html)
MARKDOWN = Report("--markdown", "markdown", "Markdown summary", "also write a Markdown "
                  "summary to PATH, replacing the file (for a CI step summary, use "
                  "--markdown-append)", _markdown)
JUNIT = Report("--junit-xml", "junit", "JUnit XML report", "also write a JUnit XML report to "
               "PATH (GitLab, Jenkins)", _junit)
MARKDOWN_APPEND = Report("--markdown-append", "markdown", "appended Markdown summary",
                         APPEND_HELP, _markdown, append=True)
GITLAB = Report("--gitlab-codequality", "codequality", "GitLab Code Quality report",
                "also write GitLab's Code Quality report to PATH (artifacts: reports: "
                "codequality): each reason of a REVIEW or BLOCK, and each contract error, at "
                "its file's line", _gitlab)
REPORTS: Tuple[Report[Evaluation], ...] = (HTML, MARKDOWN, JUNIT, GITLAB, MARKDOWN_APPEND)

# The health command's reports (see proagents_bench.maintenance.health); a run without a
# result gets the gate's page of such a run.
HEALTH_REPORTS: Tuple[Report[Health], ...] = (
    Report("--html", "html", "HTML health report", "also write the HTML health report "
           "to PATH", _health_html),
    Report("--markdown", "markdown", "Markdown health summary", "also write a "
           "Markdown summary of the health to PATH, replacing the file", _health_markdown),
    Report("--markdown-append", "markdown", "appended Markdown health summary",
           APPEND_HELP, _health_markdown, append=True),
)


# explain's reports: the gate's HTML page and Markdown summary, each with the explanation in
# it (the page: a folded section per task explained, reached from each reason it explains).
EXPLAIN_REPORTS: Tuple[Report[Explained], ...] = (
    Report("--html", "html", "HTML report", "also write the gate's HTML report to PATH, each "
           "task explained in a folded section that its reasons link to", _explain_html),
    Report("--markdown", "markdown", "Markdown summary", "also write the gate's Markdown "
           "summary to PATH with each task explained in a line, replacing the file",
           _explain_markdown),
    Report("--markdown-append", "markdown", "appended Markdown summary", APPEND_HELP,
           _explain_markdown, append=True),
)


def _release(section: Report[Evaluation], load: Callable[[], ReportModule[Release]]
             ) -> Report[Release]:
    """The release's report of the gate's report ``section``: its option, kind and name,
    rendered by a release module around each benchmark's own report of that kind (rendered
    where the benchmark is decided, exactly as its gate alone writes it)."""
    return Report(section.option, section.kind, section.name, section.help, load,
                  section.append)


# The release's reports: the gate's options, each rendered by a release module.
RELEASE_REPORTS: Tuple[Report[Release], ...] = (
    _release(HTML, _release_html), _release(MARKDOWN, _release_markdown),
    _release(JUNIT, _release_junit), _release(MARKDOWN_APPEND, _release_markdown))


def gate_text() -> TextModule[Evaluation]:
    """The gate's text mode (imported only when a person is to read the run)."""
    from . import terminal
    return terminal


def release_text() -> TextModule[Release]:
    """The release's text mode."""
    from . import release_terminal
    return release_terminal


def explain_text() -> TextModule[Explained]:
    """explain's text mode."""
    from . import explain_text
    return explain_text


def no_decision_text() -> NoDecisionText:
    """The text mode of a run without a decision, the gate's for every command."""
    from . import terminal
    return terminal
