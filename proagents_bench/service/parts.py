"""A phase's secret split of the test cases, and the files of one part of it.

The split (:func:`split_test_cases`) is a pure function of the cases and a secret seed: the
test cases are grouped by ``family_id`` (related cases never straddle the two parts, so the
public part's feedback says nothing about a private case of the same family); each family's
key is HMAC-SHA256(seed, family_id in UTF-8); families in the order of their keys go to the
private part until it holds at least ``round(share x test cases)`` cases (halves up). The
same seed gives the same split on every machine, whatever the order of the cases; anyone
can recompute it once the seed is published.

A part is decided by the very same gate, from the one check of the whole package, on the
part's test cases only (:meth:`proagents_bench.pipeline.Checked.decide`), which is exactly
the gate's decision on the files cut down to the part (:class:`Part`): the cases file keeps
every train and development case and only the part's test cases, and a results package
keeps only those test cases' records. Both are cut out of the original texts, so every
number keeps its exact written form. The files are made where a file is what is wanted: at
``phase open``, to check that the maintainer's baseline passes the contract on each part,
and for what a part's decision says of its input files (the ``full`` level).
"""

from __future__ import annotations

import hashlib
import hmac
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Mapping, Sequence

from ..contract.vocabulary import TEST_SPLIT
from ..jsonio import load

if TYPE_CHECKING:  # for annotations only
    from ..errors import Path
    from ..jsonio import JSONObject



class SplitError(ValueError):
    """A split that would leave a part empty; the message says why."""


def family_key(seed: bytes, family_id: str) -> bytes:
    return hmac.new(seed, family_id.encode("utf-8"), hashlib.sha256).digest()


def split_test_cases(cases: JSONObject, seed: bytes, private_share: Fraction) -> List[str]:
    """The ids of the private part's test cases, in the cases file's order; both parts
    non-empty (:class:`SplitError` otherwise)."""
    tests = [case for case in cases["cases"] if case["split"] == TEST_SPLIT]
    families: Dict[str, int] = {}
    for case in tests:
        families[case["family_id"]] = families.get(case["family_id"], 0) + 1
    target = math.floor(private_share * len(tests) + Fraction(1, 2))
    chosen = set()
    count = 0
    for family in sorted(families, key=lambda name: family_key(seed, name)):
        if count >= target:
            break
        chosen.add(family)
        count += families[family]
    if count == 0 or count == len(tests):
        raise SplitError("a private share of %s of %d test cases in %d families leaves %s "
                         "part empty" % (private_share, len(tests), len(families),
                                         "the private" if count == 0 else "the public"))
    return [case["id"] for case in tests if case["family_id"] in chosen]


def commitment(seed: bytes) -> str:
    """The published commitment to a seed: the hex SHA-256 of its bytes."""
    return hashlib.sha256(seed).hexdigest()


def cut(document: load.Document, arrays: Mapping[Path, Sequence[int]]) -> bytes:
    """The document's text with each array at a path of ``arrays`` holding only the
    elements at the given indexes (in their order), as UTF-8."""
    paths = sorted(arrays)
    elements = [path + (index,) for path in paths for index in arrays[path]]
    spans = document.spans(list(paths) + elements)
    text = document.text
    array_spans = dict(zip(paths, spans))
    element_texts: Dict[Path, List[str]] = {path: [] for path in paths}
    for element, (start, end) in zip(elements, spans[len(paths):]):
        element_texts[element[:-1]].append(text[start:end])
    pieces = []
    position = 0
    for path in sorted(paths, key=lambda path: array_spans[path][0]):
        start, end = array_spans[path]
        pieces.append(text[position:start])
        pieces.append("[" + ",".join(element_texts[path]) + "]")
        position = end
    pieces.append(text[position:])
    return "".join(pieces).encode("utf-8")


class Part:
    """One part of a split: its test case ids and its cases file (every train and development
    case, and only the part's test cases)."""

    def __init__(self, cases: load.Document, test_ids: Iterable[str]) -> None:
        self.test_ids: FrozenSet[str] = frozenset(test_ids)
        kept = [index for index, case in enumerate(cases.value["cases"])
                if case["split"] != TEST_SPLIT or case["id"] in self.test_ids]
        self.cases_bytes = cut(cases, {("cases",): kept})
        self.cases_sha256 = hashlib.sha256(self.cases_bytes).hexdigest()

    def results_bytes(self, results: load.Document) -> bytes:
        """A valid results package cut down to this part's test cases' records."""
        arrays: Dict[Path, List[int]] = {}
        for index, system in enumerate(results.value["systems"]):
            arrays[("systems", index, "records")] = [
                position for position, record in enumerate(system["records"])
                if record["case_id"] in self.test_ids]
        return cut(results, arrays)
