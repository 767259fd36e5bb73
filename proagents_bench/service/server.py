"""The standard library's WSGI server, with a thread per request, for :mod:`.app`.

``wsgiref`` with :class:`socketserver.ThreadingMixIn`: each connection gets a thread; the
socket of each has a timeout (:data:`SOCKET_TIMEOUT_SECONDS`), so a client that sends its
request slowly, or stops, loses its connection (408 when the body stalls) instead of holding
a thread forever. Errors the HTTP layer itself answers (a request line too long, a malformed
request) are problem+json too, and nothing is logged per request (the audit log is in the
database). :meth:`ServiceServer.server_close` waits for the requests in flight: that is how a
SIGTERM stops the service gracefully.
"""

from __future__ import annotations

import json
import socket
import socketserver
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from ..version import VERSION
from .problems import PROBLEM_TYPE

SOCKET_TIMEOUT_SECONDS = 10.0
DEFAULT_HOST = "127.0.0.1"
# Connections waiting to be accepted (50 clients arriving at once must not be refused).
LISTEN_BACKLOG = 128


class ServiceServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = False  # server_close joins them: requests in flight finish
    block_on_close = True
    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG

    def handle_error(self, request, client_address) -> None:
        pass  # a client that went away or sent garbage is not the service's error


class ServiceRequestHandler(WSGIRequestHandler):
    timeout = SOCKET_TIMEOUT_SECONDS
    server_version = "proagents-bench/" + VERSION
    sys_version = ""  # the Server header names no interpreter version

    def handle(self) -> None:
        try:
            super().handle()
        except (socket.timeout, ConnectionError):
            self.close_connection = True

    def send_error(self, code, message=None, explain=None) -> None:
        """The HTTP layer's own errors (bad request line, line too long) as problem+json."""
        body = (json.dumps({"type": "urn:proagents-bench:problem:service.bad_request",
                            "title": "Bad request", "status": code, "code":
                            "service.bad_request", "detail": message or "malformed request"},
                           sort_keys=True) + "\n").encode("ascii")
        # A garbled request line reads as HTTP/0.9, which has no status line nor headers:
        # answer as HTTP/1.0, so that the client sees the status and the content type.
        self.request_version = "HTTP/1.0"
        try:
            self.send_response(code, message)
            self.send_header("Content-Type", PROBLEM_TYPE)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD" and code >= 200 and code not in (204, 304):
                self.wfile.write(body)
        except OSError:
            pass
        self.close_connection = True

    def log_message(self, format, *args) -> None:
        pass  # the audit log is in the database; stderr stays quiet


def make_server(app, host: str = DEFAULT_HOST, port: int = 0,
                timeout: float = SOCKET_TIMEOUT_SECONDS) -> ServiceServer:
    """A bound server for ``app`` (port 0: a free one; ``server.server_port`` says which)."""
    handler = type("Handler", (ServiceRequestHandler,), {"timeout": timeout})
    server_class = ServiceServer
    if ":" in host:
        server_class = type("ServiceServer6", (ServiceServer,),
                            {"address_family": socket.AF_INET6})
    server = server_class((host, port), handler)
    server.set_app(app)
    return server
