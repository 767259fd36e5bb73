"""``run_benchmark.py publish``: write what the contract publishes into the checkout: the
JSON Schemas shipped in the package (``contract/schemas/``), the generated tables of
``docs/contract.md`` (the contract's objects, rules and gates; the exit statuses), of
``docs/maintaining.md`` (what each kind of change breaks) and of ``docs/release.md`` (the
chance of a false alarm). The tests hold the files to
:func:`published_files` and fail, naming this command, when one is stale.
"""

from __future__ import annotations

import os
from typing import List, Tuple

from ..contract import publish
from ..contract.changes import changes_table
from ..errors import ContractError
from ..jsonio.atomic import AtomicWriteError, write_files_atomically
from ..tools.release_bench import with_false_alarm_tables
from . import Outcome, Session, contract_error_outcome
from .gate_command import PROJECT_ROOT, Parser, UsageError
from .status import EXIT_PASS, exit_status_table

CONTRACT_DOC = os.path.join(PROJECT_ROOT, "docs", "contract.md")
RELEASE_DOC = os.path.join(PROJECT_ROOT, "docs", "release.md")
EXIT_TABLE_BEGIN = ("<!-- BEGIN generated exit statuses: python -B run_benchmark.py publish "
                    "-->")
EXIT_TABLE_END = "<!-- END generated exit statuses -->"
MAINTAINING_DOC = os.path.join(PROJECT_ROOT, "docs", "maintaining.md")
CHANGES_BEGIN = ("<!-- BEGIN generated kinds of change: python -B run_benchmark.py publish "
                 "-->")
CHANGES_END = "<!-- END generated kinds of change -->"


def _between(text: str, begin: str, end: str, generated: str) -> str:
    start = text.index(begin) + len(begin)
    return text[:start] + "\n" + generated + text[text.index(end):]


def published_contract_doc(text: str) -> str:
    """``text`` (the contract's docs page) with every generated part rewritten."""
    text = publish.with_contract_tables(text)
    return _between(text, EXIT_TABLE_BEGIN, EXIT_TABLE_END, exit_status_table())


def _read(path: str) -> str:
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8")


def published_files() -> List[Tuple[str, bytes]]:
    """(path, bytes) of every file ``publish`` writes: the schemas, the contract's page, the
    maintainers' page, then the release's (its tables of false alarms)."""
    return publish.shipped_schemas() + [
        (CONTRACT_DOC, published_contract_doc(_read(CONTRACT_DOC)).encode("utf-8")),
        (MAINTAINING_DOC, _between(_read(MAINTAINING_DOC), CHANGES_BEGIN, CHANGES_END,
                                   changes_table()).encode("utf-8")),
        (RELEASE_DOC, with_false_alarm_tables(_read(RELEASE_DOC)).encode("utf-8"))]


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


def run(arguments: List[str], session: Session) -> Outcome:
    parser = Parser(prog=session.program + " publish",
                    description="Regenerate the shipped JSON Schemas and the contract's tables "
                                "from the declared contract.")
    try:
        parser.parse_args(arguments)
    except UsageError as usage:
        return contract_error_outcome([ContractError("cli.usage", "%s (see --help)" % usage)])
    try:
        write_files_atomically(published_files(), session.guard.deferred)
    except AtomicWriteError as problem:
        return contract_error_outcome([ContractError(
            "cli.report_unwritable", "cannot write %s: %s" % (problem.path, problem.reason))])
    return Outcome(EXIT_PASS, b"", ["published: the JSON Schemas and the tables of "
                                    "docs/contract.md, docs/maintaining.md and docs/release.md"])
