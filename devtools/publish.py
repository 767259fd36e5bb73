"""``python -B -m devtools publish``: write what the contract publishes into the checkout: the
JSON Schemas shipped in the package (``contract/schemas/``) and the generated parts of the
docs (:data:`GENERATED`): the contract's objects, rules and gates and the exit statuses
(``docs/contract.md``), what each kind of change breaks (``docs/maintaining.md``), the
chance of a false alarm (``docs/release.md``), the sequential design's exact tables
(``docs/statistics.md``), the GitLab report's severities (``docs/ci.md``), and every page's
list of error codes, each from the registry of its concept. The tests hold the files to
:func:`published_files` and fail, naming this command, when one is stale.
"""

from __future__ import annotations

import argparse
import functools
import os
from typing import Callable, List, Tuple

from proagents_bench.cli import Outcome, Session, contract_error_outcome
from proagents_bench.cli.status import EXIT_PASS, exit_status_table
from proagents_bench.cli.usage import Parser
from proagents_bench.codes import code_table
from proagents_bench.contract import harness_docs, origins, publish
from proagents_bench.contract.changes import changes_table
from proagents_bench.errors import ContractError
from proagents_bench.jsonio.atomic import AtomicWriteError, write_files_atomically
from proagents_bench.maintenance import validity
from proagents_bench.reports import gitlab
from proagents_bench.service import feedback

from . import ROOT, sequential_tables
from .commands import PROGRAM
from .release_bench import false_alarm_tables

DOCS = os.path.join(ROOT, "docs")
CONTRACT_DOC = os.path.join(DOCS, "contract.md")
COMMAND = PROGRAM + " publish"


class Generated:
    """One generated part of a docs page: the text between ``<!-- BEGIN generated NAME:
    python -B -m devtools publish -->`` and ``<!-- END generated NAME -->`` in
    ``docs/PAGE``, written by ``make``."""

    def __init__(self, page: str, name: str, make: Callable[[], str]) -> None:
        self.page = page
        self.name = name
        self.make = make

    @property
    def begin(self) -> str:
        return "<!-- BEGIN generated %s: %s -->" % (self.name, COMMAND)

    @property
    def end(self) -> str:
        return "<!-- END generated %s -->" % self.name

    def written(self, text: str) -> str:
        """``text`` with this part rewritten."""
        start = text.index(self.begin) + len(self.begin)
        return text[:start] + "\n" + self.make() + text[text.index(self.end):]


# The families of codes each page lists (every family on one page: a test holds it).
CODE_PAGES = (
    ("contract.md", ("file", "encoding", "json", "schema", "version", "cases", "results",
                     "coverage", "sequential", "ledger", "cli", "health", "diff",
                     "submission")),
    ("importing.md", ("import", "mapping", "trace")),
    ("service.md", ("service",)),
    ("release.md", ("release",)),
)

GENERATED = [
    Generated("contract.md", "contract tables", publish.contract_tables),
    Generated("contract.md", "exit statuses", exit_status_table),
    Generated("importing.md", "log formats", harness_docs.formats_table),
    Generated("importing.md", "import defaults", harness_docs.defaults_table),
    Generated("importing.md", "explanation", publish.explanation_tables),
    Generated("importing.md", "record fields", harness_docs.records_table),
    Generated("importing.md", "failure origins", origins.origins_table),
    Generated("service.md", "feedback levels", feedback.levels_table),
    Generated("service.md", "what each level leaks", feedback.leaks_table),
    Generated("maintaining.md", "kinds of change", changes_table),
    Generated("maintaining.md", "validity checks", validity.checks_table),
    Generated("release.md", "false-alarm tables", false_alarm_tables),
    Generated("ci.md", "GitLab severities", gitlab.severity_table),
] + [Generated("statistics.md", "sequential %s table" % kind,
               functools.partial(sequential_tables.table, kind))
     for kind in sequential_tables.TABLES] + [Generated(page, "codes", functools.partial(code_table, families))
     for page, families in CODE_PAGES]


def published_page(page: str, text: str) -> str:
    """``text`` (``docs/PAGE``) with every generated part of that page rewritten."""
    for part in GENERATED:
        if part.page == page:
            text = part.written(text)
    return text


def published_files() -> List[Tuple[str, bytes]]:
    """(path, bytes) of every file ``publish`` writes: the schemas, then the docs pages."""
    files = publish.shipped_schemas()
    for page in sorted({part.page for part in GENERATED}):
        path = os.path.join(DOCS, page)
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
        files.append((path, published_page(page, text).encode("utf-8")))
    return files


def stale_files() -> List[str]:
    """The published files whose content differs from what ``publish`` would write."""
    stale = []
    for path, data in published_files():
        try:
            with open(path, "rb") as handle:
                current = handle.read()
        except OSError:
            current = None
        if current != data:
            stale.append(path)
    return stale


def add_arguments(parser: Parser) -> None:
    parser.description = ("Regenerate the shipped JSON Schemas and the docs' generated tables "
                          "from the declared contract and registries.")


def run(options: argparse.Namespace, session: Session) -> Outcome:
    try:
        write_files_atomically(published_files(), session.guard.deferred)
    except AtomicWriteError as problem:
        return contract_error_outcome([ContractError(
            "cli.report_unwritable", "cannot write %s: %s" % (problem.path, problem.reason))])
    pages = ", ".join("docs/" + page for page in sorted({part.page for part in GENERATED}))
    return Outcome(EXIT_PASS, b"", ["published: the JSON Schemas and the tables of %s" % pages])
