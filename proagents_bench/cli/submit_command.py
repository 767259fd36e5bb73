"""``run_benchmark.py submit --url URL --results FILE [--token-file F]``: send a team's
submission to the private-test service and print its answer as JSON (at a terminal, as
lines; a contract error as one line, its errors on stderr, placed in the file sent).

The token comes from ``--token-file`` or the ``PROAGENTS_BENCH_TOKEN`` environment variable
(never from the command line, where other users of the machine could read it). Exit status:
0 PASS; 1 another decision; 2 a contract error (the service's CONTRACT_ERROR document, each
error also on stderr) or a request the service refused (bad token, too large, ...); 5 over
the team's budget; 6 the service could not be reached or did not answer as itself.
"""

from __future__ import annotations

import argparse
import os

from ..contract.vocabulary import PASS
from ..errors import ContractError
from ..jsonio.paths import near_file
from ..jsonio.dump import document_bytes
from ..service import client
from . import Outcome, Session, contract_error_outcome
from .report_files import add_format_option, for_people, text_wanted
from .status import (EXIT_CONTRACT_ERROR, EXIT_DECISION, EXIT_OVER_BUDGET, EXIT_PASS,
                     EXIT_UNREACHABLE)
from .usage import Parser


def add_arguments(parser: Parser) -> None:
    parser.description = "Submit a candidate's results to a private-test service."
    parser.add_argument("--url", required=True, help="the service, e.g. http://127.0.0.1:8080")
    parser.add_argument("--results", metavar="FILE", required=True,
                        help="a results package holding only your candidate system")
    parser.add_argument("--token-file", metavar="FILE",
                        help="file holding your team's token (default: the %s environment "
                             "variable)" % client.TOKEN_VARIABLE)
    parser.add_argument("--timeout", type=float, default=client.CLIENT_TIMEOUT_SECONDS,
                        help="seconds to wait for the answer (default %g)"
                             % client.CLIENT_TIMEOUT_SECONDS)
    add_format_option(parser, "the service's answer")


class _Unreadable(Exception):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as problem:
        raise _Unreadable(path, "cannot read the file: %s%s" % (
            problem.strerror or problem,
            near_file(path) if isinstance(problem, FileNotFoundError) else ""))


def run(options: argparse.Namespace, session: Session) -> Outcome:
    outcome = _submitted(options)
    if not outcome.output:  # the service was not reached: its line on stderr says why
        return outcome
    # At a terminal, the answer's lines (a contract error: one line, said by the dispatcher).
    return for_people(outcome, text_wanted(options, session), of_document=True)


def _submitted(options: argparse.Namespace) -> Outcome:
    try:
        token = (_read(options.token_file).decode("utf-8", "replace").strip()
                 if options.token_file else os.environ.get(client.TOKEN_VARIABLE, "").strip())
        body = _read(options.results)
    except _Unreadable as problem:
        return contract_error_outcome([ContractError("file.unreadable", problem.reason, (),
                                                     problem.path)])
    if not token:
        return contract_error_outcome([ContractError(
            "cli.usage", "no token: pass --token-file FILE or set %s" % client.TOKEN_VARIABLE)])
    try:
        answer = client.request(client.submissions_url(options.url), token, body,
                                options.timeout)
    except client.Unreachable as problem:
        return Outcome(EXIT_UNREACHABLE, b"", ["ERROR: %s (exit %d)" % (problem,
                                                                        EXIT_UNREACHABLE)])
    document = answer.document
    if answer.status == 200 and "action" in document:
        return Outcome(EXIT_PASS if document["action"] == PASS else EXIT_DECISION,
                       document_bytes(document))
    if answer.status == 429:
        return Outcome(EXIT_OVER_BUDGET, document_bytes(document), [
            "ERROR: over budget: %s" % document.get("detail", "")])
    if answer.status == 422 and isinstance(document.get("errors"), list):
        # The service names the team's file submission.json: it is the file sent, --results.
        entries = [entry for entry in document["errors"] if isinstance(entry, dict)]
        errors = [ContractError(entry.get("code", ""), entry.get("message", ""), (),
                                options.results if entry.get("file") == client.SUBMISSION_NAME
                                else entry.get("file"), entry.get("line"), entry.get("column"))
                  for entry in entries]
        lines = [error.stderr_line().replace(": $: ", ": %s: " % entry.get("path"), 1)
                 for error, entry in zip(errors, entries)]
        omitted = document.get("omitted_error_count")
        return Outcome(EXIT_CONTRACT_ERROR, document_bytes(document), lines, errors=errors,
                       omitted=omitted if isinstance(omitted, int) else 0)
    if 400 <= answer.status < 500 and "code" in document:
        return Outcome(EXIT_CONTRACT_ERROR, document_bytes(document), [
            "ERROR: the service refused the request: %s (%s)" % (
                document.get("detail", ""), document.get("code"))])
    return Outcome(EXIT_UNREACHABLE, document_bytes(document), [
        "ERROR: the service answered HTTP %d: %s (exit %d)" % (
            answer.status, document.get("detail", ""), EXIT_UNREACHABLE)])
