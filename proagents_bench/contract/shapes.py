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

This module holds the base :class:`Shape` with the code it generates (:class:`Source`), the
scalar shapes (strings, Booleans, integers, numbers, sets of strings) and :class:`Rule`, a
rule beyond what a shape says; the shapes that hold other shapes (arrays, objects, ...) are
in :mod:`.containers`.

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


def wrong_type(expected: str, value: object) -> ContractError:
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
            yield wrong_type("a string", value)
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
            yield wrong_type("a Boolean", value)
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
            yield wrong_type("an integer", value)
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
            yield wrong_type("a number", value)
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
            yield wrong_type("an array of strings", value)
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
