"""The exit statuses, declared once (the commands use them, the contract docs' table is written
from them, and the tests hold the two to each other)."""

from __future__ import annotations

from ..codes import CONTRACT_ERROR_EXIT

EXIT_PASS = 0
EXIT_DECISION = 1
EXIT_CONTRACT_ERROR = CONTRACT_ERROR_EXIT  # every code of proagents_bench/codes.py
EXIT_INTERNAL_ERROR = 3
EXIT_OUTPUT_FAILURE = 4
EXIT_OVER_BUDGET = 5
EXIT_UNREACHABLE = 6
# Behind --distinct-exit-codes only: each decision that fails the run has its own status.
EXIT_REVIEW = 10
EXIT_BLOCK = 11
EXIT_INCOMPARABLE = 12
EXIT_INTERRUPTED = 130  # SIGINT, Ctrl-C: 128 + the signal's number, as shells report it
EXIT_TERMINATED = 143  # SIGTERM

EXIT_STATUSES = (
    (EXIT_PASS, "PASS"),
    (EXIT_DECISION, "REVIEW, BLOCK or INCOMPARABLE: always a real decision (`--fail-on` "
                    "can let some of them exit 0)"),
    (EXIT_CONTRACT_ERROR, "any file, JSON, schema, version, coverage or command-line error "
                          "(`CONTRACT_ERROR`)"),
    (EXIT_INTERNAL_ERROR, "an internal error, which is always a bug: one stderr line asks for "
                          "a report; stdout is empty"),
    (EXIT_OUTPUT_FAILURE, "an output failure: the document could not be written to stdout "
                          "completely (a full disk or `/dev/full`, `ulimit -f`, a closed "
                          "stdout, a reader that went away); whatever stdout received is not "
                          "a decision; one stderr line `ERROR: <stdout>: ...` says why"),
    (EXIT_OVER_BUDGET, "`submit` only: the service refused the submission, over the team's "
                       "budget (HTTP 429); nothing was scored"),
    (EXIT_UNREACHABLE, "`submit` only: the service could not be reached, or answered "
                       "something that is not its own answer"),
    (EXIT_REVIEW, "REVIEW, with `--distinct-exit-codes` only (and when `--fail-on` includes "
                  "it)"),
    (EXIT_BLOCK, "BLOCK, with `--distinct-exit-codes` only (and when `--fail-on` includes it)"),
    (EXIT_INCOMPARABLE, "INCOMPARABLE, with `--distinct-exit-codes` only (and when `--fail-on` "
                        "includes it)"),
    (EXIT_INTERRUPTED, "interrupted by Ctrl-C (SIGINT), at any moment; stdout is empty or an "
                       "incomplete document"),
    (EXIT_TERMINATED, "stopped by SIGTERM, at any moment; as for 130"),
)


def exit_status_table() -> str:
    """The contract docs' table of exit statuses (Markdown)."""
    return "\n".join(["| exit | meaning |", "|---|---|"] + [
        "| %d | %s |" % (status, meaning) for status, meaning in EXIT_STATUSES]) + "\n"
