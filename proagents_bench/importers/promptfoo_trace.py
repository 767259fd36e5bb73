"""promptfoo's trace reader: a result, as a row of promptfoo's web viewer (``promptfoo
view``) shows it.

A result is one provider call, so its steps are few: the prompt sent (``prompt.raw``, a user
message), the provider's answer (``response.output``, an assistant message) or its error
(``response.error``, else the result's ``error``), and each assertion that failed
(``gradingResult.componentResults``: its type and promptfoo's reason) as a check. The file
is read once for all its results asked for, keeping only those (its digest is the log's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Sequence, Union

from .json_excerpt import WHOLE, Want
from .trace import (CHECK, ERROR, FAILED, MESSAGE, Step, Trace, TraceProblem, arguments_text,
                    content_text)
from .trace_bytes import array_traces

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from .source import LogSource

RESULT_WANT: Want = {key: WHOLE for key in ("testIdx", "prompt", "response", "error",
                                            "gradingResult", "success")}


def result_traces(source: LogSource, references: Sequence[JSONObject]
                  ) -> List[Union[Trace, TraceProblem]]:
    """The traces of a results file's results, in one pass over the file."""
    return array_traces(source, references, ("results", "results"), RESULT_WANT, _result)


def _result(row: JSONObject, reference: JSONObject, where: str, cuts: List[str]) -> Trace:
    if not row:
        raise TraceProblem("trace.log_changed", "the file holds no result %s where it was "
                           "imported" % reference["id"], where)
    return Trace(where, _steps(row), cuts, ["row %s" % reference["id"]])


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
