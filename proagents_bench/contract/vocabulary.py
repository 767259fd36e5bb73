"""The contract's fixed words, each declared once: schema versions, splits, statuses,
roles, bootstrap units, the grading checks, the decision's actions and findings' severities.
"""

from __future__ import annotations

from typing import Tuple

SPEC_V1 = "agent-benchmark-spec-v1"
SPEC_V2 = "agent-benchmark-spec-v2"
SPEC_V3 = "agent-benchmark-spec-v3"
SPEC_V4 = "agent-benchmark-spec-v4"
# v5: v4 and a sequential design (``sequential``, contract/sequential.py), or null.
SPEC_V5 = "agent-benchmark-spec-v5"
# v6: v5 and the validity bounds (``validity``, contract/validity.py), or null.
SPEC_V6 = "agent-benchmark-spec-v6"
# Every spec version, oldest first: a gate belongs to some of them (contract/gates.py).
SPEC_VERSIONS = (SPEC_V1, SPEC_V2, SPEC_V3, SPEC_V4, SPEC_V5, SPEC_V6)
CASES_V1 = "agent-benchmark-cases-v1"
CASES_V2 = "agent-benchmark-cases-v2"
RESULTS_V1 = "agent-benchmark-results-v1"
RESULTS_V2 = "agent-benchmark-results-v2"
RESULTS_V3 = "agent-benchmark-results-v3"
RESULTS_V4 = "agent-benchmark-results-v4"
RESULTS_V5 = "agent-benchmark-results-v5"
# v6: v5 and each record's failure origin (``failure_origin``, contract/validity.py).
RESULTS_V6 = "agent-benchmark-results-v6"
# The results versions whose records say whose a failure is (``failure_origin``).
ORIGIN_RESULTS: Tuple[str, ...] = (RESULTS_V6,)
# The results versions whose systems an import wrote (a provenance that says what the import
# did with what its logs lacked).
IMPORTED_RESULTS = (RESULTS_V3, RESULTS_V4, RESULTS_V5, RESULTS_V6)
MAPPING_V1 = "proagents-bench-import-mapping-v1"
# v2: v1 and the pointers of a JSON-lines log (``lines``).
MAPPING_V2 = "proagents-bench-import-mapping-v2"
MAPPING_VERSIONS = (MAPPING_V1, MAPPING_V2)
# The final states a JSON-lines line or a promptfoo result gets when the mapping decides its
# success (a test the gate's expected_final_state names).
PASSED = "passed"
FAILED = "failed"
RELEASE_V1 = "proagents-bench-release-v1"
RELEASE_VERSIONS = (RELEASE_V1,)
# The ledger the gate writes with --ledger (contract/ledger.py): every look it judged.
LEDGER_V1 = "proagents-bench-ledger-v1"
LEDGER_VERSIONS = (LEDGER_V1,)
# Every kind whose JSON Schema the contract publishes (``--schema KIND``): the gate's three
# files and its document, the importer's mapping, the release's manifest and document, the
# gate's ledger. Here, not beside the schemas (contract/publish.py), so that the gate's
# command line can offer the choices without importing what builds them.
SCHEMA_KINDS = ("spec", "cases", "results", "decision", "mapping", "release",
                "release-decision", "ledger", "explanation")

# A SHA-256 digest as text: 64 lowercase hex digits.
SHA256_HEX = "^[0-9a-f]{64}$"

# The harnesses, their log formats (a results v2 system's provenance names one) and the
# mapping's final-state and cost sources are rows of contract/harnesses.py.

# The split the gate ranks (the private test cases); the others are for development.
TEST_SPLIT = "test"
SPLITS = ("train", "development", TEST_SPLIT)
# The splits a cases v2 file may declare absent (``absent_splits``): never the test split.
ABSENT_SPLITS = SPLITS[:2]
SUCCESS = "success"
TIMEOUT = "timeout"
ERROR = "error"
UNKNOWN = "unknown"  # a trial whose outcome the log could not tell: a failed trial
STATUSES = (SUCCESS, TIMEOUT, ERROR, UNKNOWN)
BASELINE_ROLE = "baseline"
CANDIDATE_ROLE = "candidate"
ROLES = (BASELINE_ROLE, CANDIDATE_ROLE)
BOOTSTRAP_UNITS = ("task", "family")
# What a sequential design's boundary counts (contract/sequential.py): tasks judged by their
# verdicts, or trial pairs (a trial of each system with the same trial id of one task).
TASK_UNIT = "task"
TRIAL_UNIT = "trial"
SEQUENTIAL_UNITS = (TASK_UNIT, TRIAL_UNIT)
# The sequential methods a spec may name: the exactly calibrated truncated SPRT on the paired
# discordant units (proagents_bench/stats/sequential.py).
TRUNCATED_SPRT = "truncated_sprt_exact"
SEQUENTIAL_METHODS = (TRUNCATED_SPRT,)
# How the bootstrap gate compares the interval's lower bound with min_paired_delta_ci_low:
# inclusive (v1 and v2: low >= gate) or strict (low > gate).
INCLUSIVE = "inclusive"
STRICT = "strict"
LOWER_BOUND_RULES = (INCLUSIVE, STRICT)

# The four checks of a trial, in the contract's order ("Grading"), as the output names them.
CHECKS = ("status_success", "final_state_correct", "side_effects_safe", "tools_allowed")

PASS = "PASS"
REVIEW = "REVIEW"
BLOCK = "BLOCK"
INCOMPARABLE = "INCOMPARABLE"
ACTIONS = (PASS, REVIEW, BLOCK, INCOMPARABLE)
CONTRACT_ERROR = "CONTRACT_ERROR"

# A finding's severity: a failed hard gate blocks, a failed soft gate asks for review, and an
# informational note is never a gate and never a reason.
BLOCKING = "block"
REVIEWING = "review"
INFORMATIONAL = "info"
SEVERITIES = (BLOCKING, REVIEWING, INFORMATIONAL)
# What every reason, report and docs table calls a gate of each severity.
HARDNESS = {BLOCKING: "hard", REVIEWING: "soft"}

# Findings that come from the package itself rather than from a gate (see
# ``evaluation/evidence.py``): a check the cases file left nothing to run on, trials a log
# lacked that the import recorded as unknown, a gate whose metric was not measured.
CONTAMINATION_NOT_RUN = "contamination_check_not_run"
RECORDED_UNKNOWN = "missing_trials_recorded_unknown"
# Results v6 and spec v6 (evaluation/validity.py): trials the harness says the infrastructure
# lost, and each system's score above a spec's do-nothing floor.
TRIALS_LOST_TO_INFRASTRUCTURE = "trials_lost_to_infrastructure"
SCORE_ABOVE_FLOOR = "score_above_floor"
INFRASTRUCTURE_NOT_MEASURED = "infrastructure_share_not_measured"
# Informational findings that say a check did not run (a JUnit report marks them skipped).
NOT_RUN_FINDINGS = (CONTAMINATION_NOT_RUN,)

# What the import does with a (sample, epoch) or (task, trial) its log lacks: a contract
# error (``import.incomplete_run``), or a record of status ``unknown`` (``--missing-as``).
MISSING_AS = (ERROR, UNKNOWN)

# A release manifest's tiers (see docs/release.md): a critical benchmark's BLOCK or
# INCOMPARABLE stops the release, a supporting benchmark's failure asks for review, an info
# benchmark is reported only.
CRITICAL_TIER = "critical"
SUPPORTING_TIER = "supporting"
INFO_TIER = "info"
TIERS = (CRITICAL_TIER, SUPPORTING_TIER, INFO_TIER)
# The two one-sided hypotheses a release tests on each comparable benchmark: the candidate is
# worse than the baseline (a regression), or better (an improvement).
REGRESSION = "regression"
IMPROVEMENT = "improvement"
DIRECTIONS = (REGRESSION, IMPROVEMENT)
