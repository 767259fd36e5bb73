"""``--format github``: the decision as GitHub Actions workflow commands, for a CI log.

GitHub turns each ``::error``/``::warning``/``::notice`` line of a step's output into an
annotation, shown on the run's summary and, where the line names a file and a line of the
pull request, on that line of its diff (as ruff's and other linters' ``github`` formats do).
So each reason of a REVIEW or BLOCK is one annotation on the line of the file it concerns
where there is one (a failed gate: its line in the spec; a failed critical task: its case's
line in the cases file), ``error`` for a blocking reason and ``warning`` for a reviewing
one, and the decision itself is a ``notice``, last. A run that ends without a decision
annotates each contract error where the gate placed it. The values are escaped as the
workflow-command syntax asks (``%``, CR, LF; in properties also ``:`` and ``,``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence

from ..contract.vocabulary import BLOCKING, INCOMPARABLE, REVIEWING
from ..version import NAME
from .view import placed_reasons

if TYPE_CHECKING:  # for annotations only
    from ..errors import ContractError
    from ..render.evaluation import Evaluation, Place

LEVELS = {BLOCKING: "error", REVIEWING: "warning"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, message: str, title: str = NAME,
               place: Optional[Place] = None) -> str:
    """One workflow command: ``::error file=F,line=L,col=C,title=T::MESSAGE``."""
    properties = []
    if place is not None:
        path, line, column = place
        properties += ["file=" + _property(path.replace("\\", "/")), "line=%d" % line,
                       "col=%d" % column]
    properties.append("title=" + _property(title))
    return "::%s %s::%s" % (level, ",".join(properties), _data(message))


def render(evaluation: Evaluation) -> bytes:
    """The annotations of a decision: each reason where it points (``evaluation.locate``),
    then the decision."""
    lines = []
    for reason in placed_reasons(evaluation):
        finding = reason.finding
        lines.append(annotation(LEVELS[finding.severity], finding.reason, "%s %s: %s" % (
            NAME, evaluation.action, finding.code), reason.place))
    if evaluation.action == INCOMPARABLE:  # its reasons have no finding
        lines += [annotation("error", reason, "%s %s" % (NAME, evaluation.action))
                  for reason in evaluation.decision.reasons]
    primary = evaluation.decision.reasons[0] if evaluation.decision.reasons else \
        "every gate held"
    lines.append(annotation("notice", "%s: %s" % (evaluation.action, primary),
                            "%s %s" % (NAME, evaluation.action)))
    return _joined(lines)


def render_errors(errors: Sequence[ContractError], omitted: int = 0) -> bytes:
    """The annotations of a run that ended with contract errors, each where it was placed."""
    lines = []
    for error in errors:
        place = (error.file, error.line or 1, error.column or 1) if error.file else None
        lines.append(annotation("error", "%s: %s" % (error.as_dict()["path"], error.message),
                                "%s CONTRACT_ERROR: %s" % (NAME, error.code), place))
    if omitted:
        lines.append(annotation("error", "%d more errors not shown" % omitted,
                                "%s CONTRACT_ERROR" % NAME))
    return _joined(lines)


def _joined(lines: List[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("ascii", "backslashreplace")
