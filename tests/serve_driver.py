"""Run ``run_benchmark.py serve`` with a fault injected into its WSGI application (for the
tests only: the product has no such switch).

    python -B tests/serve_driver.py POINT -- SERVE ARGUMENTS...

wraps the application that ``serve`` makes in the middleware named by POINT, then runs the
command as ``run_benchmark.py`` does. ``crash-after-store``: the process ends at once
(``os._exit``: no cleanup, as ``kill -9`` would) when the application starts its answer 200
to ``POST /v1/submissions``, that is once the submission's transaction has committed and
before any byte of the answer is sent; it exits with :data:`EXIT_STATUS`.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from proagents_bench.cli import run, serve_command  # noqa: E402  (needs the path above)

EXIT_STATUS = 70


class CrashAfterStore:
    """Ends the process when a submission is about to be answered 200."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        def starting(status, headers, exc_info=None):
            if (environ.get("REQUEST_METHOD") == "POST"
                    and environ.get("PATH_INFO") == "/v1/submissions"
                    and status.startswith("200")):
                os._exit(EXIT_STATUS)
            return start_response(status, headers, exc_info)

        return self.app(environ, starting)


POINTS = {"crash-after-store": CrashAfterStore}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in POINTS or sys.argv[2] != "--":
        raise SystemExit("usage: serve_driver.py %s -- SERVE ARGUMENTS..." % "|".join(POINTS))
    middleware = POINTS[sys.argv[1]]
    make_server = serve_command.make_server

    def wrapped(app, *args, **kwargs):
        return make_server(middleware(app), *args, **kwargs)

    serve_command.make_server = wrapped
    sys.argv = [sys.argv[0]] + sys.argv[3:]
    run()


if __name__ == "__main__":
    main()
