"""The release manifest and the release document, declared once.

A release is judged on several benchmarks at once (``run_benchmark.py release --manifest
FILE``). The manifest (``proagents-bench-release-v1``) names them: for each, its spec and its
evidence (a cases file and a results package, or the harness logs to import), and a tier:
``critical``, ``supporting`` or ``info`` (see docs/release.md). Its validator, JSON Schema
(``--schema release``) and docs table are generated from :data:`RELEASE_V1_SHAPE`, as the
other files' are; the release's output document is :data:`RELEASE_OUTPUT` (``--schema
release-decision``), open as the decision's is (keys may be added, none renamed).

Paths inside a manifest are relative to the manifest's own folder and written with ``/``
between folders, whatever the platform, so that one manifest is read the same on Windows and
POSIX: an absolute path, a drive letter or a backslash is ``release.path``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator, List, Sequence, Set

from ..errors import ContractError
from ..stats.exact_tests import EXACT_TEST_METHODS
from ..text import quote
from .containers import AnyOf, Array, Field, Nullable, Object
from .output import CONTRACT_ERROR_DOCUMENT, DECISION, HARNESS, INPUT_FILE
from .shapes import Boolean, Integer, Number, Rule, String
from .validate import version_errors
from .vocabulary import (ACTIONS, BOOTSTRAP_UNITS, CRITICAL_TIER, MISSING_AS, RELEASE_V1,
                         SUPPORTING_TIER, TIERS)

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

# A benchmark's name: it names the benchmark in reasons and reports (an HTML anchor, a JUnit
# suite) and its imported files, so it is a short word of safe characters.
NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
# The most benchmarks one release holds.
MAX_BENCHMARKS = 100

# What makes a manifest's path unportable: a leading slash (absolute on POSIX), a colon (a
# drive letter ``C:`` anywhere in the path, which Windows joins as a drive, or an NTFS stream
# ``x:y``), a backslash (a folder separator on Windows only), a control character (a NUL
# cannot name a file anywhere), or a trailing slash (a folder, read as the file it ends by
# a lexical normalisation).
_UNPORTABLE = re.compile(r"\A/|[:\\\x00-\x1f\x7f]|/\Z")


def _portable_paths(keys: Sequence[str]) -> Rule[ContractError]:
    """The rule ``release.path`` on the path fields ``keys`` of one object (a path, or an
    array of paths)."""
    def check(value: JSONObject) -> Iterator[ContractError]:
        for key in keys:
            found = value.get(key)
            many = isinstance(found, list)
            for index, path in enumerate(found if isinstance(found, list)
                                         else [found] if found else []):
                if _UNPORTABLE.search(path):
                    yield rule.error(
                        "a manifest's paths are relative to its folder, with / between "
                        "folders and no colon, backslash, control character or trailing "
                        "/ (so that it reads the same on Windows and POSIX): got %s" % (
                            quote(path)), (key, index) if many else (key,))

    rule = Rule("release.path", check)
    return rule


class RelativePath(String):
    """A manifest's path: a non-blank string, relative to the manifest's folder, with ``/``
    between folders (the rule ``release.path`` checks the form)."""

    def describe(self) -> str:
        return "path"


def _path() -> String:
    return RelativePath()


def _paths() -> Array:
    return Array(RelativePath(), summary="array of paths")


IMPORT = Object("import", [
    Field("baseline", _path(), "the baseline's log (as `import --baseline`)"),
    Field("candidate", _path(), "the candidate's log (as `import --candidate`)"),
], optional=[
    Field("mapping", _path(), "the mapping file (as `import --mapping`; default: none)"),
    Field("baseline_id", String(), "the baseline's system_id (as `import --baseline-id`)"),
    Field("candidate_id", String(), "the candidate's system_id (as `import --candidate-id`)"),
    Field("missing_as", String(enum=MISSING_AS), "as `import --missing-as` (default `error`)"),
    Field("train_logs", _paths(), "logs of train cases, for a built cases file (as `import "
          "--train-log`)"),
    Field("development_logs", _paths(), "logs of development cases, for a built cases file "
          "(as `import --development-log`)"),
], rules=[_portable_paths(("baseline", "candidate", "mapping", "train_logs",
                           "development_logs"))], title="Import")


def _one_evidence(benchmark: JSONObject) -> Iterator[ContractError]:
    given = [key for key in ("results", "import") if key in benchmark]
    if len(given) != 1:
        yield EVIDENCE.error("a benchmark gives either \"results\" (a results package) or "
                             "\"import\" (the logs to import), %s" % (
                                 "not both" if given else "and gives neither"),
                             (given[-1] if given else "results",))


EVIDENCE = Rule("release.evidence", _one_evidence)


def _cases_where_needed(benchmark: JSONObject) -> Iterator[ContractError]:
    if "results" in benchmark and "cases" not in benchmark:
        yield CASES.error("a benchmark that gives \"results\" gives its \"cases\" too (only an "
                          "import can build a cases file from its logs)", ("cases",))
    imported = benchmark.get("import")
    if isinstance(imported, dict) and "cases" in benchmark:
        for key in ("train_logs", "development_logs"):
            if key in imported:
                yield CASES.error("%s give the cases of a cases file built from the logs: "
                                  "this benchmark names its cases file instead" % key,
                                  ("import", key))


CASES = Rule("release.cases", _cases_where_needed)

BENCHMARK = Object("benchmark", [
    Field("name", String(pattern=NAME_PATTERN), "unique in the release: names the benchmark "
          "in reasons and reports, and its imported files (`NAME.results.json`)"),
    Field("tier", String(enum=TIERS), "`critical`: its BLOCK or INCOMPARABLE stops the release; "
          "`supporting`: any decision but PASS makes the release REVIEW; `info`: reported only"),
    Field("spec", _path(), "the benchmark's spec"),
], optional=[
    Field("cases", _path(), "the cases file (required with `results`; with `import`, absent: "
          "built from the logs)"),
    Field("results", _path(), "the results package"),
    Field("import", IMPORT, "the logs to import into the results package, instead of "
          "`results`"),
    Field("candidate", String(), "the candidate's system_id, checked as the gate's "
          "`--candidate`"),
], rules=[_portable_paths(("spec", "cases", "results")), EVIDENCE, CASES], title="Benchmark")


def _unique_names(manifest: JSONObject) -> Iterator[ContractError]:
    # Compared without case: a name also names the benchmark's imported files, and two
    # names differing only in case name one file on Windows and macOS.
    seen: Set[str] = set()
    for index, benchmark in enumerate(manifest["benchmarks"]):
        if benchmark["name"].lower() in seen:
            yield UNIQUE_NAMES.error("benchmark name %s appears twice (names are compared "
                                     "without case)" % quote(benchmark["name"]),
                                     ("benchmarks", index, "name"))
        seen.add(benchmark["name"].lower())


UNIQUE_NAMES = Rule("release.duplicate_name", _unique_names)


def _deciding_benchmark(manifest: JSONObject) -> Iterator[ContractError]:
    if not any(benchmark["tier"] in (CRITICAL_TIER, SUPPORTING_TIER)
               for benchmark in manifest["benchmarks"]):
        yield DECIDING.error("every benchmark is `info`: a release needs at least one "
                             "critical or supporting benchmark to decide on", ("benchmarks",))


DECIDING = Rule("release.no_deciding_benchmark", _deciding_benchmark)

RELEASE_V1_SHAPE = Object("release", [
    Field("schema_version", String(enum=[RELEASE_V1])),
    Field("release_id", String(), "the release's name (a version, a tag)"),
    Field("family_wise_level", Number(minimum="0.000001", maximum="0.5"),
          "the chance, with no true difference anywhere, that the release reports some "
          "benchmark's regression or improvement (Holm's step-down over every benchmark's "
          "two one-sided exact tests)"),
    Field("benchmarks", Array(BENCHMARK, min_items=1, max_items=MAX_BENCHMARKS)),
], rules=[UNIQUE_NAMES, DECIDING], root=True, title="Release")

RELEASE_KINDS = {RELEASE_V1: RELEASE_V1_SHAPE}


def manifest_errors(value: JSONObject) -> List[ContractError]:
    """The contract errors of ``value``, a loaded release manifest."""
    return version_errors("release", RELEASE_KINDS, value)


# -- the release document -------------------------------------------------------------------

def _probability() -> Number:
    return Number(minimum=0, maximum=1, floats=True)


HYPOTHESIS = Object("hypothesis", closed=False, fields=[
    Field("p_value", _probability(), "the one-sided test's p-value, the gate's own test on "
          "the benchmark's discordant units"),
    Field("method", String(enum=EXACT_TEST_METHODS), "`mcnemar`: McNemar's exact test (the "
          "sign test); `randomization`: the exact sign-flip randomization test (families of "
          "several sizes); `normal`: its normal limit, beyond the exact test's work bound"),
    Field("adjusted_p_value", _probability(), "Holm's adjusted p-value over every hypothesis "
          "of the release"),
    Field("significant", Boolean(), "adjusted p-value <= the family-wise level"),
    Field("significant_alone", Boolean(), "p-value <= half the family-wise level: what the "
          "benchmark alone, with no adjustment, would call a regression or improvement"),
])

MULTIPLICITY_BENCHMARK = Object("multiplicity benchmark", closed=False, fields=[
    Field("name", String()),
    Field("tested", Boolean(), "false when the benchmark is INCOMPARABLE (nothing compared)"),
    Field("unit", String(enum=BOOTSTRAP_UNITS), "the resampling unit the tests count: the "
          "spec's bootstrap unit (task for v1)"),
    Field("gains", Nullable(Integer(minimum=0)), "units whose paired difference favours the "
          "candidate (a task only the candidate passes; a family whose summed difference is "
          "above 0)"),
    Field("losses", Nullable(Integer(minimum=0)), "units whose paired difference favours the "
          "baseline"),
    Field("regression", Nullable(HYPOTHESIS), "H0: the candidate is not worse"),
    Field("improvement", Nullable(HYPOTHESIS), "H0: the candidate is not better"),
    Field("result", String(enum=("regression", "improvement", "none", "not_tested")),
          "what the release reports, adjusted"),
    Field("result_alone", String(enum=("regression", "improvement", "none", "not_tested")),
          "what the benchmark alone would report, unadjusted"),
])

MULTIPLICITY = Object("multiplicity", closed=False, fields=[
    Field("method", String(enum=["holm"])),
    Field("test", String()),
    Field("family_wise_level", _probability()),
    Field("hypothesis_count", Integer(minimum=0)),
    Field("benchmarks", Array(MULTIPLICITY_BENCHMARK)),
])

RELEASE_BENCHMARK = Object("release benchmark", closed=False, fields=[
    Field("name", String()),
    Field("tier", String(enum=TIERS)),
    Field("action", String(enum=ACTIONS), "the benchmark's own decision, as alone"),
    Field("tier_effect", String(enum=ACTIONS), "what its decision makes of the release, by its "
          "tier"),
    Field("primary_reason", String()),
    Field("evidence", String(enum=("files", "import"))),
    Field("evidence_fingerprint", String(blank=True, pattern="^sha256:[0-9a-f]{64}$")),
    Field("decision", DECISION, "the benchmark's decision document, exactly as its gate alone "
          "writes it"),
])

RELEASE_DECISION = Object("release decision", closed=False, fields=[
    Field("action", String(enum=ACTIONS)),
    Field("primary_reason", String(), "equal to reasons[0]"),
    Field("reasons", Array(String(), min_items=1)),
    Field("notes", Array(String()), "informational: never a reason"),
    Field("release_id", String()),
    Field("evidence_fingerprint", String(blank=True, pattern="^sha256:[0-9a-f]{64}$"),
          "SHA-256 of the RFC 8785 form of [manifest, [each benchmark's evidence "
          "fingerprint]]"),
    Field("family_wise_level", _probability()),
    Field("benchmarks", Array(RELEASE_BENCHMARK, min_items=1)),
    Field("multiplicity", MULTIPLICITY),
    Field("manifest", INPUT_FILE),
    Field("harness", HARNESS),
    Field("limitations", Array(String())),
])

# What the release command writes to stdout: a release decision (exit 0 or 1) or a
# CONTRACT_ERROR document (exit 2).
RELEASE_OUTPUT = AnyOf([RELEASE_DECISION, CONTRACT_ERROR_DOCUMENT])
