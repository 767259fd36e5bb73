"""The import mapping file, declared once: what a harness log cannot say about a benchmark.

``run_benchmark.py import --mapping FILE`` reads it (strictly, as the contract's files are
read); its JSON Schema and docs table are generated from :data:`MAPPING_V1_SHAPE`, as the
other files' are. Every key but ``schema_version`` is optional: a missing key takes the
importer's default for the log's harness (see docs/importing.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List

from ..errors import ContractError
from .inputs import PROTOCOL
from .containers import AnyOf, Field, Mapping, Nullable, Object
from .shapes import Boolean, Integer, Number, Rule, String, StringSet
from .validate import version_errors
from .harness_docs import (DOCS_OF, SHARED_DEFAULTS, harness_defaults, mapping_key_text,
                           sources_text)
from .harnesses import COST_SOURCES, FINAL_STATE_SOURCES, HARNESSES
from .vocabulary import FAILED, MAPPING_V1, MAPPING_V2, PASSED, SPLITS, STATUSES

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

MAPPING_PROTOCOL = Object("protocol", [], optional=PROTOCOL.fields, title="Mapping protocol")

FINAL_STATE = Object("final_state", [
    Field("source", String(enum=FINAL_STATE_SOURCES), sources_text("final_state")),
], optional=[
    Field("key", String(), "the scorer's name (default: the sample's first score) "
          "or the store key"),
], title="Final state source")

COST = Object("cost", [
    Field("source", String(enum=COST_SOURCES), sources_text("cost")),
], optional=[
    Field("scale", Number(minimum="0"), "cost_units = the source's value times "
          "this (default 1)"),
], title="Cost source")

METADATA_KEYS = Object("metadata_keys", [], optional=[
    Field(key, String(), "the sample metadata key of a case's `%s` (default `%s`)"
          % (key, key))
    for key in ("split", "family_id", "slice", "critical", "task_type", "allowed_tools",
                "forbidden_side_effects")
], title="Metadata keys")

CASE_OVERRIDE = Object("case", [], optional=[
    Field("split", String(enum=SPLITS), ""),
    Field("family_id", String(), ""),
    Field("slice", String(), ""),
    Field("critical", Boolean(), ""),
], title="Case override")

MAPPING_V1_SHAPE = Object("mapping", [
    Field("schema_version", String(enum=[MAPPING_V1])),
], optional=[
    Field("benchmark_id", String(), "the package's (default: the cases file's, else %s)"
          % harness_defaults("benchmark_id")),
    Field("benchmark_version", String(), "the package's (default: the cases file's, else %s)"
          % harness_defaults("benchmark_version")),
    Field("dataset_version", String(), "the package's (default: the cases file's, else %s)"
          % harness_defaults("dataset_version")),
    Field("result_set_version", String(), "(default: %s)"
          % SHARED_DEFAULTS["result_set_version"]),
    Field("protocol", MAPPING_PROTOCOL, "fills what the log does not record; a "
          "value the log records must agree with it"),
    Field("side_effect_tools", Nullable(StringSet()), "the tools whose calls are side "
          "effects, each named by the tool (default null: %s)" % "; ".join(
              "%s %s" % (harness.title, DOCS_OF[harness.name].side_effects_default)
              for harness in HARNESSES)),
    Field("side_effect_store_keys", StringSet(), mapping_key_text("side_effect_store_keys")),
    Field("final_state", FINAL_STATE, "where a trial's final state comes from"),
    Field("cost", COST, "where a trial's cost_units come from"),
    Field("metadata_keys", METADATA_KEYS, mapping_key_text("metadata_keys")),
    Field("cases", Mapping(CASE_OVERRIDE), "per case id, fields the log lacks or "
          "gets wrong (they win over the log's metadata)"),
], root=True, title="Mapping")

# -- v2: the pointers of a JSON-lines log ---------------------------------------------------
# A JSON Pointer (RFC 6901) into one line's object: ``/a/b/0``, with ``~1`` for ``/`` and
# ``~0`` for ``~`` inside a key; never the whole line.
POINTER = String(pattern="^(/[^~/]*(~[01][^~/]*)*)+$")


def _one_success_rule(lines: JSONObject) -> Iterator[ContractError]:
    success = lines.get("success", {})
    if "final_state" in lines and "success" in lines:
        yield LINES_SUCCESS.error("lines gives both final_state and success: the final state "
                                  "is the one or the other", ("success",))
    elif "equals" in success and "at_least" in success:
        yield LINES_SUCCESS.error("success gives both equals and at_least: name one test",
                                  ("success", "at_least"))


LINES_SUCCESS = Rule("mapping.lines_success", _one_success_rule)

LINES_STATUS = Object("status", [
    Field("pointer", POINTER, "where the line gives its outcome"),
    Field("values", Mapping(String(enum=STATUSES)), "the record's status of each value the "
          "log writes there: a string by itself, any other value by its JSON text (`true`, "
          "`1`, `null`; a missing value is `null`); a value it does not name is "
          "`import.status_value`"),
], title="Lines status")

LINES_SUCCESS_TEST = Object("success", [
    Field("pointer", POINTER, "the value that says whether the trial succeeded"),
], optional=[
    Field("equals", AnyOf([String(blank=True), Number(), Boolean()]), "succeeded when the "
          "value is this (default `true`)"),
    Field("at_least", Number(), "succeeded when the value is a number at least this (a "
          "reward, a score)"),
], title="Lines success")

LINES = Object("lines", [
    Field("case_id", POINTER, "the case id: a non-blank string, or an integer written in "
          "digits"),
    Field("trial_id", POINTER, "the trial's number: an integer from `first_trial`"),
], optional=[
    Field("first_trial", Integer(minimum=0, maximum=1), "the number the log gives a case's "
          "first trial (default 1; with 0 each trial id is the log's plus 1)"),
    Field("system_id", POINTER, "the system's name, the same on every line (default: "
          "`--baseline-id` and `--candidate-id`)"),
    Field("status", LINES_STATUS, "the record's status (default: `success` on every line: "
          "a line is a trial that ran)"),
    Field("final_state", POINTER, "the final state: a string, or null (not known)"),
    Field("success", LINES_SUCCESS_TEST, "how success is decided instead: the final state is "
          "`%s` when the test holds, else `%s` (and a built case expects `%s`)" % (
              PASSED, FAILED, PASSED)),
    Field("tools_used", POINTER, "the tools called: an array of strings (default none)"),
    Field("side_effects", POINTER, "the side effects: an array of strings (default: the "
          "tools called that `side_effect_tools` names)"),
    Field("latency_ms", POINTER, "the trial's time in milliseconds (missing or null: not "
          "measured)"),
    Field("cost", POINTER, "the trial's cost, times `cost.scale` (missing or null: not "
          "measured)"),
    Field("metadata", POINTER, "an object of the case's fields for `--write-cases` (its keys "
          "as `metadata_keys` names them)"),
    Field("expected_final_state", POINTER, "the case's expected final state for "
          "`--write-cases` (default with `success`: `%s`)" % PASSED),
], rules=[LINES_SUCCESS], title="Lines")

MAPPING_V2_SHAPE = Object("mapping", [
    Field("schema_version", String(enum=[MAPPING_V2])),
], optional=[field for field in MAPPING_V1_SHAPE.fields if field.key != "schema_version"] + [
    Field("lines", LINES, "where each line of a JSON-lines log gives the record's fields "
          "(JSON Pointers, RFC 6901); needed for a JSON-lines log, read by no other"),
], root=True, title="Mapping v2")

# The mapping's versions, each mapped to its shape (as inputs.FILE_KINDS maps the gate's).
MAPPING_KINDS = {MAPPING_V1: MAPPING_V1_SHAPE, MAPPING_V2: MAPPING_V2_SHAPE}


def mapping_errors(value: JSONObject) -> List[ContractError]:
    """The contract errors of ``value``, a loaded mapping file."""
    return version_errors("mapping", MAPPING_KINDS, value)
