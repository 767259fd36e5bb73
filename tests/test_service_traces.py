"""The private-test service never shows a trace of a private case: a benchmark whose baseline
package is results v5 (every record with its trace reference) and teams that submit v5
packages get, at every feedback level, the answers they would get without the references,
and no answer holds anything a reference says (a sample's id in its log, its entry, its
digest). The service imports neither explain nor a trace reader (tests/test_layers.py)."""

import copy
import hashlib
import json
import re
import unittest

from .service_support import Service, failing, submission_bytes
from .support import example_package
from .test_service_answers import without_moments

LEVELS = ("verdict", "rounded", "ladder", "full")
# What differs between two packages of the same records by their bytes alone: the digests
# (the evidence fingerprint, a file's), the sizes and the schema version a document names.
_BY_BYTES = [(re.compile(r"[0-9a-f]{64}|[0-9a-f]{12}&hellip;"), "<digest>"),
             (re.compile(r'"(bytes|schema_version)": ("[^"]*"|\d+)'), r'"\1": <bytes>'),
             (re.compile(r"agent-benchmark-results-v[45]"), "<results version>")]


def with_trace_references(results, marker):
    """``results`` as a v5 package: each system a provenance of one log, each record a
    trace reference whose every value carries ``marker``."""
    results = copy.deepcopy(results)
    results["schema_version"] = "agent-benchmark-results-v5"
    for system in results["systems"]:
        log = "%s-%s.eval" % (marker, system["system_id"])
        system_records = system.pop("records")
        system["provenance"] = {
            "logs": [{"log_file": log, "log_sha256": hashlib.sha256(log.encode()).hexdigest(),
                      "log_bytes": 1, "log_format": "inspect-eval", "log_format_version": "2",
                      "harness": "inspect_ai", "harness_version": None, "harness_commit": None,
                      "run_id": None, "run_started": None, "run_status": "success",
                      "side_effect_rule": "every tool called", "first_trial_id": 1,
                      "trial_count": system["protocol"]["trial_count"]}],
            "mapping_sha256": None, "missing_as": "error", "recorded_unknown": []}
        system["records"] = system_records
        for record in system_records:
            unit = "%s-%s-%d" % (marker, record["case_id"], record["trial_id"])
            record["trace"] = {"log": 0, "unit": "sample", "id": unit,
                               "epoch": record["trial_id"], "index": None,
                               "entry": "samples/%s.json" % unit,
                               "sha256": hashlib.sha256(unit.encode()).hexdigest()}
    return results


def answers(test, baseline, submissions):
    """Every answer a team of each level reads, in order: the bodies as given."""
    service = Service(test, results=baseline)
    found = []
    for level in LEVELS:
        token = service.team(level, level=level)
        for body in submissions:
            reply = service.submit(token, body)
            found.append((reply.status, reply.body))
        found.append((200, service.call("GET", "/v1/submissions", token=token).body))
        found.append((200, service.call("GET", "/v1/team", token=token).body))
    for path in ("/v1/leaderboard", "/", "/v1/grader"):
        found.append((200, service.call("GET", path).body))
    return [(status, body.decode("utf-8")) for status, body in found]


def comparable(body):
    """A body with the run's moments and what differs by the packages' bytes alone written
    as placeholders."""
    body = without_moments(body)
    for pattern, placeholder in _BY_BYTES:
        body = pattern.sub(placeholder, body)
    return body


class NoTraceLeavesTheServiceTests(unittest.TestCase):
    def test_every_level_answers_a_traced_package_as_the_same_records_without(self):
        results = example_package()[2]
        v4 = copy.deepcopy(results)
        v4["schema_version"] = "agent-benchmark-results-v4"
        for system in v4["systems"]:
            system["provenance"] = with_trace_references(results, "x")["systems"][0][
                "provenance"]
        traced = [with_trace_references(package, "secret-trace") for package in (
            results, failing(results, ["test-safety"]))]
        plain = [copy.deepcopy(package) for package in traced]
        for package in plain:
            package["schema_version"] = "agent-benchmark-results-v4"
            for system in package["systems"]:
                for record in system["records"]:
                    del record["trace"]
        baseline_plain = copy.deepcopy(traced[0])
        baseline_plain["schema_version"] = "agent-benchmark-results-v4"
        for system in baseline_plain["systems"]:
            for record in system["records"]:
                del record["trace"]
        with_references = answers(self, traced[0], [submission_bytes(package)
                                                    for package in traced])
        without = answers(self, baseline_plain, [submission_bytes(package)
                                                 for package in plain])
        self.assertEqual(len(with_references), len(without))
        for (status, mine), (their_status, theirs) in zip(with_references, without):
            self.assertEqual((status, comparable(mine)), (their_status, comparable(theirs)))
        scored = [status for status, _body in with_references[:2]]
        self.assertEqual(scored, [200, 200])
        said = {value for package in traced for system in package["systems"]
                for record in system["records"] for value in (
                    record["trace"]["id"], record["trace"]["entry"], record["trace"]["sha256"])}
        for _status, body in with_references:
            self.assertNotIn("secret-trace", body)
            self.assertEqual([value for value in said if value in body], [])
        # and the references were there to leak: the baseline's and the submissions'
        self.assertIn(b"secret-trace", submission_bytes(traced[1]))
        self.assertIn("secret-trace", json.dumps(traced[0]))


if __name__ == "__main__":
    unittest.main()
