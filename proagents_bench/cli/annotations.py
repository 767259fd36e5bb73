"""Where each reason of the gate's decision points in its input files, for the reports that
put a reason on its line (``--format github``, the GitLab report: reports/view.py's
``placed_reasons``).

The gate drops its files' texts once they passed every check; the few reasons a decision
has are placed by reading the spec and the cases again (the bytes of standard input are
kept), each at most once, and only when such a report asks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional, Sequence

from ..errors import ContractError, ContractErrors, Path

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import load
    from ..pipeline import InputFile
    from ..render.evaluation import Locate, Place


def locator(inputs: Sequence[InputFile]) -> Locate:
    """The place of a gate at its line in the spec, or of a case at its object in the cases
    file, among ``inputs``; each file read again on first use, at most once."""
    loaded: Dict[str, Optional[load.Document]] = {}

    def document(kind: str) -> Optional[load.Document]:
        if kind not in loaded:
            given = [item for item in inputs if item.kind == kind and item.path is not None]
            try:  # standard input is no file of the repository: no place
                loaded[kind] = given[0].load() if given else None
            except ContractErrors:  # changed since the gate read it
                loaded[kind] = None
        return loaded[kind]

    def locate(what: str, key: str) -> Optional[Place]:
        found = document("spec" if what == "gate" else "cases")
        if found is None:
            return None
        if what == "gate":
            path: Path = ("gates", key)
        else:
            ids = [case.get("id") for case in found.value.get("cases", [])]
            if key not in ids:
                return None
            path = ("cases", ids.index(key))
        (placed,) = found.errors_at([ContractError("", "", path)])
        if placed.file is None or placed.line is None:
            return None
        return placed.file, placed.line, placed.column or 1

    return locate
