"""The standard library's WSGI server, with a thread per request, for :mod:`.app`.

``wsgiref`` with :class:`socketserver.ThreadingMixIn`: each connection gets a thread; the
socket of each has a timeout (:data:`SOCKET_TIMEOUT_SECONDS`), so a client that sends its
request slowly, or stops, loses its connection (408 when the body stalls) instead of holding
a thread forever. Errors the HTTP layer itself answers (a request line too long, a malformed
request) are problem+json too, and nothing is logged per request (the audit log is in the
database); a connection that fails (a client that stops reading its answer) is one line for
the ``log`` callable the server is made with, never a traceback.

Requests are framed as RFC 9112 section 6.3 requires: one with both ``Content-Length`` and
``Transfer-Encoding``, or with more than one ``Content-Length`` value, is refused (400)
before the application sees it, since two readings of where its body ends are how requests
are smuggled past a proxy. The ``Server`` header names proagents-bench and its version, never
the interpreter.

Every answer says ``Connection: close``. When the application answers before reading the
whole body (413, or 401 for a bad token), the client may still be sending: closing the socket
then would reset the connection and could destroy the answer before the client reads it.
So the server shuts its sending side (the answer is complete) and reads and discards the
rest of the request, at most :data:`DRAIN_MAX_BYTES` and for at most the socket's timeout,
before it closes. :meth:`ServiceServer.server_close` waits for the requests in flight: that
is how a SIGTERM stops the service gracefully.
"""

from __future__ import annotations

import io
import re
import socket
import socketserver
import sys
import time
from typing import IO, TYPE_CHECKING, Callable, Dict, Iterator, List, Optional, cast
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler, WSGIServer

from ..version import NAME, VERSION
from .problems import PROBLEM_TYPE, Problem

if TYPE_CHECKING:  # for annotations only
    from io import BufferedIOBase
    from wsgiref.headers import Headers

    from _socket import _RetAddress  # a peer's address as socketserver gives it (any type)
    from _typeshed import OptExcInfo, WriteableBuffer
    from _typeshed.wsgi import WSGIApplication

SERVER_NAME = NAME + "/" + VERSION
SOCKET_TIMEOUT_SECONDS = 10.0
# The longest a whole request (its line, headers and body) may take to arrive: the socket
# timeout bounds each read, this bounds a client that trickles a byte at a time.
REQUEST_DEADLINE_SECONDS = 120.0
DEFAULT_HOST = "127.0.0.1"
# Connections waiting to be accepted (50 clients arriving at once must not be refused).
LISTEN_BACKLOG = 128
# The longest request line read (wsgiref's own limit): 414 beyond it.
MAX_REQUEST_LINE_BYTES = 65536
# What is read and discarded of a request the application did not read whole, so that the
# client sees the answer instead of a reset connection (four times the default body cap).
DRAIN_MAX_BYTES = 256 * 1024 * 1024
DRAIN_CHUNK_BYTES = 1 << 16

_LENGTH = re.compile(r"[0-9]{1,18}\Z")  # a Content-Length: ASCII digits only

Log = Callable[[str], None]


def _quiet(line: str) -> None:
    """The default log: nothing."""


class ServiceServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = False  # server_close joins them: requests in flight finish
    block_on_close = True
    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG
    log = staticmethod(_quiet)  # make_server gives its own

    def handle_error(self, request: object, client_address: _RetAddress) -> None:
        """A connection that failed outside the application: one line, no traceback."""
        failure = sys.exc_info()[1]
        self.log("proagents-bench service: the connection from %s ended: %s" % (
            _peer(client_address), _describe(failure)))


def _peer(client_address: _RetAddress) -> str:
    try:
        return "%s port %s" % (client_address[0], client_address[1])
    except (TypeError, IndexError):
        return str(client_address)


def _describe(failure: Optional[BaseException]) -> str:
    if failure is None:
        return "no error"
    return "%s: %s" % (type(failure).__name__, str(failure) or "-")


class RequestBody:
    """``wsgi.input``: the request's body stream, counting the bytes the application read
    (the server discards the rest before it closes the connection)."""

    def __init__(self, stream: BufferedIOBase) -> None:
        self.stream = stream
        self.consumed = 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.consumed += len(data)
        return data

    def readline(self, size: int = -1) -> bytes:
        data = self.stream.readline(size)
        self.consumed += len(data)
        return data

    def readlines(self, hint: int = -1) -> List[bytes]:
        lines = self.stream.readlines(hint)
        self.consumed += sum(len(line) for line in lines)
        return lines

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")


class DeadlineSocketReader(io.RawIOBase):
    """The connection's reading side under a deadline: each read waits at most the socket
    timeout and never past the deadline (``socket.timeout`` then), so that a client that
    trickles its request cannot hold a thread for longer than the deadline."""

    def __init__(self, connection: socket.socket, timeout: float, deadline: float) -> None:
        super().__init__()
        self.connection = connection
        self.timeout = timeout
        self.deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise socket.timeout("the request did not arrive before its deadline")
        self.connection.settimeout(min(self.timeout, left))
        try:
            return self.connection.recv_into(buffer)
        finally:
            self.connection.settimeout(self.timeout)  # the answer's writes: the usual one


class ServiceServerHandler(ServerHandler):
    """wsgiref's handler: every answer closes the connection, and a failure (a client that
    stops reading, a bug outside the application) is one line in the log, and a problem+json
    500 when nothing was sent yet, never a traceback."""

    server_software = SERVER_NAME  # wsgiref's own names the interpreter
    error_status = "500 Internal Server Error"
    error_headers = [("Content-Type", PROBLEM_TYPE)]
    error_body = Problem("service.internal_error", "the service failed on this request; it "
                         "is a bug in proagents-bench").body()
    headers: Headers  # the answer's, once the application has started it
    request_handler: ServiceRequestHandler  # set by ServiceRequestHandler.handle

    def cleanup_headers(self) -> None:
        super().cleanup_headers()
        self.headers["Connection"] = "close"  # one request per connection (HTTP/1.0)

    def log_exception(self, exc_info: OptExcInfo) -> None:
        self.request_handler.log_failure(exc_info[1])


class ServiceRequestHandler(WSGIRequestHandler):
    timeout = SOCKET_TIMEOUT_SECONDS
    request_deadline = REQUEST_DEADLINE_SECONDS
    server_version = SERVER_NAME
    sys_version = ""  # the Server header names no interpreter version
    server: ServiceServer

    def version_string(self) -> str:
        return self.server_version

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the plain reader, replaced by one under the request's deadline
        self.rfile = io.BufferedReader(DeadlineSocketReader(
            self.connection, self.timeout, time.monotonic() + self.request_deadline))

    def handle(self) -> None:
        """wsgiref's ``handle`` with :class:`ServiceServerHandler`, a counted body, and the
        unread rest of a request discarded before the connection closes."""
        self.unread = False  # whether part of the request may still be on its way
        try:
            self.raw_requestline = self.rfile.readline(MAX_REQUEST_LINE_BYTES + 1)
            if len(self.raw_requestline) > MAX_REQUEST_LINE_BYTES:
                self.requestline, self.request_version, self.command = "", "", ""
                self.send_error(414)
                return
            if not self.parse_request():  # send_error answered
                return
            framing = framing_problem(self.headers.get_all("Content-Length") or [],
                                      self.headers.get_all("Transfer-Encoding") or [])
            if framing is not None:
                self.send_error(400, framing)
                return
            body = RequestBody(self.rfile)
            # socketserver's writer, as wsgiref's own handle() passes it (the stubs call it a
            # BufferedIOBase there, an IO[bytes] here).
            handler = ServiceServerHandler(body, cast("IO[bytes]", self.wfile),
                                           self.get_stderr(), self.get_environ(),
                                           multithread=False)
            handler.request_handler = self
            handler.run(cast("WSGIApplication", self.server.get_app()))  # make_server's
            declared = self.headers.get("Content-Length", "").strip()
            length = _LENGTH.match(declared)
            self.unread = (bool(self.headers.get("Transfer-Encoding"))
                           or (length is not None and int(declared) > body.consumed)
                           or (length is None and declared != ""))
        except (socket.timeout, ConnectionError):
            self.close_connection = True
            self.unread = False
        finally:
            if self.unread:
                self.drain()

    def drain(self) -> None:
        """End the answer (shut the sending side), then read and discard what the client
        still sends: until it closes, :data:`DRAIN_MAX_BYTES` are read, the socket's timeout
        has passed (checked between reads, each of which waits at most that long) or the
        request's deadline has."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + self.timeout
            left = DRAIN_MAX_BYTES
            while left > 0 and time.monotonic() < deadline:
                chunk = self.rfile.read1(min(left, DRAIN_CHUNK_BYTES))
                if not chunk:
                    break
                left -= len(chunk)
        except OSError:
            pass  # the client went away: nothing left to protect

    def send_error(self, code: int, message: Optional[str] = None,
                   explain: Optional[str] = None) -> None:
        """The HTTP layer's own errors (bad request line, line too long) as problem+json."""
        problem = Problem("service.bad_request", message or "malformed request")
        problem.members["status"] = code  # 400, or the HTTP layer's own 414 and 431
        body = problem.body()  # the product's JSON writer, as every other answer
        # A garbled request line reads as HTTP/0.9, which has no status line nor headers:
        # answer as HTTP/1.0, so that the client sees the status and the content type.
        self.request_version = "HTTP/1.0"
        try:
            self.send_response(code)  # the standard reason phrase; the message is the detail
            self.send_header("Content-Type", PROBLEM_TYPE)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD" and code >= 200 and code not in (204, 304):
                self.wfile.write(body)
        except OSError:
            pass
        self.close_connection = True
        self.unread = True  # the rest of a refused request is still coming

    def log_failure(self, failure: Optional[BaseException]) -> None:
        """A request that failed in wsgiref's handler (the client stopped reading its
        answer, or the application raised): one line, no traceback."""
        self.server.log("proagents-bench service: %s %s from %s failed: %s" % (
            self.command, self.path[:200], _peer(self.client_address), _describe(failure)))

    def log_message(self, format: str, *args: object) -> None:
        pass  # the audit log is in the database; stderr stays quiet


def framing_problem(lengths: List[str], encodings: List[str]) -> Optional[str]:
    """Why a request's framing is refused (RFC 9112, section 6.3), or None: a Content-Length
    beside a Transfer-Encoding, or more than one Content-Length value (in several fields or
    one comma-separated list)."""
    if lengths and encodings:
        return ("a request may not have both Content-Length and Transfer-Encoding (RFC 9112, "
                "section 6.3)")
    values = [value.strip() for field in lengths for value in field.split(",")]
    if len(values) > 1:
        return "a request has one Content-Length, not %d (RFC 9112, section 6.3)" % len(values)
    return None


def make_server(app: WSGIApplication, host: str = DEFAULT_HOST, port: int = 0,
                timeout: float = SOCKET_TIMEOUT_SECONDS, log: Log = _quiet,
                request_deadline: float = REQUEST_DEADLINE_SECONDS) -> ServiceServer:
    """A bound server for ``app`` (port 0: a free one; ``server.server_port`` says which);
    ``log`` takes the one-line reports of failed connections."""
    handler = type("Handler", (ServiceRequestHandler,), {
        "timeout": timeout, "request_deadline": request_deadline})
    attributes: Dict[str, object] = {"log": staticmethod(log)}
    if ":" in host:
        attributes["address_family"] = socket.AF_INET6
    server_class = type("ServiceServer", (ServiceServer,), attributes)
    server: ServiceServer = server_class((host, port), handler)
    server.set_app(app)
    return server
