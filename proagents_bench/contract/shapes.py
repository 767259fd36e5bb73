"""The shape vocabulary: declarative descriptions of JSON values, for inputs and outputs.

A shape describes one JSON value of a contract (a string, an integer in a range, an object
with exactly these keys, ...). Every consumer reads the same shape object, so they cannot
drift apart:

- :meth:`Shape.iter_errors` yields a value's :class:`~proagents_bench.errors.ContractError`
  objects, as jsonschema's ``iter_errors`` does, with paths relative to the value (a parent
  prefixes its key or index on the way up);
- :meth:`Shape.is_valid` answers "valid?" fast: a function generated from the shape (one
  Python function of straight-line code per shape, every field read once, every type test an
  identity test, every bound a constant: see :meth:`Shape.emit`), compiled once. A results
  file of a million records is checked by it; ``iter_errors`` walks the items one by one
  only when it says no, to produce the errors. Any doubt (a shape it does not compile, an
  exception) gives "not sure", never a wrong "valid";
- :meth:`Shape.describe` writes the "type and rule" cell of the docs' tables;
- :meth:`Shape.json_schema` writes JSON Schema 2020-12, titles and field meanings included.

Inputs are closed (an unknown key is an error); the output documents are open by promise
("more keys may be added, none renamed"): ``Object(closed=False)``. Numbers arrive from the
strict loader as ``int`` (integer literals) or ``decimal.Decimal`` (a fraction or exponent),
and output numbers may also be ``float`` (``Number(floats=True)``); bounds are compared
exactly, and ``bool`` is never a number.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import (Callable, Dict, Generic, Iterable, Iterator, List, Optional, Sequence, Set,
                    Tuple, TypeVar, Union, cast)

from ..codes import meaning
from ..errors import ContractError, PathStep
from ..jsonio import JSON, JSONObject
from ..text import quote

# A generated validity function: True only for a valid value.
Validator = Callable[[JSON], bool]
# What a rule's check yields: an object's rules, errors; the rules across files (see
# rules.py), (file kind, error) pairs.
Finding = TypeVar("Finding")

SCHEMA_KEY = "$schema"
SCHEMA_KEY_MEANING = ("a JSON Schema reference for editors (a URL or a relative path to a copy "
                      "of this schema); the only extra key accepted")

_NOT_COMPILED = object()


class NotCompiled(Exception):
    """A shape that :meth:`Shape.emit` cannot turn into code (the generic walk decides)."""


def type_name(value: object) -> str:
    """What kind of JSON value ``value`` is, for messages: expected X, got *a string*."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a Boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, (Decimal, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _type_error(expected: str, value: object) -> ContractError:
    return ContractError("schema.type", "expected %s, got %s" % (expected, type_name(value)))


def _is_blank(value: str) -> bool:
    return not value or value.isspace()


class Source:
    """The lines of a validity function being generated, and the constants it refers to."""

    def __init__(self) -> None:
        self.lines: List[str] = []
        self.constants: Dict[str, object] = {"Decimal": Decimal}
        self.names = 0

    def name(self, prefix: str) -> str:
        self.names += 1
        return "%s%d" % (prefix, self.names)

    def constant(self, value: object) -> str:
        name = self.name("k")
        self.constants[name] = value
        return name

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def fail_if(self, depth: int, condition: str) -> None:
        self.emit(depth, "if %s:" % condition)
        self.emit(depth + 1, "return False")


class Shape:
    """Base of all shapes."""

    _compiled: Optional[Validator]  # set by validator() on first use

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def json_schema(self) -> JSONObject:
        raise NotImplementedError

    def emit(self, source: Source, var: str, depth: int) -> None:
        """Write code that returns False unless ``var`` holds a valid value."""
        raise NotCompiled(type(self).__name__)

    def is_valid(self, value: JSON) -> bool:
        """True only when ``value`` is valid (False may also mean "not sure")."""
        valid = self.validator()
        if valid is None:
            return next(iter(self.iter_errors(value)), None) is None
        return valid(value)

    def validator(self) -> Optional[Validator]:
        """The generated validity function, or None when the shape cannot be compiled."""
        found: Optional[Validator] = self.__dict__.get("_compiled", _NOT_COMPILED)
        if found is _NOT_COMPILED:
            try:
                found = _compile(self)
            except NotCompiled:
                found = None
            self._compiled = found
        return found

    def source_text(self) -> str:
        """The generated code (for the tests and for curious readers)."""
        source = Source()
        self.emit(source, "value", 0)
        return "\n".join(source.lines)


def _compile(shape: Shape) -> Validator:
    source = Source()
    source.emit(0, "def valid(value):")
    source.emit(1, "try:")
    shape.emit(source, "value", 2)
    source.emit(1, "except Exception:")  # any doubt: let iter_errors decide
    source.emit(2, "return False")
    source.emit(1, "return True")
    namespace = dict(source.constants)
    exec(compile("\n".join(source.lines) + "\n", "<shape %s>" % shape.describe(), "exec"),
         namespace)
    return cast("Validator", namespace["valid"])  # the function the code above defines


class String(Shape):
    """A JSON string that is not empty and not only whitespace (unless ``blank``); with
    ``enum``, one of those; with ``pattern``, matching that regular expression."""

    def __init__(self, enum: Optional[Iterable[str]] = None, blank: bool = False,
                 pattern: Optional[str] = None) -> None:
        self.enum = tuple(enum) if enum is not None else None
        self.blank = blank
        self.pattern = pattern
        self._pattern = re.compile(pattern) if pattern else None

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        if type(value) is not str:
            yield _type_error("a string", value)
        elif self.enum is not None:
            if value not in self.enum:
                yield ContractError("schema.enum", "expected %s, got %s" % (
                    _one_of(self.enum), quote(value)))
        elif not self.blank and _is_blank(value):
            yield ContractError("schema.blank_string",
                                "expected a non-empty string that is not only whitespace")
        elif self._pattern is not None and not self._pattern.search(value):
            yield ContractError("schema.pattern", "expected a string matching %s" % (
                self.pattern,))

    def describe(self) -> str:
        if self.enum is not None:
            return " or ".join("`%s`" % item for item in self.enum)
        if self.pattern:
            return "string matching `%s`" % self.pattern
        return "string"

    def json_schema(self) -> JSONObject:
        if self.enum is not None:
            if len(self.enum) == 1:
                return {"type": "string", "const": self.enum[0]}
            return {"type": "string", "enum": list(self.enum)}
        schema: JSONObject = {"type": "string"} if self.blank else {
            "type": "string", "minLength": 1, "pattern": "\\S"}
        if self.pattern:
            schema["pattern"] = self.pattern
        return schema

    def test(self, source: Source, var: str) -> str:
        """The condition, as code, under which ``var`` is not a valid value."""
        if self.enum is not None:
            return "type(%s) is not str or %s not in %s" % (
                var, var, source.constant(frozenset(self.enum)))
        test = "type(%s) is not str" % var
        if not self.blank:
            test += " or not %s or %s.isspace()" % (var, var)
        if self._pattern is not None:
            test += " or not %s(%s)" % (source.constant(self._pattern.search), var)
        return test

    def emit(self, source: Source, var: str, depth: int) -> None:
        source.fail_if(depth, self.test(source, var))


class Boolean(Shape):
    """``true`` or ``false``; with ``const``, only that value."""

    def __init__(self, const: Optional[bool] = None) -> None:
        self.const = const

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        if type(value) is not bool:
            yield _type_error("a Boolean", value)
        elif self.const is not None and value is not self.const:
            yield ContractError("schema.const", "must be %s" % _json_literal(self.const))

    def describe(self) -> str:
        if self.const is None:
            return "Boolean"
        return "Boolean, must be `%s`" % _json_literal(self.const)

    def json_schema(self) -> JSONObject:
        if self.const is None:
            return {"type": "boolean"}
        return {"type": "boolean", "const": self.const}

    def emit(self, source: Source, var: str, depth: int) -> None:
        source.fail_if(depth, "type(%s) is not bool" % var)
        if self.const is not None:
            source.fail_if(depth, "%s is not %r" % (var, self.const))


class Integer(Shape):
    """A JSON number written without fraction or exponent, within ``minimum..maximum``
    (``maximum_text`` is how the docs write the maximum, such as ``2^53-1``)."""

    def __init__(self, minimum: Optional[int] = None, maximum: Optional[int] = None,
                 maximum_text: Optional[str] = None) -> None:
        self.minimum = minimum
        self.maximum = maximum
        self.maximum_text = maximum_text

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        if type(value) is not int:
            yield _type_error("an integer", value)
        elif ((self.minimum is not None and value < self.minimum)
              or (self.maximum is not None and value > self.maximum)):
            yield ContractError("schema.range", "expected an integer %s, got %d" % (
                _range_text(self.minimum, self.maximum_text or self.maximum), value))

    def describe(self) -> str:
        return "integer " + _range_text(self.minimum, self.maximum_text or self.maximum)

    def json_schema(self) -> JSONObject:
        schema: JSONObject = {"type": "integer"}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return schema

    def emit(self, source: Source, var: str, depth: int) -> None:
        source.fail_if(depth, " or ".join(["type(%s) is not int" % var]
                                          + _bound_tests(source, self, var)))


class Number(Shape):
    """A finite JSON number within ``minimum..maximum`` (bounds are exact decimals); with
    ``floats``, a Python float is accepted too (the output documents' numbers)."""

    def __init__(self, minimum: Union[int, str, None] = None,
                 maximum: Union[int, str, None] = None, floats: bool = False) -> None:
        self.minimum = Decimal(minimum) if minimum is not None else None
        self.maximum = Decimal(maximum) if maximum is not None else None
        self.floats = floats

    def _types(self) -> Tuple[type, ...]:
        return (int, Decimal, float) if self.floats else (int, Decimal)

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        if type(value) not in self._types():
            yield _type_error("a number", value)
        elif ((self.minimum is not None and value < self.minimum)
              or (self.maximum is not None and value > self.maximum)):
            yield ContractError("schema.range", "expected a number %s, got %s" % (
                _range_text(self.minimum, self.maximum), value))

    def describe(self) -> str:
        return ("number " + _range_text(self.minimum, self.maximum)).rstrip()

    def json_schema(self) -> JSONObject:
        schema: JSONObject = {"type": "number"}
        if self.minimum is not None:
            schema["minimum"] = _schema_number(self.minimum)
        if self.maximum is not None:
            schema["maximum"] = _schema_number(self.maximum)
        return schema

    def emit(self, source: Source, var: str, depth: int) -> None:
        source.fail_if(depth, "type(%s) not in %s" % (var, source.constant(
            frozenset(self._types()))))
        tests = _bound_tests(source, self, var)
        if tests:
            source.fail_if(depth, " or ".join(tests))


_STRING = String()


class StringSet(Shape):
    """An array of *strings* without duplicates; may be empty. With ``enum``, each item is
    one of those strings."""

    def __init__(self, enum: Optional[Iterable[str]] = None) -> None:
        self.item = String(enum=enum) if enum is not None else _STRING

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        if type(value) is not list:
            yield _type_error("an array of strings", value)
            return
        seen: Set[str] = set()
        for index, item in enumerate(value):
            problems = list(self.item.iter_errors(item))
            if problems:
                for error in problems:
                    yield error.prefixed((index,))
            elif item in seen:
                yield ContractError("schema.duplicate_item", "duplicate item %s" % quote(item),
                                    (index,))
            else:
                seen.add(item)

    def describe(self) -> str:
        if self.item is _STRING:
            return "string set"
        return "set of %s" % self.item.describe()

    def json_schema(self) -> JSONObject:
        return {"type": "array", "items": self.item.json_schema(), "uniqueItems": True}

    def emit(self, source: Source, var: str, depth: int) -> None:
        item = source.name("s")
        source.fail_if(depth, "type(%s) is not list" % var)
        source.emit(depth, "for %s in %s:" % (item, var))
        source.fail_if(depth + 1, self.item.test(source, item))
        source.fail_if(depth, "len(%s) > 1 and len(set(%s)) != len(%s)" % (var, var, var))


class Array(Shape):
    """An array whose every item has shape ``items``, with ``min_items`` to ``max_items``
    items; ``summary`` replaces the docs' generated wording."""

    def __init__(self, items: Shape, min_items: int = 0, max_items: Optional[int] = None,
                 summary: Optional[str] = None) -> None:
        self.items = items
        self.min_items = min_items
        self.max_items = max_items
        self.summary = summary

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        if type(value) is not list:
            yield _type_error("an array", value)
            return
        if len(value) < self.min_items:
            yield ContractError("schema.too_few_items", "expected at least %d item%s" % (
                self.min_items, "" if self.min_items == 1 else "s"))
        elif self.max_items is not None and len(value) > self.max_items:
            yield ContractError("schema.too_many_items", "expected at most %d item%s" % (
                self.max_items, "" if self.max_items == 1 else "s"))
        elif self._all_valid(value):
            return
        for index, item in enumerate(value):
            for error in self.items.iter_errors(item):
                yield error.prefixed((index,))

    def _all_valid(self, value: List[JSON]) -> bool:
        valid = self.items.validator()
        return valid is not None and all(map(valid, value))

    def describe(self) -> str:
        if self.summary:
            return self.summary
        return ("non-empty array" if self.min_items else "array") + " of " + (
            self.items.describe()) + ("" if self.max_items is None else
                                      ", at most %d items" % self.max_items)

    def json_schema(self) -> JSONObject:
        schema: JSONObject = {"type": "array", "items": self.items.json_schema()}
        if self.min_items:
            schema["minItems"] = self.min_items
        if self.max_items is not None:
            schema["maxItems"] = self.max_items
        return schema

    def emit(self, source: Source, var: str, depth: int) -> None:
        item = source.name("a")
        test = "type(%s) is not list" % var
        if self.min_items:
            test += " or len(%s) < %d" % (var, self.min_items)
        if self.max_items is not None:
            test += " or len(%s) > %d" % (var, self.max_items)
        source.fail_if(depth, test)
        source.emit(depth, "for %s in %s:" % (item, var))
        self.items.emit(source, item, depth + 1)


class Nullable(Shape):
    """``shape``, or ``null``."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        if value is not None:
            yield from self.shape.iter_errors(value)

    def describe(self) -> str:
        return self.shape.describe() + " or `null`"

    def json_schema(self) -> JSONObject:
        return {"anyOf": [self.shape.json_schema(), {"type": "null"}]}

    def emit(self, source: Source, var: str, depth: int) -> None:
        source.emit(depth, "if %s is not None:" % var)
        self.shape.emit(source, var, depth + 1)


class Mapping(Shape):
    """An object whose keys are names chosen by the data (slices, families, k) and whose
    every value has shape ``values``."""

    def __init__(self, values: Shape) -> None:
        self.values = values

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        if type(value) is not dict:
            yield _type_error("an object", value)
            return
        for key, item in value.items():
            for error in self.values.iter_errors(item):
                yield error.prefixed((key,))

    def describe(self) -> str:
        return "object of " + self.values.describe()

    def json_schema(self) -> JSONObject:
        return {"type": "object", "additionalProperties": self.values.json_schema()}


class Rule(Generic[Finding]):
    """A rule of the contract beyond what a shape says: its stable ``code`` and its
    ``check``; its ``text`` (the docs' statement of it) is the code's meaning in
    :mod:`proagents_bench.codes`. The check yields the rule's errors, each made by
    :meth:`error` (so the code is written only here). An object's rules get the object; the
    rules across files (:mod:`.rules`) a context."""

    def __init__(self, code: str, check: Callable[..., Iterable[Finding]]) -> None:
        self.code = code
        self.text = meaning(code)
        self.check = check

    def error(self, message: str, path: Iterable[PathStep] = ()) -> ContractError:
        return ContractError(self.code, message, path)

    def iter_errors(self, *arguments: object) -> Iterator[Finding]:
        return iter(self.check(*arguments))

    def violated(self, *arguments: object) -> bool:
        return next(iter(self.check(*arguments)), None) is not None


class Field:
    """One key of an object: its shape, whether it must be present, and what it means."""

    def __init__(self, key: str, shape: Shape, meaning: str = "",
                 required: bool = True) -> None:
        self.key = key
        self.shape = shape
        self.meaning = meaning
        self.required = required


class Object(Shape):
    """An object with the listed ``fields``. ``closed`` (inputs): exactly those keys, a
    missing and an unknown key both errors; a file's ``root`` may also carry ``"$schema"``
    (a string) for editors. Open (outputs): the required keys, the ``optional`` ones, and
    maybe more. ``rules`` run once every field is valid."""

    def __init__(self, name: str, fields: Sequence[Field],
                 rules: Sequence[Rule[ContractError]] = (),
                 root: bool = False, title: Optional[str] = None, closed: bool = True,
                 optional: Sequence[Field] = ()) -> None:
        self.name = name
        self.title = title or name
        self.fields = tuple(fields) + tuple(
            Field(field.key, field.shape, field.meaning, required=False) for field in optional)
        self.rules = tuple(rules)
        self.root = root
        self.closed = closed
        self._keys = frozenset(field.key for field in self.fields)
        self._required = tuple(field for field in self.fields if field.required)

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        if type(value) is not dict:
            yield _type_error("an object (%s)" % self.name, value)
            return
        found = False
        for error in self._key_errors(value):
            found = True
            yield error
        for field in self.fields:
            if field.key in value:
                for error in field.shape.iter_errors(value[field.key]):
                    found = True
                    yield error.prefixed((field.key,))
        if not found:
            for rule in self.rules:
                yield from rule.iter_errors(value)

    def _key_errors(self, value: JSONObject) -> Iterator[ContractError]:
        for field in self._required:
            if field.key not in value:
                yield ContractError("schema.missing_key", "missing required key %s in %s" % (
                    quote(field.key), self.name), (field.key,))
        if not self.closed:
            return
        for key in value:
            if key in self._keys:
                continue
            if self.root and key == SCHEMA_KEY:
                for error in _STRING.iter_errors(value[key]):
                    yield error.prefixed((key,))
                continue
            yield ContractError("schema.unknown_key", "unknown key %s in %s (allowed: %s)" % (
                quote(key), self.name, ", ".join(field.key for field in self.fields)), (key,))

    def describe(self) -> str:
        return "%s object" % self.title

    def json_schema(self) -> JSONObject:
        properties: Dict[str, JSONObject] = {}
        for field in self.fields:
            properties[field.key] = field.shape.json_schema()
            if field.meaning:
                properties[field.key]["description"] = field.meaning
        if self.root:
            properties[SCHEMA_KEY] = dict(_STRING.json_schema(),
                                          description=SCHEMA_KEY_MEANING)
        schema: JSONObject = {
            "type": "object",
            "title": self.title,
            "properties": properties,
            "required": [field.key for field in self._required],
        }
        if self.closed:
            schema["additionalProperties"] = False
        return schema

    def emit(self, source: Source, var: str, depth: int) -> None:
        if self.root or not self.closed or any(not field.required for field in self.fields):
            raise NotCompiled("an object with optional or extra keys")
        # The same number of keys and every listed key present (a missing one raises
        # KeyError, which the function turns into False) means exactly the listed keys.
        source.fail_if(depth, "type(%s) is not dict or len(%s) != %d" % (
            var, var, len(self.fields)))
        for field in self.fields:
            member = source.name("m")
            source.emit(depth, "%s = %s[%r]" % (member, var, field.key))
            field.shape.emit(source, member, depth)
        for rule in self.rules:
            source.fail_if(depth, "%s(%s)" % (source.constant(rule.violated), var))


class AnyOf(Shape):
    """A value of one of ``shapes`` (the output documents, told apart by ``action``): its
    errors are those of the shape it comes closest to (the fewest errors)."""

    def __init__(self, shapes: Sequence[Shape]) -> None:
        self.shapes = tuple(shapes)

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        best: Optional[List[ContractError]] = None
        for shape in self.shapes:
            errors = list(shape.iter_errors(value))
            if not errors:
                return
            if best is None or len(errors) < len(best):
                best = errors
        yield from best or ()

    def describe(self) -> str:
        return " or ".join(shape.describe() for shape in self.shapes)

    def json_schema(self) -> JSONObject:
        return {"anyOf": [shape.json_schema() for shape in self.shapes]}


def object_shapes(shape: Shape, seen: Set[Object]) -> Iterator[Object]:
    """Every object shape reachable from ``shape``, parents first, each once (``seen`` holds
    the shapes already given, shared between calls to list each shape once overall)."""
    if isinstance(shape, (Array, Mapping)):
        yield from object_shapes(shape.items if isinstance(shape, Array) else shape.values,
                                 seen)
    elif isinstance(shape, Nullable):
        yield from object_shapes(shape.shape, seen)
    elif isinstance(shape, AnyOf):
        for inner in shape.shapes:
            yield from object_shapes(inner, seen)
    elif isinstance(shape, Object) and shape not in seen:
        seen.add(shape)
        yield shape
        for field in shape.fields:
            yield from object_shapes(field.shape, seen)


def _bound_tests(source: Source, shape: Union[Integer, Number], var: str) -> List[str]:
    tests = []
    if shape.minimum is not None:
        tests.append("%s < %s" % (var, source.constant(shape.minimum)))
    if shape.maximum is not None:
        tests.append("%s > %s" % (var, source.constant(shape.maximum)))
    return tests


def _range_text(minimum: object, maximum: object) -> str:
    if minimum is not None and maximum is not None:
        return "%s..%s" % (minimum, maximum)
    if minimum is not None:
        return ">= %s" % minimum
    if maximum is not None:
        return "<= %s" % maximum
    return ""


def _schema_number(value: Decimal) -> Union[int, float]:
    integral = value.to_integral_value()
    return int(integral) if integral == value else float(value)


def _json_literal(value: object) -> str:
    return "true" if value is True else "false" if value is False else repr(value)


def _one_of(options: Sequence[str]) -> str:
    if len(options) == 1:
        return quote(options[0])
    return "one of " + ", ".join(quote(option) for option in options)
