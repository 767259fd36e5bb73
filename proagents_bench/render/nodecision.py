"""A run that ended without a decision, as the reports show it.

A report path named on the command line must never keep an earlier run's decision once a run
has ended without one: a CI job that uploads ``report.html`` after a failed gate would publish
a stale PASS. So a run that does not decide (a contract or command-line error, an internal
error, an interruption) replaces every report it was asked for by a page of that outcome:
:class:`NoDecision` is what those pages say, and each report module's ``render_no_decision``
draws it (HTML and Markdown: the outcome and its errors; JUnit: one test case in error).
"""

from __future__ import annotations

from typing import List, Sequence

from ..codes import USAGE_CODES
from ..contract.vocabulary import CONTRACT_ERROR
from ..errors import MAX_REPORTED_ERRORS, ContractError

INTERNAL_ERROR = "INTERNAL_ERROR"
INTERRUPTED = "INTERRUPTED"

# What each outcome means, in a few words, for the page's banner.
MEANINGS = {
    CONTRACT_ERROR: "the inputs or the command line break the contract: no decision was made",
    INTERNAL_ERROR: "proagents-bench failed with an internal error (a bug): no decision was "
                    "made",
    INTERRUPTED: "the run was stopped before it decided: no decision was made",
}

# A CONTRACT_ERROR whose every error is the command line's (codes.USAGE_CODES). Which help
# to see is said by each error (``(see init --help)``): the command's own.
USAGE_MEANING = "the command line cannot run as given: no decision was made"

# The most errors a page lists: as many as a CONTRACT_ERROR document holds.
MAX_ERRORS = MAX_REPORTED_ERRORS


class NoDecision:
    """A run without a decision: its ``action`` (one of :data:`MEANINGS`), the exit
    ``status`` it ends with, its errors (:class:`~proagents_bench.errors.ContractError`), how
    many more errors were found but not listed (``omitted``), and ``detail``: what stopped a
    run that has no errors to list (an internal error's message, the signal)."""

    def __init__(self, action: str, status: int, errors: Sequence[ContractError] = (),
                 omitted: int = 0, detail: str = "") -> None:
        self.action = action
        self.status = status
        self.errors = list(errors)
        self.omitted = omitted
        self.detail = detail  # what stopped the run, in words (an internal error's line)

    @property
    def meaning(self) -> str:
        if self.errors and all(error.code in USAGE_CODES for error in self.errors):
            return USAGE_MEANING  # the inputs were never read: they broke nothing
        return MEANINGS[self.action]

    @property
    def headline(self) -> str:
        """``CONTRACT_ERROR (exit 2): the inputs ... no decision was made``."""
        return "%s (exit %d): %s" % (self.action, self.status, self.meaning)

    def shown_errors(self) -> List[ContractError]:
        return self.errors[:MAX_ERRORS]

    @property
    def left_out(self) -> int:
        """Errors found but not listed on the page."""
        return self.omitted + max(len(self.errors) - MAX_ERRORS, 0)

