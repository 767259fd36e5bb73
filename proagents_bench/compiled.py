"""Validity checks compiled from the declarative shapes: the fast path for valid files.

:meth:`proagents_bench.shapes.Shape.check` walks a value generically (a method call per field,
a tuple of errors per level), which for a million records costs seconds. For a valid file
only one bit is needed, so :func:`validator` turns a shape into the source text of one Python
function that answers "is this value valid?" with straight-line code: every field of an object
read once, every type test an identity test (``type(x) is str``), every bound and enum a
constant, nested arrays as inline loops, object rules as calls. The text is generated from the
very attributes ``check`` reads (keys, enums, bounds, ``const``, ``min_items``, rules), then
compiled once per shape.

The compiled function only ever says "valid" or "not sure": any doubt (a shape kind it does not
know, an exception such as a comparison that cannot be made) gives False, and then
``check`` walks the value and produces the errors, with their paths and in their order, as
before. The tests hold the two to the same verdict on valid and damaged files.
"""

from decimal import Decimal

from . import shapes

_NOT_COMPILED = object()


class _Unknown(Exception):
    """A shape this module does not compile (the caller checks generically instead)."""


class _Source:
    """The lines of the function being written, and the constants it refers to."""

    def __init__(self):
        self.lines = []
        self.constants = {"Decimal": Decimal}
        self.names = 0

    def name(self, prefix):
        self.names += 1
        return "%s%d" % (prefix, self.names)

    def constant(self, value):
        name = self.name("k")
        self.constants[name] = value
        return name

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def fail_if(self, depth, condition):
        self.emit(depth, "if %s:" % condition)
        self.emit(depth + 1, "return False")


def _string_test(source, shape, var):
    if shape.enum is not None:
        return "type(%s) is not str or %s not in %s" % (
            var, var, source.constant(frozenset(shape.enum)))
    return "type(%s) is not str or not %s or %s.isspace()" % (var, var, var)


def _bounds(source, shape, var):
    tests = []
    if shape.minimum is not None:
        tests.append("%s < %s" % (var, source.constant(shape.minimum)))
    if shape.maximum is not None:
        tests.append("%s > %s" % (var, source.constant(shape.maximum)))
    return tests


def _value(source, shape, var, depth):
    """Emit the code that returns False unless ``var`` holds a valid ``shape`` value."""
    kind = type(shape)
    if kind is shapes.String:
        source.fail_if(depth, _string_test(source, shape, var))
    elif kind is shapes.NullableString:
        source.fail_if(depth, "%s is not None and (%s)" % (var, _string_test(source, shape,
                                                                               var)))
    elif kind is shapes.Boolean:
        source.fail_if(depth, "type(%s) is not bool" % var)
        if shape.const is not None:
            source.fail_if(depth, "%s is not %r" % (var, shape.const))
    elif kind is shapes.Integer:
        source.fail_if(depth, " or ".join(["type(%s) is not int" % var]
                                          + _bounds(source, shape, var)))
    elif kind is shapes.Number:
        source.fail_if(depth, "type(%s) is not int and type(%s) is not Decimal" % (var, var))
        tests = _bounds(source, shape, var)
        if tests:
            source.fail_if(depth, " or ".join(tests))
    elif kind is shapes.StringSet:
        item = source.name("s")
        source.fail_if(depth, "type(%s) is not list" % var)
        source.emit(depth, "for %s in %s:" % (item, var))
        source.fail_if(depth + 1, "type(%s) is not str or not %s or %s.isspace()" % (
            item, item, item))
        source.fail_if(depth, "len(%s) > 1 and len(set(%s)) != len(%s)" % (var, var, var))
    elif kind is shapes.Array:
        item = source.name("a")
        test = "type(%s) is not list" % var
        if shape.min_items:
            test += " or len(%s) < %d" % (var, shape.min_items)
        source.fail_if(depth, test)
        source.emit(depth, "for %s in %s:" % (item, var))
        _value(source, shape.items, item, depth + 1)
    elif kind is shapes.Object and not shape.root:
        _object(source, shape, var, depth)
    else:
        raise _Unknown(kind.__name__)


def _object(source, shape, var, depth):
    # The same number of keys and every listed key present (a missing one raises KeyError,
    # which the function turns into False) means exactly the listed keys.
    source.fail_if(depth, "type(%s) is not dict or len(%s) != %d" % (
        var, var, len(shape.fields)))
    for field in shape.fields:
        member = source.name("m")
        source.emit(depth, "%s = %s[%r]" % (member, var, field.key))
        _value(source, field.shape, member, depth)
    for rule in shape.rules:
        source.fail_if(depth, "%s(%s)" % (source.constant(rule.check), var))


def _compile(shape):
    source = _Source()
    source.emit(0, "def valid(value):")
    source.emit(1, "try:")
    _value(source, shape, "value", 2)
    source.emit(1, "except Exception:")  # any doubt: let ``check`` decide
    source.emit(2, "return False")
    source.emit(1, "return True")
    namespace = dict(source.constants)
    exec(compile("\n".join(source.lines) + "\n", "<compiled %s>" % shape.describe(), "exec"),
         namespace)
    return namespace["valid"]


def validator(shape):
    """``valid(value) -> bool`` for ``shape`` (True only when the value is valid), or None
    when the shape holds a kind this module does not compile. Compiled once per shape."""
    found = getattr(shape, "_compiled_validator", _NOT_COMPILED)
    if found is _NOT_COMPILED:
        try:
            found = _compile(shape)
        except _Unknown:
            found = None
        shape._compiled_validator = found
    return found


def source_of(shape):
    """The generated source text (for the tests and for curious readers)."""
    source = _Source()
    _value(source, shape, "value", 0)
    return "\n".join(source.lines)
