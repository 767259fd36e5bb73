"""A release manifest (``proagents-bench-release-v1``, :mod:`proagents_bench.contract.release`):
read strictly, validated, and each benchmark's paths resolved against the manifest's folder
(:class:`BenchmarkJob`): what a release decides (:mod:`proagents_bench.release`).
"""

from __future__ import annotations

import os
import posixpath
from decimal import Decimal
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple, TypedDict

from .contract.release import manifest_errors
from .errors import MAX_REPORTED_ERRORS, ContractErrors
from .jsonio import load
from .text import display_name

if TYPE_CHECKING:  # for annotations only
    from .jsonio import JSONObject

# The kind of a benchmark's evidence, as the release document says it: its gate's three
# files, or its harness logs imported.
FILES_EVIDENCE = "files"
IMPORT_EVIDENCE = "import"


class Place:
    """One path of a manifest: where to open it and how to show it."""

    __slots__ = ("path", "shown")

    def __init__(self, path: str, shown: str) -> None:
        self.path = path
        self.shown = shown


class ImportJob(TypedDict):
    """An imported benchmark's import: the places of its logs and mapping (None: the
    defaults) and the import's options, as the manifest's ``import`` gives them."""

    baseline: Place
    candidate: Place
    mapping: Optional[Place]
    train_logs: List[Place]
    development_logs: List[Place]
    baseline_id: Optional[str]
    candidate_id: Optional[str]
    missing_as: str


class BenchmarkJob:
    """One benchmark of a manifest: its position, name, tier, its paths resolved (``spec``,
    ``cases`` and ``results`` a :class:`Place` or None; ``imported`` the import's places
    and settings, or None) and the candidate's id to check (or None)."""

    def __init__(self, position: int, entry: JSONObject,
                 resolve: Callable[[str], Place]) -> None:
        self.position = position
        self.name = entry["name"]
        self.tier = entry["tier"]
        self.candidate = entry.get("candidate")
        self.spec = resolve(entry["spec"])
        self.cases = resolve(entry["cases"]) if "cases" in entry else None
        self.results = resolve(entry["results"]) if "results" in entry else None
        self.imported: Optional[ImportJob] = None
        if "import" in entry:
            settings = entry["import"]
            self.imported = ImportJob(
                baseline=resolve(settings["baseline"]), candidate=resolve(settings["candidate"]),
                mapping=resolve(settings["mapping"]) if "mapping" in settings else None,
                train_logs=[resolve(path) for path in settings.get("train_logs", [])],
                development_logs=[resolve(path) for path in settings.get("development_logs", [])],
                baseline_id=settings.get("baseline_id"),
                candidate_id=settings.get("candidate_id"),
                missing_as=settings.get("missing_as", "error"))

    @property
    def evidence(self) -> str:
        return IMPORT_EVIDENCE if self.imported is not None else FILES_EVIDENCE

    def places(self) -> List[Tuple[str, Place]]:
        """(kind, place) of every file this benchmark reads: the gate's files and the logs
        and mapping of an import."""
        found = [("spec", self.spec)]
        found += [(kind, place) for kind, place in (("cases", self.cases),
                                                    ("results", self.results)) if place]
        imported = self.imported
        if imported is not None:
            found += [(kind, place) for kind, place in (("baseline log", imported["baseline"]),
                                                        ("candidate log", imported["candidate"]),
                                                        ("mapping", imported["mapping"]))
                      if place is not None]
            found += [("train log", place) for place in imported["train_logs"]]
            found += [("development log", place) for place in imported["development_logs"]]
        return found


class Manifest:
    """A valid manifest: its value, where it was read (``place``), its SHA-256 and size, and
    its benchmarks (:class:`BenchmarkJob`, in order)."""

    def __init__(self, document: load.Document, place: Place, jobs: List[BenchmarkJob]) -> None:
        self.document = document  # places the release's own errors at a line and column
        self.value = document.value
        self.place = place
        self.sha256 = document.sha256
        self.size = document.size
        self.jobs = jobs

    @property
    def level(self) -> Decimal:
        level: Decimal = self.value["family_wise_level"]  # a number in (0, 0.5]: a Decimal
        return level

    def describe(self) -> JSONObject:
        return {"file": display_name(self.place.shown), "sha256": self.sha256,
                "bytes": self.size}


def load_manifest(path: str, shown: Optional[str] = None, slash: bool = False) -> Manifest:
    """The manifest at ``path`` (shown as ``shown``), loaded strictly and validated; raises
    ContractErrors (each placed at its line and column) otherwise.

    Each path of the manifest is joined to the manifest's folder and normalised lexically
    (``os.path.normpath``: ``examples/../tests/x.json`` is ``tests/x.json``, a ``..``
    removing the folder before it without asking where a symbolic link leads): opened there,
    and shown as the manifest's folder as shown joined with it, as if given to the gate on
    the command line (``slash``: joined with ``/`` whatever the platform, as the gate shows
    its shipped examples, so that the example's documents are the same everywhere)."""
    shown = path if shown is None else shown
    document = load.load_file(path, source=shown)
    errors = manifest_errors(document.value)
    if errors:
        raise ContractErrors(document.errors_at(errors[:MAX_REPORTED_ERRORS]),
                             len(errors[MAX_REPORTED_ERRORS:]))
    folder, shown_folder = os.path.dirname(path), os.path.dirname(shown)

    def resolve(relative: str) -> Place:
        parts = relative.split("/")
        path = os.path.normpath(os.path.join(folder, *parts))
        if slash:
            return Place(path, posixpath.normpath(posixpath.join(shown_folder, relative)))
        return Place(path, os.path.normpath(os.path.join(shown_folder, *parts)))

    jobs = [BenchmarkJob(position, entry, resolve)
            for position, entry in enumerate(document.value["benchmarks"])]
    return Manifest(document, Place(path, shown), jobs)
