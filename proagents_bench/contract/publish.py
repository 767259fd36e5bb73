"""What the contract publishes: the JSON Schemas (draft 2020-12) and the contract's docs tables
(``docs/contract.md``).

Both come from one walk over the declared shapes (:func:`contract_objects`): every schema is
``json_schema()`` of the same shapes the validator checks, and every docs table lists the
same objects' fields, rules and gates. Nothing here is written by hand, so nothing can drift;
the tests hold the shipped copies (``schemas/KIND.schema.json``) and ``docs/contract.md`` to this
module's output, and the command line's ``publish`` rewrites both.

A file kind with several versions (the spec: v1, v2 and v3) picks one of its per-version
``$defs`` by ``schema_version`` (``if``/``then``), so an editor reports the errors of the
file's own version. What JSON Schema cannot say is still checked by
the validator, and each schema's ``description`` names it: rules across fields, rules across
files, and one of form: the contract's integers are literals without fraction or exponent,
whereas JSON Schema counts ``8.0`` as an integer.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Dict, Iterator, List, Tuple

from .containers import SCHEMA_KEY, Object, object_shapes
from .explanation import EXPLANATION
from .gates import CASE_FINDERS, GATES, version_span
from .inputs import FILE_KINDS
from .ledger import LEDGER_KINDS_BY_VERSION
from .mapping import MAPPING_KINDS
from .output import OUTPUT
from .release import RELEASE_KINDS, RELEASE_OUTPUT
from .rules import CROSS_FILE_RULES
from .shapes import Rule
from .vocabulary import BLOCK, BLOCKING, HARDNESS, REVIEW, REVIEWING, SCHEMA_KINDS

if TYPE_CHECKING:  # for annotations only
    from ..errors import ContractError
    from ..jsonio import JSONObject

DRAFT = "https://json-schema.org/draft/2020-12/schema"
# Every file kind the contract publishes: the gate's three, the importer's mapping, the
# release command's manifest and the gate's ledger of looks.
DOCUMENT_KINDS = dict(FILE_KINDS, mapping=MAPPING_KINDS, release=RELEASE_KINDS,
                      ledger=LEDGER_KINDS_BY_VERSION)
# The files the gate reads and writes: the grader's interface (the import mapping is the
# importers' own file, never graded).
GRADER_KINDS = ("spec", "cases", "results", "decision")
SCHEMA_DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")

TITLES = {
    "spec": "proagents-bench benchmark spec",
    "cases": "proagents-bench benchmark cases",
    "results": "proagents-bench results package",
    "decision": "proagents-bench output document (decision or CONTRACT_ERROR)",
    "mapping": "proagents-bench import mapping (what a harness log cannot say)",
    "release": "proagents-bench release manifest (one release decision across benchmarks)",
    "release-decision": "proagents-bench release document (a release decision or "
                        "CONTRACT_ERROR)",
    "ledger": "proagents-bench ledger of looks (what the gate writes with --ledger)",
    "explanation": "proagents-bench explanation (why a decision went as it did, from the "
                   "harnesses' traces)",
}
# The output documents' shapes, by schema kind.
OUTPUTS = {"decision": OUTPUT, "release-decision": RELEASE_OUTPUT, "explanation": EXPLANATION}


def contract_objects() -> Iterator[Tuple[str, str, Object, List[Object]]]:
    """The one walk: (kind, version, root shape, every object shape under it, parents first)
    for every input file kind and version."""
    for kind, versions in DOCUMENT_KINDS.items():
        for version, root in sorted(versions.items()):
            yield kind, version, root, list(object_shapes(root, set()))


def object_rules(kind: str) -> List[Rule[ContractError]]:
    """The rules of ``kind``'s objects (beyond what a schema can say), each once."""
    rules: Dict[str, Rule[ContractError]] = {}
    for found_kind, _version, _root, objects in contract_objects():
        if found_kind == kind:
            for shape in objects:
                for rule in shape.rules:
                    rules.setdefault(rule.code, rule)
    return list(rules.values())


def schema_id(kind: str) -> str:
    """The schema's ``$id``: a stable name, not a location (the schemas ship in the package
    and ``--schema`` prints them; nothing is fetched from the network)."""
    return "urn:proagents-bench:schema:%s" % kind


def _description(kind: str) -> str:
    if kind == "decision":
        return ("What proagents-bench writes to stdout: a decision (exit 0 or 1) or a "
                "CONTRACT_ERROR document (exit 2). Objects may gain keys in later versions; "
                "none of the listed keys is ever renamed.")
    if kind == "mapping":
        return ("The mapping file of proagents-bench's import command: what a harness log "
                "cannot say (side-effecting tools, where the final state comes from, the "
                "metadata keys of splits, families, slices and critical flags, the protocol's "
                "ids). Besides this schema the importer checks that each source fits the "
                "log's harness, and that integers are written without fraction or exponent "
                "(8, not 8.0). The root may carry \"$schema\" (a string); it is the only "
                "extra key accepted.")
    if kind == "release-decision":
        return ("What proagents-bench's release command writes to stdout: a release decision "
                "(exit 0 or 1), each benchmark's decision document inside it, or a "
                "CONTRACT_ERROR document (exit 2). Objects may gain keys in later versions; "
                "none of the listed keys is ever renamed.")
    if kind == "ledger":
        return ("The ledger the gate writes with --ledger FILE and reads back at the next "
                "look: every look it judged, with the digest of each trial it added. Besides "
                "this schema the gate checks that the looks are numbered 1, 2, ... and that "
                "their batch and chain digests are those of their records (ledger.damaged), "
                "then holds the package to it (the ledger.* codes). Write it only with the "
                "gate.")
    if kind == "explanation":
        return ("What proagents-bench's explain command writes to stdout as JSON (exit 0 or 1, "
                "as the decision's; a CONTRACT_ERROR document, exit 2, as the gate's): for "
                "each task explained, the trials compared, their traces, where the candidate "
                "left the baseline's path and what rule it broke. Objects may gain keys in "
                "later versions; none of the listed keys is ever renamed.")
    if kind == "release":
        also = ["%s (%s)" % (rule.text, rule.code) for rule in object_rules(kind)]
        return ("The release manifest of proagents-bench's release command: the benchmarks "
                "one release is decided on, each with its tier and its evidence. Besides this "
                "schema the release command checks: %s; integers are written without "
                "fraction or exponent (8, not 8.0); and every benchmark's own files, as the "
                "gate and the import check them. The root may carry \"$schema\" (a string); "
                "it is the only extra key accepted." % "; ".join(also))
    also = ["%s (%s)" % (rule.text, rule.code) for rule in object_rules(kind)]
    also.append("the rules across files (%s)" % ", ".join(rule.code for rule in
                                                           CROSS_FILE_RULES))
    also.append("integers are written without fraction or exponent (8, not 8.0)")
    return ("A %s file of proagents-bench. Besides this schema the validator checks: %s. The "
            "root may carry \"$schema\" (a string); it is the only extra key accepted."
            % (kind, "; ".join(also)))


def schema(kind: str) -> JSONObject:
    """The JSON Schema of ``kind`` (one of :data:`~.vocabulary.SCHEMA_KINDS`) as a dict."""
    if kind not in SCHEMA_KINDS:
        raise ValueError("unknown schema kind %r (expected one of %s)" % (kind,
                                                                        ", ".join(SCHEMA_KINDS)))
    if kind in OUTPUTS:
        body = OUTPUTS[kind].json_schema()
    else:
        versions = [(version, root.json_schema()) for found_kind, version, root, _objects
                    in contract_objects() if found_kind == kind]
        if len(versions) == 1:
            body = versions[0][1]
        else:
            # Picked by schema_version (if/then), not a oneOf: an editor then reports the
            # errors of the file's own version, not those of every other version's branch.
            names = [version for version, _body in versions]
            body = {
                "$defs": dict(versions),
                "type": "object",
                "properties": {"schema_version": {"type": "string", "enum": names}},
                "required": ["schema_version"],
                "allOf": [{"if": {"properties": {"schema_version": {"const": version}}},
                           "then": {"$ref": "#/$defs/%s" % version}} for version in names],
            }
    body.update({"$schema": DRAFT, "$id": schema_id(kind), "title": TITLES[kind],
                 "description": _description(kind)})
    return body


def schema_bytes(kind: str) -> bytes:
    """The schema as the shipped file holds it: ASCII JSON, sorted keys, two-space indent."""
    return (json.dumps(schema(kind), ensure_ascii=True, sort_keys=True, indent=2,
                       allow_nan=False) + "\n").encode("ascii")


def shipped_schemas() -> List[Tuple[str, bytes]]:
    """(path, bytes) of every schema file shipped in the package."""
    return [(os.path.join(SCHEMA_DIRECTORY, "%s.schema.json" % kind), schema_bytes(kind))
            for kind in SCHEMA_KINDS]


def _object_table(shape: Object) -> str:
    lines = ["%s object%s:\n" % (shape.title, " (the file's root)" if shape.root else ""),
             "| key | type and rule | meaning |", "|---|---|---|"]
    for field in shape.fields:
        lines.append("| `%s` | %s%s | %s |" % (field.key, field.shape.describe(),
                                               "" if field.required else ", optional",
                                               field.meaning))
    if shape.root:
        lines.append("| `%s` | string, optional | a JSON Schema reference for editors; the "
                     "only extra key accepted |" % SCHEMA_KEY)
    lines.append("")
    return "\n".join(lines)


def _gates_table() -> str:
    lines = ["### The gates\n",
             "Each gate judges the candidate: the metric against the spec's value, a failure "
             "blocking (%s) or asking for review (%s); a finding names the test tasks "
             "behind it. A gate belongs to the spec versions named; a gate a later version "
             "adds is a required key of the gates object of that version and the versions "
             "after it, never of an earlier one.\n" % (
                 HARDNESS[BLOCKING], HARDNESS[REVIEWING]),
             "| gate | spec versions | metric | the candidate must have | failure | report label "
             "| tasks named |",
             "|---|---|---|---|---|---|---|"]
    for gate in GATES:
        lines.append("| `%s` | %s | `%s` | %s the gate | %s | %s | %s |" % (
            gate.key, version_span(gate.versions), gate.metric, gate.bound,
            {BLOCKING: BLOCK, REVIEWING: REVIEW, None: "none (defines a task pass)"}[
                gate.severity], gate.label, CASE_FINDERS[gate.cases.split(":")[0]]))
    lines.append("")
    return "\n".join(lines)


def explanation_tables() -> str:
    """Markdown: one table per object of the explanation document (docs/importing.md)."""
    return "\n".join(_object_table(shape) for shape in object_shapes(EXPLANATION, set()))


def contract_tables() -> str:
    """Markdown: one table per object of every file kind and version, the rules, the gates."""
    out = []
    seen = set()
    for kind, version, _root, objects in contract_objects():
        out.append("### %s file: `schema_version` = `%s`\n" % (kind.capitalize(), version))
        for shape in objects:
            if shape not in seen:
                seen.add(shape)
                out.append(_object_table(shape))
    out.append("### Rules across objects and files\n")
    out.append("| code | rule |\n|---|---|")
    for kind in DOCUMENT_KINDS:
        for rule in object_rules(kind):
            out.append("| `%s` | %s |" % (rule.code, rule.text))
    for cross_file_rule in CROSS_FILE_RULES:
        out.append("| `%s` | %s |" % (cross_file_rule.code, cross_file_rule.text))
    out.append("")
    out.append(_gates_table())
    return "\n".join(out)

