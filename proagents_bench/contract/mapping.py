"""The import mapping file, declared once: what a harness log cannot say about a benchmark.

``run_benchmark.py import --mapping FILE`` reads it (strictly, as the contract's files are
read); its JSON Schema and docs table are generated from :data:`MAPPING_V1_SHAPE`, as the
other files' are. Every key but ``schema_version`` is optional: a missing key takes the
importer's default for the log's harness (see docs/importing.md).
"""

from __future__ import annotations

from typing import List

from ..errors import ContractError
from .inputs import PROTOCOL
from .shapes import Field, Mapping, Nullable, Number, Object, String, StringSet, Boolean
from .validate import version_errors
from .harnesses import (COST_SOURCES, FINAL_STATE_SOURCES, HARNESSES, SHARED_DEFAULTS,
                        harness_defaults, mapping_key_text, sources_text)
from .vocabulary import MAPPING_V1, SPLITS

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
              "%s %s" % (harness.title, harness.side_effects_default)
              for harness in HARNESSES)),
    Field("side_effect_store_keys", StringSet(), mapping_key_text("side_effect_store_keys")),
    Field("final_state", FINAL_STATE, "where a trial's final state comes from"),
    Field("cost", COST, "where a trial's cost_units come from"),
    Field("metadata_keys", METADATA_KEYS, mapping_key_text("metadata_keys")),
    Field("cases", Mapping(CASE_OVERRIDE), "per case id, fields the log lacks or "
          "gets wrong (they win over the log's metadata)"),
], root=True, title="Mapping")

# The mapping's versions, each mapped to its shape (as inputs.FILE_KINDS maps the gate's).
MAPPING_KINDS = {MAPPING_V1: MAPPING_V1_SHAPE}


def mapping_errors(value: dict) -> List[ContractError]:
    """The contract errors of ``value``, a loaded mapping file."""
    return version_errors("mapping", MAPPING_KINDS, value)
