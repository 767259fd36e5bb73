"""Where a run may write its reports and ``--output``: the paths checked before anything is
read. A path that is empty, stdout (``-``), the very file stdout or stderr writes to, an
input, or a file another report names already is never written; each is an error
(``cli.report_path``, exit 2) naming it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from ..errors import ContractError
from ..jsonio.atomic import is_stream
from ..text import quote

if TYPE_CHECKING:  # for annotations only
    from argparse import Namespace
    from typing import Protocol, TypeVar

    from ..reports.registry import Reported, Report

    class Named(Protocol):
        """What the path checks read of a report (or of ``--output`` beside them)."""

        @property
        def option(self) -> str: ...

        @property
        def name(self) -> str: ...

    NamedT = TypeVar("NamedT", bound=Named)

    class Input(Protocol):
        """What the path checks read of an input file (the gate's InputFile, a file a
        release reads)."""

        @property
        def kind(self) -> str: ...

        @property
        def path(self) -> Optional[str]: ...

        @property
        def shown(self) -> str: ...

# The path that means stdout on the command line: a report cannot go there (stdout carries
# the decision document), and it cannot be replaced atomically.
STDOUT_PATH = "-"


class OutputOption:
    """``--output`` among the reports, for the checks of their paths."""

    option = "--output"
    name = "output document"


OUTPUT_OPTION = OutputOption()


def requested(options: Namespace, kinds: Sequence[Report[Reported]]
              ) -> List[Tuple[Report[Reported], str]]:
    """(report, path) for every report option given, in the order of ``kinds``."""
    chosen = []
    for report in kinds:
        path = getattr(options, report.attribute, None)
        if path is not None:
            chosen.append((report, path))
    return chosen


def _same(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _standard_stream(path: str) -> Optional[str]:
    """"stdout" or "stderr" when ``path`` is the very file a standard stream writes to (for
    example /dev/stdout while stdout is redirected to a file), else None."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    for descriptor, name in ((1, "stdout"), (2, "stderr")):
        try:
            stream = os.fstat(descriptor)
        except OSError:
            continue
        if (stream.st_dev, stream.st_ino) == (info.st_dev, info.st_ino) and stream.st_ino:
            return name
    return None


def checked_paths(chosen: Sequence[Tuple[NamedT, str]], inputs: Sequence[Input]
                  ) -> Tuple[List[ContractError], List[Tuple[NamedT, str]]]:
    """(the errors, the (report, path) pairs of ``chosen`` that may be written): a path that
    is empty, stdout, stderr or an input (which a report must never overwrite) is never
    written, and of two reports naming one file only the first is."""
    errors: List[ContractError] = []
    usable: List[Tuple[NamedT, str]] = []
    inputs_at = {_same(item.path): item for item in inputs if item.path is not None}
    seen: Dict[str, str] = {}
    for report, path in chosen:
        if not path.strip():
            # An empty path is most often a variable a CI system sets and this shell has not
            # (GitHub Actions' GITHUB_STEP_SUMMARY, run locally).
            errors.append(path_error(path, "%s: the path is empty (a variable such as "
                                           "$GITHUB_STEP_SUMMARY, which only a CI job sets?)"
                                     % report.option))
            continue
        if path == STDOUT_PATH:
            errors.append(path_error(path, "%s cannot write to stdout (-): stdout carries the "
                                           "decision document; name a file" % report.option))
            continue
        place = _same(path)
        stream = _standard_stream(path)
        if stream:
            errors.append(path_error(path, "%s would overwrite %s, which carries the decision "
                                           "document or its errors" % (report.option, stream)))
        elif place in inputs_at:
            errors.append(path_error(path, "%s would overwrite the %s input file %s" % (
                report.option, inputs_at[place].kind, quote(inputs_at[place].shown))))
        elif place in seen and not is_stream(path):  # /dev/null takes any number
            errors.append(path_error(path, "%s and %s name the same file" % (
                seen[place], report.option)))
        else:
            seen[place] = report.option
            usable.append((report, path))
    return errors, usable


def path_error(path: str, message: str, code: str = "cli.report_path") -> ContractError:
    """An error of the report or output at ``path``."""
    return ContractError(code, message, (), path)
