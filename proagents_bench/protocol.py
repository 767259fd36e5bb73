"""Comparability: every system must have run under exactly the spec's protocol.

This is decided before any metric: a protocol mismatch makes the comparison INCOMPARABLE,
and nothing is graded or ranked.
"""

import json

from .contract import PROTOCOL


def show_value(value):
    """A protocol value as written: strings JSON-quoted, numbers as their literal."""
    if isinstance(value, str):
        return json.dumps(value)
    return str(value)


def protocol_mismatches(spec, systems):
    """``SYSTEM.KEY: expected=X, actual=Y`` for every key where a system differs from the spec.

    ``systems`` are compared in the order given (baseline, then candidate), keys in the
    contract's order. Numbers compare by value, so ``30`` and ``30.0`` agree.
    """
    expected = spec["protocol"]
    mismatches = []
    for system in systems:
        actual = system["protocol"]
        for field in PROTOCOL.fields:
            key = field.key
            if actual[key] != expected[key]:
                mismatches.append("%s.%s: expected=%s, actual=%s" % (
                    system["system_id"], key, show_value(expected[key]),
                    show_value(actual[key])))
    return mismatches
