"""The private-test service's defences against adaptive teams, over real HTTP on a free
loopback port: at the ladder level nothing that depends on the private answers leaves but
through the Ladder (the verdict included); the Ladder's edge cases; the rounded level's step
against the test set's size; and phases: a secret split, every answer computed on the public
part, the final board on the private part only, the teams' choices."""

import copy
import hashlib
import json
import os
import random
import re
import unittest

from proagents_bench.service import database, feedback, parts, phases, teams
from proagents_bench.service.benchmark import Benchmark

from devtools.attack_setup import make_benchmark
from devtools.attack_setup import submission as attack_submission

from .service_support import Service, failing, submission_bytes
from .support import example_package, load_example, run_cli, run_subprocess
from .test_service import parse_page

SEED = "00112233445566778899aabbccddeeff" * 2
TEST_IDS = ["test-refund", "test-cancel", "test-status", "test-safety", "test-privacy"]


def near_spec(threshold):
    """The example spec with a hard gate on the candidate's primary rate at ``threshold``."""
    spec = load_example("benchmark_spec.json")
    spec["gates"]["min_primary_task_success_rate"] = threshold
    spec["gates"]["min_paired_delta_ci_low"] = -1  # only the near gate can fail
    return spec


def with_spec(service, spec):
    """Restart ``service``'s application on another spec (same cases, same database)."""
    path = os.path.join(service.folder, "spec.json")
    with open(path, "wb") as handle:
        handle.write(json.dumps(spec).encode("utf-8"))
    service.app.benchmark = service.app.submitter.benchmark = Benchmark(
        path, service.cases_path, service.baseline_path)


def open_phase(service, share="0.4", seed=SEED, choices=2, name="spring"):
    return run_cli(["phase", "open", "--name", name, "--spec", service.spec_path, "--cases",
                    service.cases_path, "--baseline", service.baseline_path, "--data",
                    service.data, "--private-share", share, "--seed", seed, "--choices",
                    str(choices)])


def serve_refusal(service):
    """``serve`` on the service's files and data, as a child process that must refuse to start
    (a timeout, not a hang, when it starts instead)."""
    return run_subprocess(["serve", "--spec", service.spec_path, "--cases", service.cases_path,
                          "--baseline", service.baseline_path, "--data", service.data,
                          "--port", "0"], timeout=30)


def close_phase(service):
    return run_cli(["phase", "close", "--spec", service.spec_path, "--cases",
                    service.cases_path, "--baseline", service.baseline_path, "--data",
                    service.data])


class LadderVerdictTests(unittest.TestCase):
    """At the ladder level a verdict is released only with a newly released score."""

    def test_a_verdict_that_would_tell_the_score_is_not_released(self):
        # A hard gate at 0.7 between the scores 0.6 and 0.8 makes PASS a one-bit score
        # oracle. The second submission (0.8: PASS) is no release over the first (0.6:
        # BLOCK): one task better, one worse, one more better is within a standard error.
        service = Service(self)
        with_spec(service, near_spec(0.7))
        token = service.team("alpha", level="ladder")
        results = example_package()[2]
        first = service.submit(token, submission_bytes(failing(
            results, ["test-refund", "test-cancel"]))).document
        second = service.submit(token, submission_bytes(failing(
            results, ["test-status"]))).document
        self.assertEqual((first["action"], first["ladder"]["new_score_released"],
                          first["ladder"]["score"]), ("BLOCK", True, 0.6))
        self.assertEqual(first["ladder"]["verdict_of_submission"], first["submission_id"])
        self.assertEqual((second["ladder"]["new_score_released"], second["ladder"]["score"]),
                         (False, 0.6))
        for key in feedback.VERDICT_KEYS:  # the first one's verdict, again
            self.assertEqual(second[key], first[key], key)
        self.assertEqual(second["ladder"]["verdict_of_submission"], first["submission_id"])
        # The gate's own decision is kept for the maintainer, never shown to the team.
        self.assertEqual(service.rows("SELECT action, shown_action FROM submissions ORDER BY "
                                      "id"), [("BLOCK", "BLOCK"), ("PASS", "BLOCK")])
        listed = service.call("GET", "/v1/submissions", token=token).document["submissions"]
        self.assertEqual([entry["action"] for entry in listed], ["BLOCK", "BLOCK"])
        stored = service.call("GET", "/v1/submissions/%d" % second["submission_id"],
                              token=token).document["answer"]
        self.assertEqual(stored["action"], "BLOCK")
        board = service.call("GET", "/v1/leaderboard").document["boards"][0]["entries"]
        self.assertEqual([(entry["team"], entry["decision"]) for entry in board],
                         [("alpha", "BLOCK")])
        # A real improvement releases the score and its verdict.
        third = service.submit(token).document
        self.assertEqual((third["action"], third["ladder"]["new_score_released"],
                          third["ladder"]["score"]), ("PASS", True, 1.0))

    def test_what_depends_only_on_public_data_is_answered_at_once(self):
        service = Service(self)
        token = service.team("alpha", level="ladder")
        self.assertEqual(service.submit(token).document["action"], "PASS")
        broken = service.submit(token, b'{"schema_version": 1}')
        self.assertEqual((broken.status, broken.document["code"]),
                         (422, "service.contract_error"))
        results = example_package()[2]
        results["systems"][1]["protocol"]["max_steps"] = 99
        mismatch = service.submit(token, submission_bytes(results)).document
        self.assertEqual(mismatch["action"], "INCOMPARABLE")
        self.assertEqual(mismatch["protocol_mismatches"],
                         ["candidate-pass.max_steps: expected=8, actual=99"])
        self.assertNotIn("ladder", mismatch)


class LadderEdgeTests(unittest.TestCase):
    def test_one_test_task_releases_nothing_new(self):
        cases = load_example("benchmark_cases.json")
        cases["cases"] = [case for case in cases["cases"]
                          if case["split"] != "test" or case["id"] == "test-refund"]
        results = example_package()[2]
        for system in results["systems"]:
            system["records"] = [record for record in system["records"]
                                 if record["case_id"] == "test-refund"]
        service = Service(self, cases=cases, results=results)
        token = service.team("alpha", level="ladder")
        first = service.submit(token, submission_bytes(failing(results, ["test-refund"])))
        second = service.submit(token, submission_bytes(results))
        self.assertEqual([(answer.document["ladder"]["score"],
                           answer.document["ladder"]["new_score_released"])
                          for answer in (first, second)], [(0.0, True), (0.0, False)])
        self.assertFalse(feedback.ladder_releases([1], [0]))

    def test_a_rounded_score_never_becomes_the_ladders_best(self):
        # 0.8 rounds to 1.0 on the example's step (0.5); back at the ladder level, the first
        # ladder submission is released (its exact 0.8), not measured against the rounded 1.0.
        service = Service(self)
        token = service.team("alpha", level="rounded")
        body = submission_bytes(failing(example_package()[2], ["test-cancel"]))
        rounded = service.submit(token, body).document["rounded"]
        self.assertEqual(rounded["primary_task_success_rate"], 1.0)
        teams.configure(service.db, "alpha", level="ladder")
        ladder = service.submit(token, body).document["ladder"]
        self.assertEqual((ladder["score"], ladder["new_score_released"]), (0.8, True))


class RoundingStepTests(unittest.TestCase):
    def test_the_rule_is_two_standard_errors(self):
        self.assertTrue(feedback.step_allowed(feedback.parse_step("0.1"), 100))
        self.assertFalse(feedback.step_allowed(feedback.parse_step("0.1"), 99))
        self.assertTrue(feedback.step_allowed(feedback.parse_step("0.45"), 5))
        self.assertFalse(feedback.step_allowed(feedback.parse_step("0.44"), 5))
        self.assertEqual([feedback.step_text(feedback.automatic_step(n)) for n in (
            1, 3, 4, 5, 16, 25, 50, 99, 100, 10000)],
            ["1", "1", "0.5", "0.5", "0.25", "0.2", "0.2", "0.2", "0.1", "0.1"])
        for text in ("0", "1.5", "0.12345", "-0.1", "1/10", "abc"):
            with self.assertRaises(feedback.StepError):
                feedback.parse_step(text)

    def test_the_answer_uses_the_teams_step_or_the_automatic_one(self):
        service = Service(self)
        automatic = service.team("auto", level="rounded")
        teams.add(service.db, "coarse", "100/24h", "rounded", "0.75")
        body = submission_bytes(failing(example_package()[2], ["test-cancel", "test-status"]))
        shown = service.submit(automatic, body).document["rounded"]  # 0.6 on steps of 0.5
        self.assertEqual((shown["rounding_step"], shown["primary_task_success_rate"]),
                         (0.5, 0.5))
        coarse = teams.rotate(service.db, "coarse")
        shown = service.submit(coarse, body).document["rounded"]  # 0.6 on steps of 0.75
        self.assertEqual((shown["rounding_step"], shown["primary_task_success_rate"]),
                         (0.75, 0.75))
        self.assertEqual(service.rows("SELECT released_step FROM submissions ORDER BY id"),
                         [("0.5",), ("0.75",)])

    def test_the_team_sees_the_step_in_force(self):
        service = Service(self)
        automatic = service.team("auto", level="rounded")
        teams.add(service.db, "coarse", "100/24h", "rounded", "0.75")
        coarse = teams.rotate(service.db, "coarse")
        ladder = service.team("ladder", level="ladder")

        def step(token):
            shown = service.call("GET", "/v1/team", token=token).document
            return (shown["rounding_step"], shown["rounding_step_chosen"],
                    shown["feedback_test_tasks"])

        self.assertEqual(step(automatic), ("0.5", "automatic", 5))  # as the answer rounds
        self.assertEqual(service.submit(automatic).document["rounded"]["rounding_step"], 0.5)
        self.assertEqual(step(coarse), ("0.75", "by the maintainer", 5))
        self.assertEqual(step(ladder), (None, None, 5))
        self.assertEqual(open_phase(service).status, 0)  # 3 public test cases: steps of 1
        self.assertEqual(step(automatic), ("1", "automatic", 3))
        self.assertEqual(service.submit(automatic).document["rounded"]["rounding_step"], 1.0)

    def test_a_step_finer_than_the_test_set_allows_is_refused(self):
        service = Service(self)
        data = service.data
        fresh = run_cli(["team", "add", "early", "--level", "rounded", "--step", "0.1",
                         "--data", data])
        self.assertEqual(fresh.status, 0, fresh.stderr)  # the size is not known yet: a warning
        self.assertIn("WARNING: the rounding step could not be checked", fresh.stderr)
        refused = serve_refusal(service)
        self.assertEqual(refused.status, 2)
        self.assertEqual(refused.document["errors"][0]["code"], "cli.phase")
        self.assertIn("1/sqrt(5) = 0.447; too fine: early (0.1)",
                      refused.document["errors"][0]["message"])
        self.assertEqual(run_cli(["team", "set", "early", "--step", "auto", "--data",
                                  data]).status, 0)
        phases.record_served(service.db, service.benchmark)  # what serve does once it starts
        for arguments in (["add", "late", "--level", "rounded", "--step", "0.4"],
                          ["set", "early", "--step", "0.2"]):
            failed = run_cli(["team"] + arguments + ["--data", data])
            self.assertEqual(failed.status, 2, arguments)
            self.assertIn("1/sqrt(5)", failed.document["errors"][0]["message"])
        added = run_cli(["team", "add", "late", "--level", "rounded", "--step", "0.45",
                         "--data", data])
        self.assertEqual((added.status, added.stderr), (0, ""))
        # A phase's public part (3 of 5 cases) needs 1/sqrt(3) = 0.577: 0.45 is too fine now.
        refused = open_phase(service)
        self.assertEqual(refused.status, 2)
        self.assertIn("too fine: late (0.45)", refused.document["errors"][0]["message"])


class SplitTests(unittest.TestCase):
    def cases(self, count=40, per_family=1):
        cases = load_example("benchmark_cases.json")
        cases["cases"] = [case for case in cases["cases"] if case["split"] != "test"]
        for index in range(count):
            cases["cases"].append({
                "id": "test-%03d" % index, "family_id": "family-%03d" % (index // per_family),
                "split": "test", "slice": "all", "critical": False, "task_type": "x",
                "is_private": True, "initial_state": "s", "expected_final_state": "e",
                "allowed_tools": [], "forbidden_side_effects": []})
        return cases

    def test_the_split_is_a_function_of_the_seed_alone(self):
        cases = self.cases()
        seed = bytes.fromhex(SEED)
        private = parts.split_test_cases(cases, seed, phases.parse_share("0.5"))
        self.assertEqual(len(private), 20)
        self.assertEqual(parts.split_test_cases(copy.deepcopy(cases), seed,
                                                phases.parse_share("0.5")), private)
        shuffled = copy.deepcopy(cases)
        random.Random(3).shuffle(shuffled["cases"])
        self.assertEqual(sorted(parts.split_test_cases(shuffled, seed,
                                                       phases.parse_share("0.5"))), private)
        other = parts.split_test_cases(cases, bytes.fromhex("ff" + SEED[2:]),
                                       phases.parse_share("0.5"))
        self.assertNotEqual(other, private)
        # The documented recipe: families by HMAC-SHA256(seed, family_id), smallest first.
        import hmac
        keys = sorted(("family-%03d" % index for index in range(40)),
                      key=lambda family: hmac.new(seed, family.encode(), "sha256").digest())
        self.assertEqual(sorted(private), sorted("test-" + family[-3:] for family in keys[:20]))
        self.assertEqual(parts.commitment(seed), hashlib.sha256(seed).hexdigest())

    def test_a_family_is_never_split_and_no_part_is_empty(self):
        cases = self.cases(count=12, per_family=3)
        private = parts.split_test_cases(cases, bytes.fromhex(SEED), phases.parse_share("0.4"))
        self.assertEqual(len(private), 6)  # 0.4 x 12 = 4.8: 5 cases, so two whole families
        families = {case_id[:-1] for case_id in private}
        self.assertEqual(len(families), 2)
        with self.assertRaises(parts.SplitError):
            parts.split_test_cases(cases, bytes.fromhex(SEED), phases.parse_share("0.01"))
        with self.assertRaises(parts.SplitError):
            parts.split_test_cases(cases, bytes.fromhex(SEED), phases.parse_share("0.99"))
        for seed in ("abc", "0" * 31, "g" * 32, "0" * 33):
            with self.assertRaises(phases.PhaseError):
                phases.parse_seed(seed)


class PhaseTests(unittest.TestCase):
    def setUp(self):
        self.service = Service(self)
        opened = open_phase(self.service)
        self.assertEqual(opened.status, 0, opened.stderr)
        self.opened = opened.document
        self.private = parts.split_test_cases(load_example("benchmark_cases.json"),
                                              bytes.fromhex(SEED), phases.parse_share("0.4"))
        self.public = [case_id for case_id in TEST_IDS if case_id not in self.private]

    def test_open_prints_the_seed_once_and_publishes_its_hash(self):
        self.assertEqual(self.opened["seed"], SEED)
        self.assertEqual(self.opened["seed_sha256"], hashlib.sha256(
            bytes.fromhex(SEED)).hexdigest())
        self.assertEqual((self.opened["public_test_tasks"], self.opened["private_test_tasks"]),
                         (3, 2))
        board = self.service.call("GET", "/v1/leaderboard").document["boards"][0]
        self.assertEqual((board["board"], board["phase"]["seed_sha256"]),
                         ("public", self.opened["seed_sha256"]))
        self.assertNotIn("seed", board["phase"])
        self.assertNotIn("private_case_ids", board["phase"])
        status = run_cli(["phase", "status", "--data", self.service.data]).document
        self.assertNotIn("seed", status["phases"][0])
        again = open_phase(self.service, name="other")
        self.assertEqual((again.status, again.document["errors"][0]["code"]), (2, "cli.phase"))
        # Two choices (this phase's): their price is said when the phase opens.
        self.assertEqual(self.opened["choices"], 2)
        self.assertIn("gains about 0.8 standard errors", self.opened["choices_note"])

    def test_one_final_choice_by_default(self):
        self.assertEqual(close_phase(self.service).status, 0)
        opened = run_cli(["phase", "open", "--name", "summer", "--spec",
                          self.service.spec_path, "--cases", self.service.cases_path,
                          "--baseline", self.service.baseline_path, "--data",
                          self.service.data])
        self.assertEqual(opened.status, 0, opened.stderr)
        self.assertEqual(opened.document["choices"], 1)
        self.assertNotIn("choices_note", opened.document)
        token = self.service.team("alpha")
        numbers = [self.service.submit(token).document["submission_id"] for _ in range(2)]
        refused = self.service.call("PUT", "/v1/final", json.dumps(
            {"submission_ids": numbers}).encode("ascii"), token)
        self.assertEqual(refused.status, 400)
        self.assertIn("at most 1 submission for the final board", refused.document["detail"])

    def test_every_answer_during_the_phase_is_computed_on_the_public_part(self):
        token = self.service.team("alpha", level="full")
        answer = self.service.submit(token, submission_bytes(failing(
            example_package()[2], self.private))).document
        tasks = [task["case_id"] for task in answer["decision"]["candidate_metrics"]
                 ["task_results"]]
        self.assertEqual(tasks, self.public)
        self.assertEqual(answer["decision"]["candidate_metrics"]["primary_task_success_rate"],
                         1.0)
        self.assertEqual(answer["action"], "PASS")  # the failed private cases are not seen
        self.assertIn("public part of phase spring (3 test cases)", answer["scored_on"])
        body = self.service.call("GET", "/").body + self.service.call(
            "GET", "/v1/leaderboard").body
        self.assertNotIn(SEED.encode("ascii"), body)

    def test_the_final_board_scores_the_chosen_submissions_on_the_private_part_only(self):
        results = example_package()[2]
        public_only = submission_bytes(failing(results, self.private))
        private_only = submission_bytes(failing(results, self.public))
        alpha = self.service.team("alpha", level="ladder")
        beta = self.service.team("beta", level="rounded")
        gamma = self.service.team("gamma", level="verdict")
        self.service.team("idle")
        self.assertEqual(self.service.submit(alpha, public_only).document["ladder"]["score"],
                         1.0)
        first_beta = self.service.submit(beta, private_only).document
        self.assertEqual(first_beta["rounded"]["primary_task_success_rate"], 0.0)
        self.service.submit(beta, public_only)  # beta's last: by default its final one
        chosen = self.service.call("PUT", "/v1/final", json.dumps(
            {"submission_ids": [first_beta["submission_id"]]}).encode("ascii"), beta).document
        self.assertEqual((chosen["chosen"], chosen["chosen_by"]),
                         ([first_beta["submission_id"]], "team"))
        self.service.submit(gamma, private_only)
        default = self.service.call("GET", "/v1/final", token=alpha).document
        self.assertEqual(default["chosen_by"], "default (the last scored submission of the "
                                               "phase)")
        closed = close_phase(self.service)
        self.assertEqual(closed.status, 0, closed.stderr)
        final = {entry["team"]: entry for entry in closed.document["entries"]}
        self.assertEqual(sorted(final), ["alpha", "beta", "gamma"])
        self.assertEqual({name: (entry["score"], entry["rank"], entry["precision"])
                          for name, entry in final.items()},
                         {"alpha": (0.0, 3, "exact"), "beta": (1.0, 1, "exact"),
                          "gamma": (1.0, 1, "exact")})
        self.assertEqual((final["beta"]["chosen"], final["alpha"]["chosen"]),
                         ("by the team", "the last (default)"))
        self.assertEqual(closed.document["phase"]["seed"], SEED)
        self.assertEqual(closed.document["phase"]["private_case_ids"], self.private)
        # With no phase open, the final board of the phase closed last opens the page.
        boards = self.service.call("GET", "/v1/leaderboard").document["boards"]
        self.assertEqual([(board["board"], board["current"]) for board in boards],
                         [("final", False), ("all", True), ("public", False)])
        self.assertEqual(boards[0]["entries"], closed.document["entries"])
        page = self.service.call("GET", "/").body.decode("utf-8")
        self.assertEqual(re.findall(r"<h2>([^<]*)", page)[:3], [
            "phase spring, final board", "every test case (current)",
            "phase spring, public board (earlier; not ranked with the current one)"])
        # Nobody submitted on every test case yet: one line, not a table of empty rows.
        self.assertIn("No scored submission yet. Taking part: alpha, beta, gamma, idle.", page)
        self.assertIn(SEED, page)  # published once closed
        # After the close: no final board to choose for, and answers on every test case.
        refused = self.service.call("PUT", "/v1/final", b'{"submission_ids": []}', alpha)
        self.assertEqual((refused.status, refused.document["code"]), (409, "service.conflict"))
        after = self.service.submit(alpha, public_only).document
        self.assertEqual((after["scored_on"], after["ladder"]["score"]),
                         ("every test case", 0.6))
        self.assertEqual(close_phase(self.service).status, 2)  # nothing left to close

    def test_a_choice_is_checked(self):
        alpha = self.service.team("alpha")
        beta = self.service.team("beta")
        numbers = [self.service.submit(alpha).document["submission_id"] for _ in range(3)]
        other = self.service.submit(beta).document["submission_id"]
        for body, status in (
                ({"submission_ids": numbers}, 400),  # three, the phase takes two
                ({"submission_ids": [other]}, 400),  # another team's
                ({"submission_ids": [numbers[0], numbers[0]]}, 400),
                ({"submission_ids": ["1"]}, 400), ({"ids": []}, 400), ([], 400),
                ({"submission_ids": numbers[:2]}, 200), ({"submission_ids": []}, 200)):
            with self.subTest(body=body):
                reply = self.service.call("PUT", "/v1/final", json.dumps(body).encode("ascii"),
                                          alpha)
                self.assertEqual(reply.status, status, reply.body)
        self.assertEqual(self.service.call("PUT", "/v1/final", b"{", alpha).status, 400)
        plain = self.service.call("PUT", "/v1/final", b'{"submission_ids": []}', alpha,
                                  content_type="text/plain")
        self.assertEqual((plain.status, plain.document["code"]),
                         (415, "service.unsupported_media_type"))
        shown = self.service.call("GET", "/v1/final", token=alpha).document
        self.assertEqual((shown["chosen"], shown["chosen_by"][:7]), ([numbers[2]], "default"))

    def test_a_close_that_stopped_half_way_is_finished_by_the_next(self):
        token = self.service.team("alpha")
        self.service.submit(token)
        with database.connection(self.service.db) as opened:  # as a crash would leave it
            opened.execute("UPDATE phases SET status = 'closing'")
        self.assertEqual(self.service.submit(token).document["scored_on"], "every test case")
        closed = close_phase(self.service)
        self.assertEqual(closed.status, 0, closed.stderr)
        self.assertEqual([entry["team"] for entry in closed.document["entries"]], ["alpha"])

    def test_a_submission_graded_while_the_phase_closes_is_graded_again(self):
        token = self.service.team("alpha")
        benchmark = self.service.app.submitter.benchmark
        original = benchmark.public_part

        def closing_meanwhile(private_ids):  # the phase closes while the gate runs
            with database.connection(self.service.db) as opened:
                opened.execute("UPDATE phases SET status = 'closing'")
            return original(private_ids)

        benchmark.public_part = closing_meanwhile
        answer = self.service.submit(token).document
        self.assertEqual(answer["scored_on"], "every test case")
        self.assertEqual(self.service.rows("SELECT phase_id FROM submissions"), [(None,)])

    def test_a_team_made_full_while_its_submission_is_graded_sees_the_parts_files(self):
        # Only the full level shows what the decision says of its input files, and a part's
        # are made for it alone: a submission graded for another level is graded again.
        full = self.service.team("full", level="full")
        expected = self.service.submit(full).document["decision"]
        alpha = self.service.team("alpha", level="rounded")
        benchmark = self.service.app.submitter.benchmark
        original = benchmark.public_part
        calls = []

        def made_full_meanwhile(private_ids):
            if not calls:
                teams.configure(self.service.db, "alpha", level="full")
            calls.append(private_ids)
            return original(private_ids)

        benchmark.public_part = made_full_meanwhile
        answer = self.service.submit(alpha).document
        self.assertEqual(len(calls), 2)
        self.assertEqual(answer["feedback_level"], "full")
        for key in ("inputs", "evidence_fingerprint"):
            self.assertEqual(answer["decision"][key], expected[key])

    def test_serve_refuses_other_files_while_a_phase_is_open(self):
        spec = load_example("benchmark_spec.json")
        spec["gates"]["max_mean_latency_ms"] = 3000
        with open(self.service.spec_path, "wb") as handle:
            handle.write(json.dumps(spec).encode("utf-8"))
        refused = serve_refusal(self.service)
        self.assertEqual(refused.status, 2)
        self.assertIn("phase 'spring' was opened with other files",
                      refused.document["errors"][0]["message"])
        token = self.service.team("alpha")
        with_spec(self.service, spec)  # a running service given other files
        reply = self.service.submit(token)
        self.assertEqual((reply.status, reply.document["code"]), (503, "service.unavailable"))
        self.assertEqual(self.service.rows("SELECT COUNT(*) FROM submissions"), [(0,)])


class RowTests(unittest.TestCase):
    """A leaderboard row is one submission: the better decision, then the higher score, then
    the earlier; never one submission's score beside another's decision."""

    def setUp(self):
        spec, cases, baseline, self.expected = make_benchmark(12, 3, None)
        self.private = parts.split_test_cases(cases, bytes.fromhex(SEED),
                                              phases.parse_share("0.5"))
        public = [case_id for case_id in self.expected if case_id not in self.private]
        self.critical = [self.private[0], public[0]]  # one critical case in each part
        for case in cases["cases"]:
            case["critical"] = case["id"] in self.critical
        self.protocol = spec["protocol"]
        self.versions = (spec["benchmark_id"], spec["benchmark_version"],
                         cases["dataset_version"])
        self.service = Service(self, spec=spec, cases=cases, results=baseline)

    def answers(self, right):
        """A submission whose ``right`` cases have their expected state, the others not."""
        return attack_submission(self.protocol, self.versions, {
            case_id: state if case_id in right else "wrong"
            for case_id, state in self.expected.items()})

    def test_the_issues_attack_a_critical_failure_and_its_complement(self):
        """A: every case but the critical ones (BLOCK, a high score); B: the critical ones
        only (PASS, a low score). The row is B, whole, on the public and the final board."""
        self.assertEqual(open_phase(self.service, share="0.5").status, 0)
        token = self.service.team("hedger", level="full")
        a = self.service.submit(token, self.answers(
            [case for case in self.expected if case not in self.critical])).document
        b = self.service.submit(token, self.answers(self.critical)).document
        self.assertEqual([(answer["action"], answer["decision"]["candidate_metrics"][
            "primary_task_success_rate"]) for answer in (a, b)], [("BLOCK", 5 / 6),
                                                                  ("PASS", 1 / 6)])
        chosen = self.service.call("PUT", "/v1/final", json.dumps(
            {"submission_ids": [a["submission_id"], b["submission_id"]]}).encode("ascii"),
            token)
        self.assertEqual(chosen.status, 200, chosen.body)
        public_row = self.rows("public")["hedger"]
        self.assertEqual((public_row["decision"], public_row["score"], public_row["sha256"]),
                         ("PASS", 1 / 6, b["sha256"]))
        self.assertEqual(public_row["scored_submissions"], 2)
        closed = close_phase(self.service)
        self.assertEqual(closed.status, 0, closed.stderr)
        final_row = self.rows("final")["hedger"]
        self.assertEqual((final_row["decision"], final_row["score"], final_row["sha256"],
                          final_row["chosen"]), ("PASS", 1 / 6, b["sha256"], "by the team"))
        self.assertEqual(closed.document["entries"][0], final_row)
        page = parse_page(self.service.call("GET", "/").body.decode("utf-8"))
        self.assertEqual(page[0][0][:4], ["1", "hedger" + b["sha256"][:12] + "\u2026",
                                          "0.1667", "PASS"])

    def test_among_equal_decisions_the_higher_score_then_the_earlier(self):
        token = self.service.team("steady", level="full")
        everything = list(self.expected)
        low = self.service.submit(token, self.answers(self.critical)).document
        high = self.service.submit(token, self.answers(everything)).document
        again = self.service.submit(token, self.answers(everything).replace(  # other bytes
            b'"result_set_version": "attack"', b'"result_set_version": "again"')).document
        self.assertEqual([answer["action"] for answer in (low, high, again)], ["PASS"] * 3)
        self.assertNotEqual(high["sha256"], again["sha256"])
        row = self.rows("all")["steady"]
        self.assertEqual((row["score"], row["sha256"]), (1.0, high["sha256"]))

    def rows(self, kind):
        boards = self.service.call("GET", "/v1/leaderboard").document["boards"]
        board = next(board for board in boards if board["board"] == kind)
        return {entry["team"]: entry for entry in board["entries"]}


if __name__ == "__main__":
    unittest.main()
