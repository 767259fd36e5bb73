"""promptfoo's trace reader: a result, as a row of promptfoo's web viewer (``promptfoo
view``) shows it.

A result is one provider call, so its steps are few: the prompt sent (``prompt.raw``, a user
message), the provider's answer (``response.output``, an assistant message) or its error
(``response.error``, else the result's ``error``), and each assertion that failed
(``gradingResult.componentResults``: its type and promptfoo's reason) as a check. The file
is read once for all its results asked for, keeping only those (its digest is the log's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Sequence, Union

from .json_excerpt import WHOLE, Want
from .trace import (CHECK, ERROR, FAILED, MESSAGE, Step, Trace, TraceProblem, arguments_text,
                    content_text)
from .trace_bytes import checked, cuts_of, file_chunks, read_object

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from .source import LogSource

RESULT_WANT: Want = {key: WHOLE for key in ("testIdx", "prompt", "response", "error",
                                            "gradingResult", "success")}


def result_traces(source: LogSource, references: Sequence[JSONObject]
                  ) -> List[Union[Trace, TraceProblem]]:
    """The traces of a results file's results, in one pass over the file."""
    want: Dict[Union[str, int], Want] = {index: RESULT_WANT for index in sorted(
        {reference["index"] for reference in references if reference["index"] is not None})}
    where = source.shown
    try:
        chunks = checked(file_chunks(source.path, where), references[0]["sha256"], where)
        log, cuts = read_object(chunks, {"results": {"results": want}}, where)
    except TraceProblem as problem:
        return [problem for _reference in references]
    summary = log.get("results")
    rows = summary.get("results") if isinstance(summary, dict) else None
    found: List[Union[Trace, TraceProblem]] = []
    for reference in references:
        path = "results.results[%s]" % reference["index"]
        row = rows.get(reference["index"]) if isinstance(rows, dict) else None
        if not isinstance(row, dict):
            found.append(TraceProblem("trace.log_changed", "the file holds no result %s where "
                                      "it was imported" % reference["id"], where))
            continue
        found.append(Trace("%s:%s" % (where, path), _steps(row), cuts_of(cuts, "$." + path),
                           ["row %s" % reference["id"]]))
    return found


def _steps(row: JSONObject) -> List[Step]:
    steps: List[Step] = []
    prompt = row.get("prompt")
    if isinstance(prompt, dict):
        steps.append(Step(MESSAGE, "prompt.raw", content_text(prompt.get("raw")), role="user"))
    response = row.get("response")
    response = response if isinstance(response, dict) else {}
    if response.get("error") or (row.get("error") and response.get("output") is None):
        steps.append(Step(ERROR, "response.error" if response.get("error") else "error",
                          content_text(response.get("error") or row.get("error"))))
    else:
        steps.append(Step(MESSAGE, "response.output", content_text(response.get("output")),
                          role="assistant"))
    grading = row.get("gradingResult")
    components = grading.get("componentResults") if isinstance(grading, dict) else None
    for index, component in enumerate(components if isinstance(components, list) else []):
        if isinstance(component, dict) and component.get("pass") is False:
            assertion = component.get("assertion")
            kind = assertion.get("type") if isinstance(assertion, dict) else None
            steps.append(Step(CHECK, "gradingResult.componentResults[%d]" % index,
                              content_text(component.get("reason")),
                              name="assert %s %s" % (kind, arguments_text(
                                  assertion.get("value") if isinstance(assertion, dict)
                                  else None)), status=FAILED))
    return steps
