"""The contract's fixed words, each declared once: schema versions, splits, statuses,
roles, bootstrap units, the grading checks, the decision's actions and findings' severities.
"""

from __future__ import annotations

SPEC_V1 = "agent-benchmark-spec-v1"
SPEC_V2 = "agent-benchmark-spec-v2"
SPEC_V3 = "agent-benchmark-spec-v3"
CASES_V1 = "agent-benchmark-cases-v1"
RESULTS_V1 = "agent-benchmark-results-v1"
RESULTS_V2 = "agent-benchmark-results-v2"

# A SHA-256 digest as text: 64 lowercase hex digits.
SHA256_HEX = "^[0-9a-f]{64}$"

# The kinds of harness log a results v2 system may come from (its provenance).
LOG_FORMATS = ("inspect-eval", "inspect-json", "tau2-results-json", "tau2-results-dir")

SPLITS = ("train", "development", "test")
STATUSES = ("success", "timeout", "error", "unknown")
ROLES = ("baseline", "candidate")
BOOTSTRAP_UNITS = ("task", "family")
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
