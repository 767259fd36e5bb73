"""The benchmark the private-test service holds, and a team's submission checked against it.

The maintainer's spec, cases and baseline package are loaded and checked once, at start
(:class:`Benchmark`; the baseline package must pass the contract). A submission is a results
package whose ``systems`` hold only the team's candidate. It is parsed once; the
maintainer's baseline system is added to its value after its last system (so that every path
in the team's file keeps its index); and the gate's own checks run once on the three
(:func:`proagents_bench.pipeline.check`), the spec and cases as checked at start. Contract
errors are placed in the team's own file, named ``submission.json``. The checked
:class:`Submission` is then decided on every test case, or on the part of them a phase
scores, without being read or checked again.

What the gate's decision document says of its inputs and its evidence fingerprint is what
the gate says of the files it would read: the team's file with the baseline's text written
after its last system (``submission.json``), and for a part, the cases and that package cut
down to the part's test cases (:mod:`.parts`). Only the ``full`` feedback level shows them;
a part's are made for it alone (:meth:`Submission.decide`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from decimal import Decimal
from typing import Dict, FrozenSet, List, Optional, Tuple

from .. import pipeline
from ..contract.vocabulary import BASELINE_ROLE, TEST_SPLIT
from ..errors import ContractError, ContractErrors
from ..evaluation.comparison import protocol_mismatches
from ..jsonio import JSONObject, load
from ..jsonio.canonical import evidence_fingerprint
from ..jsonio.dump import document_bytes
from ..text import quote
from . import parts, public
from .client import SUBMISSION_NAME
SPEC_NAME = "spec.json"
CASES_NAME = "cases.json"

BASELINE_ERROR_CODE = "submission.baseline_given"
BASELINE_PROTOCOL_CODE = "cli.baseline_protocol"
SEQUENTIAL_CODE = "cli.serve_sequential"


class Benchmark:
    """The frozen spec, the private cases and the maintainer's baseline system, loaded and
    checked once (the baseline package must pass the contract: :class:`ContractErrors`
    otherwise), with the published documents made once."""

    def __init__(self, spec_path: str, cases_path: str, baseline_path: str) -> None:
        spec_value = load.load_file(spec_path).value
        if isinstance(spec_value, dict) and spec_value.get("sequential") is not None:
            # A submission is decided once, on every test task or a phase's part: never as
            # one look of a design whose boundary needs the looks before it.
            raise ContractErrors([ContractError(
                SEQUENTIAL_CODE, "the spec has a sequential design: the private-test service "
                "decides each submission once, never as a look of a design; serve a spec with "
                "\"sequential\": null", ("sequential",), spec_path)])
        checked = pipeline.check([pipeline.InputFile("spec", spec_path),
                                  pipeline.InputFile("cases", cases_path),
                                  pipeline.InputFile("results", baseline_path)],
                                 keep_texts=True)  # every check, on the maintainer's files
        checked.abandon()  # no decision is made on the maintainer's own package
        baseline_id = checked.systems.baseline["system_id"]
        from_baseline = [mismatch for mismatch in protocol_mismatches(
            checked.spec, [checked.systems.baseline, checked.systems.candidate])
            if mismatch.startswith(baseline_id + ".")]
        if from_baseline:
            # Every submission would be INCOMPARABLE: refuse to start instead.
            raise ContractErrors([ContractError(
                BASELINE_PROTOCOL_CODE, "the baseline did not run under the spec's protocol, "
                "so every submission would be INCOMPARABLE: %s" % "; ".join(from_baseline),
                (), baseline_path)])
        spec, cases, baseline = (checked.documents[kind] for kind in pipeline.KINDS)
        self.cases_bytes = _read(cases_path)  # kept as served (versions.py)
        self.baseline_package = _read(baseline_path)  # cut down to a part at phase open
        self.files_sha256 = {kind: hashlib.sha256(data).hexdigest() for kind, data in (
            ("spec", _read(spec_path)), ("cases", self.cases_bytes),
            ("baseline", self.baseline_package))}
        # As a submission's inputs name them (the maintainer's paths are never shown).
        self.spec_input = pipeline.InputFile("spec", shown=SPEC_NAME, checked=True,
                                             document=_named(spec, SPEC_NAME))
        self.cases_input = pipeline.InputFile("cases", shown=CASES_NAME, checked=True,
                                              document=_named(cases, CASES_NAME))
        self.cases_document = cases
        # What a submission needs of the baseline's package: its system, as a value (with
        # every Decimal in it, for the fingerprint) and as written.
        self.baseline_system = checked.systems.baseline
        self.baseline_decimals = _decimals_in(self.baseline_system)
        start, end = baseline.span(("systems", checked.systems.baseline_index))
        self.baseline_text = baseline.text[start:end]
        self.results_version = baseline.value["schema_version"]
        self.benchmark_id = cases.value["benchmark_id"]
        self.benchmark_version = cases.value["benchmark_version"]
        self.dataset_version = cases.value["dataset_version"]
        self.test_ids = [case["id"] for case in cases.value["cases"]
                         if case["split"] == TEST_SPLIT]
        # The spec as written, byte for byte but a byte-order mark: exact decimals included.
        self.public_spec = spec.text.encode("utf-8")
        # Numbers as the json module reads them (floats): the public view is written anew.
        self.public_cases = document_bytes(public.public_cases(json.loads(cases.text)))
        self._parts: Dict[FrozenSet[str], parts.Part] = {}
        self._parts_lock = threading.Lock()

    @property
    def versions(self) -> Tuple[str, str, str]:
        return self.benchmark_id, self.benchmark_version, self.dataset_version

    def check(self, body: bytes) -> Submission:
        """A submission's bytes, parsed once and checked once with the maintainer's baseline
        added; :class:`ContractErrors` placed in ``submission.json`` for a package that
        breaks the contract (not JSON, a baseline of its own, another results version, or
        anything the gate refuses)."""
        submission = load.parse_bytes(body, SUBMISSION_NAME)  # raises for bad JSON
        value = submission.value  # an object: the loader refuses any other root
        systems = value.get("systems")
        if isinstance(systems, list):
            self._refuse(submission)
            count = len(systems)
            combined = dict(value, systems=systems + [self.baseline_system])
            written = self.combined_pieces(submission)
        else:  # the gate says what is wrong with it
            count, combined, written = 0, value, [submission.text]
        digest, size = hashlib.sha256(), 0
        for piece in written:
            data = piece.encode("utf-8")
            digest.update(data)
            size += len(data)
        decimals = submission.decimals
        results = load.Document(SUBMISSION_NAME, submission.text, combined, digest.hexdigest(),
                                size, None if decimals is None else
                                decimals + self.baseline_decimals)
        try:
            checked = pipeline.check([self.spec_input, self.cases_input, pipeline.InputFile(
                "results", shown=SUBMISSION_NAME, document=results)])
        except ContractErrors as failure:
            raise ContractErrors(_in_submission(failure.errors, count), failure.omitted)
        return Submission(self, submission, checked)

    def _refuse(self, submission: load.Document) -> None:
        """:class:`ContractErrors` for a submission the baseline cannot be added to: one
        with a baseline of its own, or of another results version."""
        refused = [ContractError(
            BASELINE_ERROR_CODE, "a submission holds only the candidate system; the "
            "service adds the maintainer's baseline", ("systems", index, "role"))
            for index, system in enumerate(submission.value["systems"])
            if isinstance(system, dict) and system.get("role") == BASELINE_ROLE]
        version = submission.value.get("schema_version")
        if isinstance(version, str) and version != self.results_version:
            # The baseline's system is added as it is: a v1 system lacks what a v2 one must
            # have, and the other way round.
            refused.append(ContractError(
                "version.mismatch", "this service's baseline is a %s package: submit "
                "the same schema_version, not %s" % (quote(self.results_version),
                                                     quote(version)),
                ("schema_version",)))
        if refused:
            raise ContractErrors(submission.errors_at(refused))

    def combined_pieces(self, submission: load.Document) -> List[str]:
        """The text of a submission whose ``systems`` is an array with the baseline's system
        written after its last one, in pieces: the package the gate decides, as a file."""
        systems = submission.value["systems"]
        end = submission.span(("systems",))[1]
        text = submission.text
        return [text[:end - 1], "," if systems else "", self.baseline_text, text[end - 1:]]

    def part(self, test_ids: FrozenSet[str]) -> parts.Part:
        """The part of the test cases ``test_ids`` (made once)."""
        with self._parts_lock:
            made = self._parts.get(test_ids)
            if made is None:
                made = self._parts[test_ids] = parts.Part(self.cases_document, test_ids)
            return made

    def public_part(self, private_ids: FrozenSet[str]) -> parts.Part:
        return self.part(frozenset(self.test_ids) - private_ids)

    def check_split(self, private_ids: FrozenSet[str]) -> None:
        """Both parts of a split can be scored: the maintainer's baseline package, cut down
        to each part's test cases, passes the contract with that part's cases file
        (:class:`ContractErrors` otherwise)."""
        package = load.parse_bytes(self.baseline_package, SUBMISSION_NAME)
        for part in (self.public_part(private_ids), self.part(private_ids)):
            pipeline.check([
                self.spec_input,
                pipeline.InputFile("cases", None, CASES_NAME, data=part.cases_bytes),
                pipeline.InputFile("results", None, SUBMISSION_NAME,
                                   data=part.results_bytes(package))]).abandon()


class Submission:
    """A team's submission with the maintainer's baseline, checked once: :meth:`decide` it
    on every test case or on a part of them, as often as asked."""

    def __init__(self, benchmark: Benchmark, document: load.Document,
                 checked: pipeline.Checked) -> None:
        self.benchmark = benchmark
        self.document = document
        self.checked = checked

    def fingerprint(self) -> str:
        """The evidence fingerprint of the package decided on every test case."""
        return self.checked.fingerprint()

    def decide(self, part: Optional[parts.Part] = None,
               described: bool = False) -> JSONObject:
        """The gate's decision document on every test case, or on ``part``'s test cases
        only. A part's document names the package's inputs and fingerprint unless
        ``described``: then its own cut files', as the gate on them would (what the
        ``full`` level shows)."""
        if part is None:
            return self.checked.decide().document
        if not described:
            return self.checked.decide(part.test_ids).document
        inputs, fingerprint = self._part_files(part)
        return self.checked.decide(part.test_ids, inputs, lambda: fingerprint).document

    def _part_files(self, part: parts.Part) -> Tuple[JSONObject, str]:
        """What the gate says of the files cut down to ``part``: their inputs and their
        evidence fingerprint."""
        checked = self.checked
        combined = load.Document(SUBMISSION_NAME,
                                 "".join(self.benchmark.combined_pieces(self.document)),
                                 checked.results)
        results_bytes = part.results_bytes(combined)
        inputs = {"spec": checked.inputs["spec"],
                  "cases": pipeline.describe_file(CASES_NAME, part.cases_sha256,
                                                  len(part.cases_bytes)),
                  "results": pipeline.describe_file(
                      SUBMISSION_NAME, hashlib.sha256(results_bytes).hexdigest(),
                      len(results_bytes))}
        kept = part.test_ids
        cases = dict(checked.cases, cases=[case for case in checked.cases["cases"]
                                           if case["split"] != TEST_SPLIT or case["id"] in kept])
        results = dict(checked.results, systems=[
            dict(system, records=[record for record in system["records"]
                                  if record["case_id"] in kept])
            for system in checked.results["systems"]])
        return inputs, evidence_fingerprint(checked.spec, cases, results,
                                            checked.systems.candidate["system_id"])


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _named(document: load.Document, name: str) -> load.Document:
    """The same loaded file under another name (its errors and inputs name ``name``)."""
    return load.Document(name, document.text, document.value, document.sha256, document.size,
                         document.decimals)


def _decimals_in(value: object) -> List[Decimal]:
    """Every Decimal in a loaded value (in no particular order: the fingerprint reads only
    their range and their set)."""
    found: List[Decimal] = []
    waiting = [value]
    while waiting:
        item = waiting.pop()
        if isinstance(item, dict):
            waiting.extend(item.values())
        elif isinstance(item, list):
            waiting.extend(item)
        elif isinstance(item, Decimal):
            found.append(item)
    return found


def _in_submission(errors: List[ContractError], count: int) -> List[ContractError]:
    """The combined package's errors, as placed in the team's own file: a path into the
    baseline (index ``count``, placed at the ``systems`` array, where the baseline is added)
    becomes ``$.systems``; errors of another file (there should be none: the spec and cases
    were checked at start) lose their position, which would tell of the private cases."""
    placed = []
    for error in errors:
        path = error.path
        if error.file == SUBMISSION_NAME:
            if len(path) >= 2 and path[0] == "systems" and path[1] == count:
                path = ("systems",)
            placed.append(ContractError(error.code, error.message, path, error.file,
                                        error.line, error.column))
        else:
            placed.append(ContractError(error.code, error.message, path, error.file))
    return placed
