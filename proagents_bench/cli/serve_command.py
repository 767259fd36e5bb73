"""``run_benchmark.py serve --spec S --cases C --baseline R --data DIR [--host H] [--port N]``:
the private-test service (see :mod:`proagents_bench.service`).

It checks the maintainer's three files with the gate (exit 2 with the usual errors when they
break the contract), opens or upgrades the database in DIR, checks that an open phase was
opened with these files and that no rounded team's step is finer than the test set allows
(exit 2, ``cli.phase``), binds (127.0.0.1 unless told otherwise), prints one line with the
address on stdout, and serves until SIGINT or SIGTERM, which let the requests in flight
finish.
"""

from __future__ import annotations

import argparse
import os
from typing import Union

from ..errors import ContractError, ContractErrors
from ..service import phases
from ..service.app import MAX_SUBMISSION_BYTES, ServiceApp
from ..service.server import (DEFAULT_HOST, REQUEST_DEADLINE_SECONDS, SOCKET_TIMEOUT_SECONDS,
                              make_server)
from ..service.benchmark import Benchmark
from . import Outcome, Session, contract_error_outcome
from .data_folder import add_data_option, open_data
from .streams import Interrupted
from .usage import Parser

PHASE_ERROR_CODE = "cli.phase"


def add_benchmark_arguments(parser: Parser, created: bool = False) -> None:
    """The maintainer's three files and the data folder (serve, which ``created`` its
    database, phase open and close)."""
    parser.add_argument("--spec", metavar="FILE", required=True, help="the frozen spec")
    parser.add_argument("--cases", metavar="FILE", required=True,
                        help="the cases, with the private test cases")
    parser.add_argument("--baseline", metavar="FILE", required=True,
                        help="a results package holding the maintainer's baseline (its "
                             "candidate is ignored)")
    add_data_option(parser, "folder of the service's database (made if missing)" if created
                    else None)


def load_benchmark(options: argparse.Namespace) -> Union[Benchmark, Outcome]:
    """The benchmark of ``--spec --cases --baseline``, or the exit-2 outcome saying why not."""
    try:
        return Benchmark(options.spec, options.cases, options.baseline)
    except ContractErrors as failure:
        return contract_error_outcome(failure.errors, failure.omitted)


def add_arguments(parser: Parser) -> None:
    parser.description = ("Run the private-test service: publish the spec, the grader and the "
                          "public cases; score teams' submissions against the private test "
                          "cases within their budgets.")
    add_benchmark_arguments(parser, created=True)
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: any "
                                                                "free port)")
    parser.add_argument("--timeout", type=float, default=SOCKET_TIMEOUT_SECONDS,
                        help="seconds a client may take per socket read or write "
                             "(default %g)" % SOCKET_TIMEOUT_SECONDS)
    parser.add_argument("--deadline", type=float, default=REQUEST_DEADLINE_SECONDS,
                        help="seconds a client may take to send a whole request (default %g)"
                             % REQUEST_DEADLINE_SECONDS)
    parser.add_argument("--max-bytes", type=int, default=MAX_SUBMISSION_BYTES,
                        help="largest submission body accepted (default %d)"
                             % MAX_SUBMISSION_BYTES)


def run(options: argparse.Namespace, session: Session) -> Outcome:
    if (not 0 <= options.port <= 65535 or options.timeout <= 0 or options.deadline <= 0
            or options.max_bytes < 1):
        return contract_error_outcome([ContractError(
            "cli.usage", "--port is 0..65535, --timeout, --deadline and --max-bytes are "
                         "positive")])
    benchmark = load_benchmark(options)
    if isinstance(benchmark, Outcome):
        return benchmark
    path = open_data(options.data, create=True)
    if isinstance(path, Outcome):
        return path
    try:
        phases.check_served(path, benchmark)
    except phases.PhaseError as problem:
        return contract_error_outcome([ContractError(PHASE_ERROR_CODE, str(problem))])
    phases.record_served(path, benchmark)
    try:
        app = ServiceApp(benchmark, path, options.max_bytes)
    except ContractErrors as failure:  # a changed cases file under a version served before
        return contract_error_outcome(failure.errors, failure.omitted)
    try:
        server = make_server(app, options.host, options.port, options.timeout,
                             log=lambda line: session.messages.say([line]),
                             request_deadline=options.deadline)
    except OSError as problem:
        return contract_error_outcome([ContractError(
            "cli.usage", "cannot listen on %s port %d: %s" % (
                options.host, options.port, problem.strerror or problem))])
    try:
        host = options.host if ":" not in options.host else "[%s]" % options.host
        session.say("proagents-bench service listening on http://%s:%d/ (database %s)" % (
            host, server.server_port, os.path.abspath(path)))
        server.serve_forever(poll_interval=0.2)
    except Interrupted as interrupted:
        # finally's server_close stops accepting, then waits for the requests in flight
        return Outcome(interrupted.status, b"", [
            "proagents-bench service stopped (signal %d) after the requests in flight "
            "finished" % interrupted.signal_number])
    finally:
        server.server_close()
    return Outcome(0)
