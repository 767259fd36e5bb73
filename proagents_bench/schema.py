"""JSON Schemas (draft 2020-12) of the three input files and of the output document.

Every schema is generated from the same declarative shapes the validator checks
(:mod:`proagents_bench.contract` for the inputs, :mod:`proagents_bench.output_contract` for
the output), never written by hand. A file kind with several versions (the spec has v1 and
v2) is a ``oneOf`` over per-version ``$defs``, told apart by ``schema_version``.

What JSON Schema cannot say is still checked by the validator, and each schema's
``description`` names it: rules across fields (``critical_task_min_trial_success_rate >=
task_min_trial_success_rate``, ``is_private`` exactly for test cases), rules across files
(coverage, versions, split contamination), and one of form: the contract's integers are
literals without fraction or exponent, whereas JSON Schema counts ``8.0`` as an integer.

``python -B -m proagents_bench.schema KIND`` prints one schema; ``--write`` regenerates the
copies shipped in ``proagents_bench/schemas/`` (a test fails when they are stale).
"""

import json
import os
import sys

from .contract import CROSS_FILE_RULES, FILE_KINDS, object_shapes
from .output_contract import OUTPUT, AnyOf, Mapping, Nullable, OpenObject, Pair
from .shapes import SCHEMA_KEY, Array, Object

DRAFT = "https://json-schema.org/draft/2020-12/schema"
KINDS = ("spec", "cases", "results", "decision")
SCHEMA_DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")

SCHEMA_KEY_MEANING = ("a JSON Schema reference for editors (a URL or a relative path to a copy of "
                      "this schema); the only extra key accepted")

_TITLES = {
    "spec": "proagents-bench benchmark spec",
    "cases": "proagents-bench benchmark cases",
    "results": "proagents-bench results package",
    "decision": "proagents-bench output document (decision or CONTRACT_ERROR)",
}


def schema_id(kind):
    """The schema's ``$id``: a stable name, not a location (the schemas ship in the package
    and ``--schema`` prints them; nothing is fetched from the network)."""
    return "urn:proagents-bench:schema:%s" % kind


def file_name(kind):
    return "%s.schema.json" % kind


def rules_not_in_schema(kind):
    """(code, text) of every rule of ``kind`` that the validator checks beyond the schema."""
    rules = []
    seen = set()
    for _version, root in sorted(FILE_KINDS[kind].items()):
        for shape in object_shapes(root, set()):
            for rule in shape.rules:
                if rule.code not in seen:
                    seen.add(rule.code)
                    rules.append((rule.code, rule.text))
    return rules


def _description(kind):
    if kind == "decision":
        return ("What proagents-bench writes to stdout: a decision (exit 0 or 1) or a "
                "CONTRACT_ERROR document (exit 2). Objects may gain keys in later versions; "
                "none of the listed keys is ever renamed.")
    also = ["%s (%s)" % (text, code) for code, text in rules_not_in_schema(kind)]
    also.append("the rules across files (%s)" % ", ".join(code for code, _ in CROSS_FILE_RULES))
    also.append("integers are written without fraction or exponent (8, not 8.0)")
    return ("A %s file of proagents-bench. Besides this schema the validator checks: %s. The "
            "root may carry \"$schema\" (a string); it is the only extra key accepted."
            % (kind, "; ".join(also)))


def annotated(shape):
    """``shape.json_schema()`` with each object's title and each field's meaning as
    ``title`` and ``description``, which editors show on hover."""
    schema = shape.json_schema()
    _annotate(shape, schema)
    return schema


def _annotate(shape, schema):
    if isinstance(shape, (Array, Pair)):
        _annotate(shape.items, schema["items"])
    elif isinstance(shape, Mapping):
        _annotate(shape.values, schema["additionalProperties"])
    elif isinstance(shape, AnyOf):
        for inner, inner_schema in zip(shape.shapes, schema["anyOf"]):
            _annotate(inner, inner_schema)
    elif isinstance(shape, Nullable):
        _annotate(shape.shape, schema["anyOf"][0])
    elif isinstance(shape, (Object, OpenObject)):
        closed = isinstance(shape, Object)
        schema["title"] = shape.title if closed else shape.name
        for field in shape.fields if closed else shape.all_fields():
            _annotate(field.shape, schema["properties"][field.key])
            if field.meaning:
                schema["properties"][field.key]["description"] = field.meaning
        if closed and shape.root:
            schema["properties"][SCHEMA_KEY]["description"] = SCHEMA_KEY_MEANING


def generate(kind):
    """The JSON Schema of ``kind`` (spec, cases, results or decision) as a dict."""
    if kind not in KINDS:
        raise ValueError("unknown schema kind %r (expected one of %s)" % (kind,
                                                                        ", ".join(KINDS)))
    head = {"$schema": DRAFT, "$id": schema_id(kind), "title": _TITLES[kind],
            "description": _description(kind)}
    if kind == "decision":
        body = annotated(OUTPUT)
    else:
        versions = sorted(FILE_KINDS[kind].items())
        if len(versions) == 1:
            body = annotated(versions[0][1])
        else:
            body = {
                "$defs": {version: annotated(shape) for version, shape in versions},
                "oneOf": [{"$ref": "#/$defs/%s" % version} for version, _shape in versions],
            }
    body.update(head)
    return body


def dumps(kind):
    """The schema's bytes: ASCII JSON, sorted keys, two-space indent, final newline."""
    return (json.dumps(generate(kind), ensure_ascii=True, sort_keys=True, indent=2,
                       allow_nan=False) + "\n").encode("ascii")


def shipped_path(kind):
    return os.path.join(SCHEMA_DIRECTORY, file_name(kind))


def write_shipped():
    """Regenerate every shipped schema file; return the paths written."""
    from .atomic import write_files_atomically
    files = [(shipped_path(kind), dumps(kind)) for kind in KINDS]
    write_files_atomically(files)
    return [path for path, _data in files]


_USAGE = "usage: python -B -m proagents_bench.schema [spec|cases|results|decision | --write]\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--write"]:
        write_shipped()
        return 0
    if len(argv) == 1 and argv[0] in KINDS:
        stdout = getattr(sys.stdout, "buffer", sys.stdout)
        stdout.write(dumps(argv[0]))
        stdout.flush()
        return 0
    sys.stderr.write(_USAGE)
    return 2


if __name__ == "__main__":
    sys.exit(main())
