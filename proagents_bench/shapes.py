"""Declarative shapes of JSON values, and the checks they imply.

A shape describes one JSON value of a contract (a string, an integer in a range, an object
with exactly these keys...). The same shape object is read by three consumers, so they cannot
drift apart: :meth:`Shape.check` validates a loaded value, :meth:`Shape.describe` writes the
"type and rule" cell of the README's field tables, and :meth:`Shape.json_schema` emits JSON
Schema 2020-12.

``check`` returns a list of :class:`~proagents_bench.errors.ContractError` whose paths are
relative to the value checked (a parent prefixes its key or index on the way up), or the
empty tuple when the value is valid: the valid case allocates nothing, because a results
file may hold a million records. And valid arrays are not walked here at all: ``Array.check``
first asks a function compiled from its item shape (:mod:`proagents_bench.compiled`) whether
every item is valid, and walks the items one by one, producing the errors, only when not.

Numbers arrive from the strict loader as ``int`` (integer literals) or ``decimal.Decimal``
(literals with a fraction or exponent); bounds are compared exactly, and ``bool`` is never a
number.
"""

from decimal import Decimal

from .errors import ContractError, quote

_NO_ERRORS = ()


def _type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a Boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, Decimal):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _type_error(expected, value):
    return [ContractError("schema.type", "expected %s, got %s" % (expected, _type_name(value)))]


def _is_blank(value):
    return not value or value.isspace()


class Shape:
    """Base of all shapes. ``summary`` is the README's wording for the type."""

    def check(self, value):
        raise NotImplementedError

    def describe(self):
        raise NotImplementedError

    def json_schema(self):
        raise NotImplementedError


class String(Shape):
    """A JSON string that is not empty and not only whitespace; optionally one of ``enum``."""

    def __init__(self, enum=None):
        self.enum = tuple(enum) if enum is not None else None

    def check(self, value):
        if type(value) is not str:
            return _type_error("a string", value)
        if self.enum is not None:
            if value not in self.enum:
                return [ContractError("schema.enum", "expected %s, got %s" % (
                    _one_of(self.enum), quote(value)))]
            return _NO_ERRORS
        if _is_blank(value):
            return [ContractError("schema.blank_string",
                                  "expected a non-empty string that is not only whitespace")]
        return _NO_ERRORS

    def describe(self):
        if self.enum is None:
            return "string"
        return " or ".join("`%s`" % item for item in self.enum)

    def json_schema(self):
        if self.enum is not None:
            if len(self.enum) == 1:
                return {"type": "string", "const": self.enum[0]}
            return {"type": "string", "enum": list(self.enum)}
        return {"type": "string", "minLength": 1, "pattern": "\\S"}


class NullableString(String):
    """A *string*, or ``null``."""

    def check(self, value):
        if value is None:
            return _NO_ERRORS
        return String.check(self, value)

    def describe(self):
        return "string or `null`"

    def json_schema(self):
        return {"anyOf": [String.json_schema(self), {"type": "null"}]}


class Boolean(Shape):
    """``true`` or ``false``; with ``const``, only that value."""

    def __init__(self, const=None):
        self.const = const

    def check(self, value):
        if type(value) is not bool:
            return _type_error("a Boolean", value)
        if self.const is not None and value is not self.const:
            return [ContractError("schema.const", "must be %s" % _json_literal(self.const))]
        return _NO_ERRORS

    def describe(self):
        if self.const is None:
            return "Boolean"
        return "Boolean, must be `%s`" % _json_literal(self.const)

    def json_schema(self):
        if self.const is None:
            return {"type": "boolean"}
        return {"type": "boolean", "const": self.const}


class Integer(Shape):
    """A JSON number written without fraction or exponent, within ``minimum..maximum``."""

    def __init__(self, minimum=None, maximum=None, maximum_text=None):
        self.minimum = minimum
        self.maximum = maximum
        self.maximum_text = maximum_text

    def check(self, value):
        if type(value) is not int:
            return _type_error("an integer", value)
        if ((self.minimum is not None and value < self.minimum)
                or (self.maximum is not None and value > self.maximum)):
            return [ContractError("schema.range", "expected an integer %s, got %d" % (
                self._range_text(), value))]
        return _NO_ERRORS

    def _range_text(self):
        return _range_text(self.minimum, self.maximum_text or self.maximum)

    def describe(self):
        return "integer " + self._range_text()

    def json_schema(self):
        schema = {"type": "integer"}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return schema


class Number(Shape):
    """A finite JSON number within ``minimum..maximum`` (bounds are exact decimals)."""

    def __init__(self, minimum=None, maximum=None):
        self.minimum = Decimal(minimum) if minimum is not None else None
        self.maximum = Decimal(maximum) if maximum is not None else None

    def check(self, value):
        kind = type(value)
        if kind is not int and kind is not Decimal:
            return _type_error("a number", value)
        if ((self.minimum is not None and value < self.minimum)
                or (self.maximum is not None and value > self.maximum)):
            return [ContractError("schema.range", "expected a number %s, got %s" % (
                _range_text(self.minimum, self.maximum), value))]
        return _NO_ERRORS

    def describe(self):
        return "number " + _range_text(self.minimum, self.maximum)

    def json_schema(self):
        schema = {"type": "number"}
        if self.minimum is not None:
            schema["minimum"] = _schema_number(self.minimum)
        if self.maximum is not None:
            schema["maximum"] = _schema_number(self.maximum)
        return schema


class StringSet(Shape):
    """An array of *strings* without duplicates; may be empty."""

    def check(self, value):
        if type(value) is not list:
            return _type_error("an array of strings", value)
        if not value:
            return _NO_ERRORS
        errors = None
        seen = set()
        for index, item in enumerate(value):
            if type(item) is not str or _is_blank(item):
                problem = String().check(item)
                errors = (errors or []) + [error.prefixed((index,)) for error in problem]
            elif item in seen:
                errors = (errors or []) + [ContractError(
                    "schema.duplicate_item", "duplicate item %s" % quote(item), (index,))]
            else:
                seen.add(item)
        return errors or _NO_ERRORS

    def describe(self):
        return "string set"

    def json_schema(self):
        return {"type": "array", "items": String().json_schema(), "uniqueItems": True}


class Array(Shape):
    """An array whose every item has shape ``items``; ``min_items`` at least."""

    def __init__(self, items, min_items=0, summary=None):
        self.items = items
        self.min_items = min_items
        self.summary = summary

    def check(self, value):
        if type(value) is not list:
            return _type_error("an array", value)
        errors = None
        if len(value) < self.min_items:
            errors = [ContractError("schema.too_few_items", "expected at least %d item%s" % (
                self.min_items, "" if self.min_items == 1 else "s"))]
        elif self._all_valid(value):
            return _NO_ERRORS
        check_item = self.items.check
        for index, item in enumerate(value):
            problems = check_item(item)
            if problems:
                errors = errors or []
                errors.extend(error.prefixed((index,)) for error in problems)
        return errors or _NO_ERRORS

    def _all_valid(self, value):
        from .compiled import validator  # here: that module reads this one's classes
        valid = validator(self.items)
        return valid is not None and all(map(valid, value))

    def describe(self):
        if self.summary:
            return self.summary
        return ("non-empty array" if self.min_items else "array") + " of " + (
            self.items.describe())

    def json_schema(self):
        schema = {"type": "array", "items": self.items.json_schema()}
        if self.min_items:
            schema["minItems"] = self.min_items
        return schema


class Field:
    """One key of an object: its shape and, for the README, what it means."""

    def __init__(self, key, shape, meaning=""):
        self.key = key
        self.shape = shape
        self.meaning = meaning


class Rule:
    """A rule across the fields of one object, checked once each field is valid.

    ``check(obj)`` returns ContractErrors with paths relative to the object. ``text`` is the
    rule as the README states it.
    """

    def __init__(self, code, text, check):
        self.code = code
        self.text = text
        self.check = check


SCHEMA_KEY = "$schema"


class Object(Shape):
    """An object with exactly the listed keys (a missing and an unknown key are both errors).

    A file's root object (``root=True``) may also carry ``"$schema"`` (a string), so that
    editors can complete and check the file against the published JSON Schema.
    """

    def __init__(self, name, fields, rules=(), root=False, title=None):
        self.name = name
        self.title = title or name
        self.fields = tuple(fields)
        self.rules = tuple(rules)
        self.root = root
        self._shapes = {field.key: field.shape for field in self.fields}
        self._keys = frozenset(self._shapes)
        self._items = tuple(self._shapes.items())

    def field(self, key):
        return self._shapes[key]

    def check(self, value):
        if type(value) is not dict:
            return _type_error("an object (%s)" % self.name, value)
        errors = None
        keys = value.keys()
        if keys != self._keys:
            errors = list(self._key_errors(value))
        for key, shape in self._items:
            if key in value:
                problems = shape.check(value[key])
                if problems:
                    errors = errors or []
                    errors.extend(error.prefixed((key,)) for error in problems)
        if errors:
            return errors
        for rule in self.rules:
            problems = rule.check(value)
            if problems:
                errors = errors or []
                errors.extend(problems)
        return errors or _NO_ERRORS

    def _key_errors(self, value):
        for field in self.fields:
            if field.key not in value:
                yield ContractError("schema.missing_key", "missing required key %s in %s" % (
                    quote(field.key), self.name), (field.key,))
        for key in value:
            if key in self._keys:
                continue
            if self.root and key == SCHEMA_KEY:
                for error in String().check(value[key]):
                    yield error.prefixed((key,))
                continue
            yield ContractError("schema.unknown_key", "unknown key %s in %s (allowed: %s)" % (
                quote(key), self.name, ", ".join(field.key for field in self.fields)), (key,))

    def describe(self):
        return "%s object" % self.title

    def json_schema(self):
        properties = {field.key: field.shape.json_schema() for field in self.fields}
        if self.root:
            properties[SCHEMA_KEY] = String().json_schema()
        return {
            "type": "object",
            "properties": properties,
            "required": [field.key for field in self.fields],
            "additionalProperties": False,
        }


def _range_text(minimum, maximum):
    if minimum is not None and maximum is not None:
        return "%s..%s" % (minimum, maximum)
    if minimum is not None:
        return ">= %s" % minimum
    if maximum is not None:
        return "<= %s" % maximum
    return ""


def _schema_number(value):
    integral = value.to_integral_value()
    return int(integral) if integral == value else float(value)


def _json_literal(value):
    return "true" if value is True else "false" if value is False else repr(value)



def _one_of(options):
    if len(options) == 1:
        return quote(options[0])
    return "one of " + ", ".join(quote(option) for option in options)
