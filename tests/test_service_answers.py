"""Every kind of answer the private-test service gives, byte for byte, held to a golden copy.

One scenario runs against the real server on a free loopback port: the published documents,
submissions at every feedback level (PASS, REVIEW, BLOCK, INCOMPARABLE, a contract error of
each kind the service places in ``submission.json``, over budget), the team's own reads, the
leaderboard as JSON and as HTML, then a phase opened with a fixed seed (every level again, on
the public part, the final choice) and closed; then a results v3 service whose cases declare
a split absent and whose baseline recorded a trial as unknown, with and without a phase.
``tests/golden/service_answers.json`` holds each answer: its status, its headers (but
``Date``) and its body, with the moments of the run (ISO-8601 times, the page's date, the
seconds to wait) written as placeholders. A change that alters one byte of an answer must
show up as a changed golden file, on purpose (``python -B -m tests.test_service_answers``
writes it again; review the diff).
"""

import copy
import hashlib
import json
import os
import re
import unittest

from .service_support import (Service, evidence_package, failing, raw_exchange,
                              submission_bytes)
from .support import ROOT, example_package, run_cli
from .test_package_evidence import system

GOLDEN = os.path.join(ROOT, "tests", "golden", "service_answers.json")
SEED = "0123456789abcdef" * 4
# A body longer than this (the grader interface: every JSON Schema, held to the schemas by
# test_schema) is kept as its SHA-256 and length.
LONGEST_KEPT = 65536

# The moments of a run, in the bodies and headers: never the same twice.
_MOMENTS = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), "<time>"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"), "<time> UTC"),
    (re.compile(r'"retry_after_seconds": \d+'), '"retry_after_seconds": <seconds>'),
    (re.compile(r"retry after \d+ seconds"), "retry after <seconds> seconds"),
]


def without_moments(text):
    for pattern, placeholder in _MOMENTS:
        text = pattern.sub(placeholder, text)
    return text


class Recorder:
    """The scenario's answers, in order, each under a label that says what was asked."""

    def __init__(self, service):
        self.service = service
        self.answers = []

    def call(self, label, method, path, body=None, token=None, content_type="application/json"):
        reply = self.service.call(method, path, body, token, content_type=content_type)
        headers = sorted("%s: %s" % (name, without_moments(value))
                         for name, value in reply.headers.items() if name != "date")
        text = without_moments(reply.body.decode("utf-8"))
        if len(text) > LONGEST_KEPT:
            text = "%d bytes, SHA-256 %s" % (len(reply.body),
                                             hashlib.sha256(reply.body).hexdigest())
        self.answers.append({"label": label, "request": "%s %s" % (method, path),
                             "status": reply.status, "headers": headers, "body": text})
        return reply

    def raw(self, label, data):
        received = raw_exchange(self.service.port, data).decode("latin-1")
        received = re.sub(r"Date: [^\r\n]*\r\n", "", received)
        self.answers.append({"label": label, "request": "raw", "status": None, "headers": [],
                             "body": without_moments(received)})


def _submissions(recorder, label, token, packages):
    """Submit each package; the answers' submission ids (None when refused)."""
    ids = []
    for name, body in packages:
        reply = recorder.call("%s: %s" % (label, name), "POST", "/v1/submissions", body, token)
        ids.append(reply.document.get("submission_id") if reply.status == 200 else None)
    return ids


def _packages(level="verdict"):
    """(name, body) of the submissions a team at ``level`` makes: passing, failing tasks, a
    protocol of its own; and at levels that show less than the whole document, the first
    again and one task failing (the Ladder's repeats)."""
    results = example_package()[2]
    incomparable = copy.deepcopy(results)
    system(incomparable, "candidate")["protocol"]["max_steps"] = 9
    made = [("passing", submission_bytes(results)),
            ("a critical task failing", submission_bytes(failing(results, ["test-safety"]))),
            ("a protocol of its own", submission_bytes(incomparable))]
    if level != "full":
        made += [("passing again", submission_bytes(results)),
                 ("two tasks failing", submission_bytes(failing(
                     results, ["test-refund", "test-cancel"])))]
    return made


def _contract_errors():
    """(name, body) of submissions the service refuses with a contract error."""
    results = example_package()[2]
    typed = copy.deepcopy(results)
    system(typed, "candidate")["records"][4]["latency_ms"] = "slow"
    missing = copy.deepcopy(results)
    del system(missing, "candidate")["records"][2]
    unknown = copy.deepcopy(results)
    system(unknown, "candidate")["records"][0]["case_id"] = "test-nowhere"
    clash = copy.deepcopy(results)
    system(clash, "candidate")["system_id"] = "baseline-v1"  # the baseline's own id
    later = copy.deepcopy(results)
    later["schema_version"] = "agent-benchmark-results-v2"
    systems_object = {key: value for key, value in results.items() if key != "systems"}
    systems_object["systems"] = {}
    return [("a value of the wrong type", submission_bytes(typed)),
            ("a missing record", submission_bytes(missing)),
            ("a record of an unknown case", submission_bytes(unknown)),
            ("the baseline's system id", submission_bytes(clash)),
            ("another results version", submission_bytes(later)),
            ("a baseline of its own", json.dumps(results).encode("utf-8")),
            ("systems not an array", json.dumps(systems_object).encode("utf-8")),
            ("not JSON", b'{"systems": [}'),
            ("a list, not an object", b"[]")]


def _reads(recorder, label, tokens, ids):
    """What each team reads of itself, the submissions ``ids`` read by the last team, and
    the boards."""
    for level, token in tokens:
        recorder.call("%s: team %s" % (label, level), "GET", "/v1/team", token=token)
        recorder.call("%s: submissions of %s" % (label, level), "GET", "/v1/submissions",
                      token=token)
    for number in ids:
        recorder.call("%s: submission %s" % (label, number), "GET", "/v1/submissions/%s"
                      % number, token=tokens[-1][1])
    recorder.call("%s: leaderboard" % label, "GET", "/v1/leaderboard")
    recorder.call("%s: page" % label, "GET", "/")


def _phase(service, arguments):
    run = run_cli(["phase"] + arguments + [
        "--spec", service.spec_path, "--cases", service.cases_path, "--baseline",
        service.baseline_path, "--data", service.data])
    if run.status != 0:
        raise AssertionError("phase %s failed: %s" % (arguments[0], run.stderr))


def example_scenario(test):
    """The example benchmark's service: every route, every level, a phase."""
    service = Service(test)
    recorder = Recorder(service)
    for path in ("/v1", "/v1/spec", "/v1/cases", "/v1/grader", "/v1/versions"):
        recorder.call("published", "GET", path)
    recorder.call("published, HEAD", "HEAD", "/v1/spec")
    recorder.call("no such path", "GET", "/v1/nowhere")
    recorder.call("no such method", "DELETE", "/v1/spec")
    recorder.call("no token", "GET", "/v1/team")
    recorder.call("a wrong token", "GET", "/v1/team", token="pab1.0000000000000000.wrong")
    tokens = [(level, service.team(level, level=level))
              for level in ("verdict", "rounded", "ladder", "full")]
    tight = service.team("tight", budget="1/24h", level="verdict")
    recorder.call("the page before any submission", "GET", "/")
    recorder.call("not JSON's media type", "POST", "/v1/submissions", b"{}", tight,
                  content_type="text/plain")
    recorder.raw("two lengths", b"POST /v1/submissions HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}")
    scored = {}
    for level, token in tokens:
        scored[level] = _submissions(recorder, "every test case, " + level, token,
                                     _packages(level))
    _submissions(recorder, "contract error", tight, _contract_errors())
    _submissions(recorder, "budget", tight, _packages()[:2])
    _reads(recorder, "every test case", [("tight", tight)], [])
    _reads(recorder, "every test case", tokens, scored["full"][:1])
    recorder.call("another team's submission", "GET", "/v1/submissions/1", token=tight)
    recorder.call("no such submission", "GET", "/v1/submissions/999", token=tight)
    recorder.call("no phase to choose for", "GET", "/v1/final", token=tokens[0][1])

    _phase(service, ["open", "--name", "spring", "--private-share", "0.4", "--seed", SEED,
                     "--choices", "2"])
    during = {}
    for level, token in tokens:
        during[level] = _submissions(recorder, "phase open, " + level, token,
                                     _packages(level))
    recorder.call("phase open: the default choice", "GET", "/v1/final", token=tokens[-1][1])
    recorder.call("phase open: a choice", "PUT", "/v1/final", json.dumps(
        {"submission_ids": during["full"][:2]}).encode("ascii"), tokens[-1][1])
    recorder.call("phase open: a choice too many", "PUT", "/v1/final", json.dumps(
        {"submission_ids": during["full"]}).encode("ascii"), tokens[-1][1])
    recorder.call("phase open: not a choice", "PUT", "/v1/final", b'{"ids": 1}', tokens[-1][1])
    recorder.call("phase open: a choice of another team's", "PUT", "/v1/final", json.dumps(
        {"submission_ids": during["verdict"][:1]}).encode("ascii"), tokens[-1][1])
    _reads(recorder, "phase open", tokens, during["full"][:1])
    _phase(service, ["close"])
    _reads(recorder, "phase closed", tokens, [])
    return recorder.answers


def evidence_scenario(test):
    """A results v3 baseline that recorded a trial as unknown, on cases v2 that declare the
    development split absent: the package's own findings, every test case and a part."""
    cases, results = evidence_package()
    service = Service(test, results=results, cases=cases)
    recorder = Recorder(service)
    token = service.team("maintainers", level="full")
    ladder = service.team("ladder", level="ladder")
    body = submission_bytes(results)
    failed = submission_bytes(failing(results, ["test-status"]))
    packages = [("passing", body), ("a task failing", failed)]
    _submissions(recorder, "v3, every test case, full", token, packages)
    _submissions(recorder, "v3, every test case, ladder", ladder, packages)
    _phase(service, ["open", "--name", "summer", "--private-share", "0.5", "--seed", SEED])
    _submissions(recorder, "v3, phase open, full", token, packages)
    _submissions(recorder, "v3, phase open, ladder", ladder, packages)
    _phase(service, ["close"])
    recorder.call("v3, phase closed: leaderboard", "GET", "/v1/leaderboard")
    return recorder.answers


def answers(test):
    return example_scenario(test) + evidence_scenario(test)


class ServiceAnswerTests(unittest.TestCase):
    def test_every_answer_matches_its_golden_copy(self):
        with open(GOLDEN, "rb") as handle:
            golden = json.loads(handle.read().decode("utf-8"))
        made = answers(self)
        self.assertEqual([answer["label"] for answer in made],
                         [answer["label"] for answer in golden])
        for answer, expected in zip(made, golden):
            with self.subTest(label=answer["label"], request=answer["request"]):
                self.assertEqual(answer, expected)


def write_golden_copy():
    """Rewrite the golden copy from the current code (then review the diff)."""
    test = unittest.TestCase()
    try:
        made = answers(test)
    finally:
        test.doCleanups()
    with open(GOLDEN, "wb") as handle:
        handle.write((json.dumps(made, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    print("wrote %d answers to %s" % (len(made), GOLDEN))


if __name__ == "__main__":
    write_golden_copy()
