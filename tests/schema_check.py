"""A small JSON Schema (draft 2020-12) checker, for the tests only.

It knows exactly the keywords the schema generator emits and fails on any other, so a new
keyword cannot slip into the shipped schemas unchecked. Its semantics are JSON Schema's: a
number with a zero fraction (``8.0``) is an integer, Booleans are never numbers, and ``const``,
``enum`` and ``uniqueItems`` compare JSON values (``1`` equals ``1.0``, ``true`` is not ``1``).
"""

import re
from decimal import Decimal

ANNOTATIONS = {"$schema", "$id", "title", "description"}
KNOWN_KEYWORDS = ANNOTATIONS | {
    "$defs", "$ref", "type", "enum", "const", "minimum", "maximum", "minLength", "pattern",
    "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
    "uniqueItems", "anyOf", "oneOf", "allOf", "if", "then"}


def _is_number(value):
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _json_equal(left, right):
    if _is_number(left) and _is_number(right):
        return left == right
    if type(left) is not type(right):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_json_equal, left, right))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_json_equal(left[key], right[key])
                                                    for key in left)
    return left == right


TYPES = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "string": lambda value: isinstance(value, str),
    "number": _is_number,
    "integer": lambda value: _is_number(value) and value == int(value),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
}


def schema_errors(value, node, root, path="$"):
    """Every way ``value`` fails ``node`` (a JSON Schema within ``root``), as strings."""
    unknown = set(node) - KNOWN_KEYWORDS
    if unknown:
        raise AssertionError("the checker does not know %s" % sorted(unknown))
    errors = []
    if "$ref" in node:
        target = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        errors += schema_errors(value, target, root, path)
    if "type" in node and not TYPES[node["type"]](value):
        return errors + ["%s: not %s" % (path, node["type"])]
    if "const" in node and not _json_equal(value, node["const"]):
        errors.append("%s: not the constant %r" % (path, node["const"]))
    if "enum" in node and not any(_json_equal(value, item) for item in node["enum"]):
        errors.append("%s: not one of %r" % (path, node["enum"]))
    if _is_number(value):
        if "minimum" in node and value < node["minimum"]:
            errors.append("%s: below %s" % (path, node["minimum"]))
        if "maximum" in node and value > node["maximum"]:
            errors.append("%s: above %s" % (path, node["maximum"]))
    if isinstance(value, str):
        if len(value) < node.get("minLength", 0):
            errors.append("%s: too short" % path)
        if "pattern" in node and not re.search(node["pattern"], value):
            errors.append("%s: does not match %s" % (path, node["pattern"]))
    if isinstance(value, list):
        if len(value) < node.get("minItems", 0):
            errors.append("%s: too few items" % path)
        if len(value) > node.get("maxItems", len(value)):
            errors.append("%s: too many items" % path)
        if node.get("uniqueItems"):
            for index, item in enumerate(value):
                if any(_json_equal(item, other) for other in value[:index]):
                    errors.append("%s[%d]: duplicate" % (path, index))
        if "items" in node:
            for index, item in enumerate(value):
                errors += schema_errors(item, node["items"], root, "%s[%d]" % (path, index))
    if isinstance(value, dict):
        properties = node.get("properties", {})
        for key in node.get("required", ()):
            if key not in value:
                errors.append("%s: missing %s" % (path, key))
        for key, item in value.items():
            if key in properties:
                errors += schema_errors(item, properties[key], root, "%s.%s" % (path, key))
            elif node.get("additionalProperties") is False:
                errors.append("%s: unknown key %s" % (path, key))
            elif isinstance(node.get("additionalProperties"), dict):
                errors += schema_errors(item, node["additionalProperties"], root,
                                        "%s.%s" % (path, key))
    if "anyOf" in node:
        if all(schema_errors(value, option, root, path) for option in node["anyOf"]):
            errors.append("%s: matches no anyOf option" % path)
    if "allOf" in node:
        for option in node["allOf"]:
            errors += schema_errors(value, option, root, path)
    if "if" in node and not schema_errors(value, node["if"], root, path):
        errors += schema_errors(value, node.get("then", {}), root, path)
    if "oneOf" in node:
        matching = sum(1 for option in node["oneOf"]
                       if not schema_errors(value, option, root, path))
        if matching != 1:
            errors.append("%s: matches %d oneOf options" % (path, matching))
    return errors
