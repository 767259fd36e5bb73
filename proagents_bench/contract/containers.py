"""The shapes that hold other shapes: arrays, nullable values, mappings of names chosen by
the data, objects with their fields and rules, and a choice of shapes (the output documents).

Each is a :class:`~.shapes.Shape` (see :mod:`.shapes` for what every shape offers: errors, a
generated validity function, the docs' wording, JSON Schema); a container prefixes its key
or index to its items' error paths, and its generated code runs its items' code inline.
"""

from __future__ import annotations

from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set

from ..errors import ContractError
from ..jsonio import JSON, JSONObject
from ..steps import BATCH, watcher
from ..text import nearest, quote
from .shapes import NotCompiled, Rule, Shape, Source, String, wrong_type

# The one extra key a file's root object accepts: any non-blank string.
SCHEMA_KEY = "$schema"
SCHEMA_KEY_MEANING = ("a JSON Schema reference for editors (a URL or a relative path to a copy "
                      "of this schema); the only extra key accepted")
_SCHEMA_REFERENCE = String()


def all_counted(valid: Callable[[JSON], bool], items: List[JSON]) -> bool:
    """Whether ``valid(item)`` holds for every item, telling the watcher (if any) how many
    were checked after each batch of :data:`~proagents_bench.steps.BATCH`."""
    advance = watcher()
    if advance is None:
        return all(map(valid, items))
    for start in range(0, len(items), BATCH):
        if not all(map(valid, items[start:start + BATCH])):
            return False
        advance(min(BATCH, len(items) - start))
    return True


class Array(Shape):
    """An array whose every item has shape ``items``, with ``min_items`` to ``max_items``
    items; ``summary`` replaces the docs' generated wording. A ``counted`` array (a system's
    records, millions of them) tells a watcher how many of its items were checked
    (:mod:`proagents_bench.steps`)."""

    def __init__(self, items: Shape, min_items: int = 0, max_items: Optional[int] = None,
                 summary: Optional[str] = None, counted: bool = False) -> None:
        self.items = items
        self.min_items = min_items
        self.max_items = max_items
        self.summary = summary
        self.counted = counted

    def iter_errors(self, value: JSON) -> Iterator[ContractError]:
        if type(value) is not list:
            yield wrong_type("an array", value)
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
        if valid is None:
            return False
        return all_counted(valid, value) if self.counted else all(map(valid, value))

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
        if not self.counted:
            source.emit(depth, "for %s in %s:" % (item, var))
            self.items.emit(source, item, depth + 1)
            return
        # Unwatched (nearly always), the items' code inline, as any array's; watched, the
        # items' own function a batch at a time, each batch told.
        valid = self.items.validator()
        if valid is None:
            raise NotCompiled("a counted array of items that are not compiled")
        source.emit(depth, "if %s() is None:" % source.constant(watcher))
        source.emit(depth + 1, "for %s in %s:" % (item, var))
        self.items.emit(source, item, depth + 2)
        source.emit(depth, "elif not %s(%s, %s):" % (source.constant(all_counted),
                                                     source.constant(valid), var))
        source.emit(depth + 1, "return False")


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
            yield wrong_type("an object", value)
            return
        for key, item in value.items():
            for error in self.values.iter_errors(item):
                yield error.prefixed((key,))

    def describe(self) -> str:
        return "object of " + self.values.describe()

    def json_schema(self) -> JSONObject:
        return {"type": "object", "additionalProperties": self.values.json_schema()}


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
            yield wrong_type("an object (%s)" % self.name, value)
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
        missing = [field.key for field in self._required if field.key not in value]
        unknown = [key for key in value if key not in self._keys] if self.closed else []
        if self.root and SCHEMA_KEY in unknown:
            unknown.remove(SCHEMA_KEY)
            for error in _SCHEMA_REFERENCE.iter_errors(value[SCHEMA_KEY]):
                yield error.prefixed((SCHEMA_KEY,))
        # An unknown key near a key the object lacks is most often that key misspelled
        # (final_stat): one error, at the key the file holds, names the key meant; a
        # missing required key it names is not reported again.
        meant: Dict[str, str] = {}
        for key in unknown:
            absent = [field.key for field in self.fields
                      if field.key not in value and field.key not in meant.values()]
            near = nearest(key, absent)
            if near is not None:
                meant[key] = near
        for key in missing:
            if key not in meant.values():
                yield ContractError("schema.missing_key", "missing required key %s in %s" % (
                    quote(key), self.name), (key,))
        for key in unknown:
            if key in meant:
                yield ContractError("schema.unknown_key", "unknown key %s in %s: did you mean "
                                    "%s? (%s)" % (quote(key), self.name, quote(meant[key]),
                                                  "a required key, missing" if meant[key] in
                                                  missing else "an optional key"), (key,))
            else:
                yield ContractError("schema.unknown_key", "unknown key %s in %s (allowed: %s)"
                                    % (quote(key), self.name,
                                       ", ".join(field.key for field in self.fields)), (key,))

    def describe(self) -> str:
        return "%s object" % self.title

    def json_schema(self) -> JSONObject:
        properties: Dict[str, JSONObject] = {}
        for field in self.fields:
            properties[field.key] = field.shape.json_schema()
            if field.meaning:
                properties[field.key]["description"] = field.meaning
        if self.root:
            properties[SCHEMA_KEY] = dict(_SCHEMA_REFERENCE.json_schema(),
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
