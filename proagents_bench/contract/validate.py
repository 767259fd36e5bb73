"""Validate one loaded file against the contract of its kind (spec, cases or results; the
import command's mapping through :func:`version_errors` with the mapping's own shapes).

The file's ``schema_version`` picks the shape; every error of the file is collected, each
with the JSON path of the offending element (the loader later places it at a line and column).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Mapping

from ..errors import ContractError
from ..text import quote
from .inputs import FILE_KINDS
from .vocabulary import LEDGER_VERSIONS, MAPPING_VERSIONS, RELEASE_VERSIONS

# Every kind of file the commands read, by its schema versions: what a version names when a
# file is passed as the wrong kind.
VERSIONS_OF_KIND = dict({kind: tuple(shapes) for kind, shapes in FILE_KINDS.items()},
                        mapping=MAPPING_VERSIONS, release=RELEASE_VERSIONS,
                        ledger=LEDGER_VERSIONS)


# Where a file of another kind belongs, for the hint of a misplaced file: the option (the
# kind's name, unless listed) and the command (the gate's, unless listed).
_OPTIONS = {"release": "manifest"}
_COMMANDS = {"mapping": " to the import command", "release": " to the release command"}

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from .shapes import Shape


def file_errors(kind: str, value: JSONObject) -> List[ContractError]:
    """The contract errors of ``value``, a loaded file of ``kind`` (spec, cases, results)."""
    return version_errors(kind, FILE_KINDS[kind], value)


def version_errors(kind: str, shapes: Mapping[str, Shape],
                   value: JSONObject) -> List[ContractError]:
    """The contract errors of ``value``, a loaded file of ``kind`` whose versions are
    ``shapes`` (schema version -> shape)."""
    version = value.get("schema_version")
    if isinstance(version, str) and version in shapes:
        return list(shapes[version].iter_errors(value))
    return [_version_error(kind, shapes, value, version)]


def _version_error(kind: str, shapes: Mapping[str, Shape], value: JSONObject,
                   version: object) -> ContractError:
    accepted = " or ".join(sorted(shapes))
    if "schema_version" not in value:
        return ContractError("version.unsupported",
                             "missing schema_version; a %s file has schema_version %s" % (
                                 kind, accepted), ("schema_version",))
    if not isinstance(version, str):
        return ContractError("version.unsupported", "schema_version must be the string %s" % (
            accepted,), ("schema_version",))
    hint = ""
    for other_kind, other_versions in VERSIONS_OF_KIND.items():
        if other_kind != kind and version in other_versions:
            hint = " (this is a %s file: pass it as --%s%s)" % (
                other_kind, _OPTIONS.get(other_kind, other_kind),
                _COMMANDS.get(other_kind, ""))
    return ContractError("version.unsupported",
                         "unsupported schema_version %s for a %s file; expected %s%s" % (
                             quote(version), kind, accepted, hint), ("schema_version",))
