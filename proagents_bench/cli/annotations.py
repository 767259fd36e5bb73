"""``--format github``: where each reason of the gate's decision points, for its annotations.

The gate drops its files' texts once they passed every check; the few annotations a decision
has are placed by reading the spec and the cases again (the bytes of standard input are
kept), each at most once, and only for this format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional, Sequence

from ..errors import ContractError, ContractErrors, Path
from ..reports import github

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import load
    from ..pipeline import InputFile
    from ..render.evaluation import Evaluation


def annotated(evaluation: Evaluation, inputs: Sequence[InputFile]) -> bytes:
    """The decision's annotations, each reason at its gate's line in the spec or its case's
    line in the cases file."""
    loaded: Dict[str, Optional[load.Document]] = {}

    def document(kind: str) -> Optional[load.Document]:
        if kind not in loaded:
            given = [item for item in inputs if item.kind == kind and item.path is not None]
            try:  # standard input is no file of the repository: no place
                loaded[kind] = given[0].load() if given else None
            except ContractErrors:  # changed since the gate read it
                loaded[kind] = None
        return loaded[kind]

    def locate(what: str, key: str) -> Optional[github.Place]:
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

    return github.render(evaluation, locate)
