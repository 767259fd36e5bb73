"""SWE-bench's trace reader: an instance's evaluation, from the files SWE-bench's harness
leaves beside its run summary (``logs/run_evaluation/RUN/MODEL/INSTANCE/``, the folder a
trace reference names).

A run summary records outcomes only; the instance's folder has what the evaluation did: the
patch the agent submitted (``patch.diff``, an assistant message cut to its first lines) and
the report (``report.json``): an error when the patch did not apply or the environment
failed (its ``infra_failure_reason``), and each test of ``tests_status`` that failed
(``FAIL_TO_PASS``: the tests the patch was to make pass; ``PASS_TO_PASS``: those it was to
keep passing) as a failed check. The folder's digest is the manifest of those two files, as
the import took it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, List, Sequence, Union

from .json_excerpt import WHOLE
from .swebench import TRACE_FILES
from .trace import (CHECK, ERROR, FAILED, MESSAGE, TEXT_LIMIT, Step, Trace, TraceProblem,
                    content_text)
from .trace_bytes import FolderFiles, read_object

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from .source import LogSource

REPORT, PATCH = TRACE_FILES
TEST_LISTS = ("FAIL_TO_PASS", "PASS_TO_PASS")


def instance_traces(source: LogSource, references: Sequence[JSONObject]
                    ) -> List[Union[Trace, TraceProblem]]:
    """The traces of a summary's instances, each from its evaluation folder."""
    here = os.path.dirname(os.path.abspath(source.path))
    found: List[Union[Trace, TraceProblem]] = []
    for reference in references:
        entry = reference["entry"]
        if entry is None:
            found.append(TraceProblem("trace.not_recorded", "a run summary records no trace, "
                                      "and the run's evaluation folder (logs/run_evaluation/"
                                      "RUN/MODEL/%s) was not beside it when it was imported"
                                      % reference["id"], source.shown))
            continue
        where = os.path.join(os.path.dirname(source.shown), *entry.split("/"))
        try:
            found.append(_instance(os.path.join(here, *entry.split("/")), reference, where))
        except TraceProblem as problem:
            found.append(problem)
    return found


def _instance(folder: str, reference: JSONObject, where: str) -> Trace:
    files = FolderFiles(folder, where)
    steps: List[Step] = []
    cuts: List[str] = []
    if files.has(PATCH):
        head = b""
        for chunk in files.chunks(PATCH):  # its first lines: the files it changes
            head = head or chunk[:TEXT_LIMIT * 4]
        steps.append(Step(MESSAGE, PATCH, head.decode("utf-8", "replace"), role="assistant"))
    if files.has(REPORT):
        report, cuts = read_object(files.chunks(REPORT), {reference["id"]: WHOLE}, where)
        steps.extend(_report_steps(report.get(reference["id"])))
    files.check(TRACE_FILES, reference["sha256"])
    return Trace(where, steps, cuts, ["instance %s" % reference["id"]])


def _report_steps(report: object) -> List[Step]:
    if not isinstance(report, dict):
        return [Step(ERROR, REPORT, "the report holds no entry for the instance")]
    steps: List[Step] = []
    if report.get("patch_exists") and not report.get("patch_successfully_applied"):
        steps.append(Step(ERROR, "%s:patch_successfully_applied" % REPORT,
                          "the patch did not apply, or its tests' output could not be read%s"
                          % (": %s" % content_text(report["infra_failure_reason"])
                             if report.get("infra_failure_reason") else "")))
    status = report.get("tests_status")
    for kind in TEST_LISTS:
        tests = status.get(kind) if isinstance(status, dict) else None
        failures = tests.get("failure") if isinstance(tests, dict) else None
        for index, test in enumerate(failures if isinstance(failures, list) else []):
            steps.append(Step(CHECK, "%s:tests_status.%s.failure[%d]" % (REPORT, kind, index),
                              "a test the patch was to %s" % (
                                  "make pass" if kind == TEST_LISTS[0] else "keep passing"),
                              name=content_text(test), status=FAILED))
    return steps
