"""The release's JUnit XML report (GitLab's ``artifacts:reports:junit``, Jenkins' ``junit``): the
release's own suite first, then every benchmark's suites exactly as its gate alone writes them,
each suite named after its benchmark (``NAME: tasks``, ``NAME: gates``, ...). It validates
against the Jenkins xUnit plugin's ``junit-10.xsd``, as the gate's does.

Suite ``release`` holds two test cases per benchmark, each failed where the release judges it:
``NAME`` (classname ``release.TIER``), failed when its decision changes the release (a
critical benchmark not PASS, a supporting one not PASS), its failure the release's reason; and
``NAME: no regression beyond chance`` (classname ``release.multiplicity``), failed when the
benchmark shows a regression beyond chance that asks for review. Suite ``release notes``
holds one passing case per note of the release (never a failure). An info benchmark's own
suites still show its failures as its gate judged them; the release's suite says they change
nothing.

``time`` is the release's own, as the gate's is its own: the wall seconds of the release's run
on the root and the release's suite; each benchmark's suites keep the time of its own gate.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING, Tuple

from ..contract.vocabulary import INFO_TIER
from .junit import Case, _element, _failure, _suite, run_time
from .junit import render_no_decision as render_no_decision  # the gate's no-decision report
from .release_view import RESULT_WORDS, hypothesis_text, rows
from .words import shorten

if TYPE_CHECKING:  # for annotations only
    from ..release_outcome import Release


MAX_NOTE_NAME = 200

# A gate's JUnit report: the root's opening tag, then its suites one per line start, then the
# root's closing tag. Every text is escaped (``<`` is ``&lt;``), so a line that starts with
# ``<testsuite name="`` opens a suite.
_ROOT = re.compile(r'<testsuites [^\n]*? tests="(\d+)" failures="(\d+)" errors="(\d+)" '
                   r'time="([0-9.]+)">\n')
_SUITE_NAME = re.compile(r'^<testsuite name="', re.M)
_ROOT_END = "\n</testsuites>\n"


def section_suites(report: bytes, name: str) -> Tuple[int, int, int, Decimal, str]:
    """(tests, failures, errors, seconds as a Decimal, the suites' XML with each suite named
    ``NAME: SUITE``) of a gate's JUnit report."""
    text = report.decode("utf-8")
    root = _ROOT.search(text)
    if root is None:  # the gate's reports always open so
        raise ValueError("not a gate's JUnit report: its root has no counts")
    suites = text[root.end():text.rindex(_ROOT_END)]
    return (int(root.group(1)), int(root.group(2)), int(root.group(3)),
            Decimal(root.group(4)), _SUITE_NAME.sub('<testsuite name="%s: ' % name, suites))



def render(release: "Release") -> bytes:
    """The report's bytes (UTF-8 XML) for a :class:`~proagents_bench.release_outcome.Release`."""
    decision = release.decision
    found = rows(release)
    cases = []
    for row, tier_reason, regression in zip(found, decision.tier_reasons,
                                            decision.regression_reasons):
        failure = None
        if tier_reason is not None:
            failure = _failure(tier_reason, row.effect, [tier_reason])
        cases.append(Case("release." + row.tier, row.name, "0.000", failure,
                          output="%s: its decision %s makes the release %s%s" % (
                              row.tier, row.action, row.effect,
                              " (reported only)" if row.tier == INFO_TIER else "")))
        cases.append(Case("release.multiplicity", "%s: no regression beyond chance" % row.name,
                          "0.000", _failure(regression, "regression", [regression])
                          if regression is not None else None,
                          output="regression %s; improvement %s; the release reports: %s; "
                                 "alone it would report: %s" % (
                                     hypothesis_text(row.regression),
                                     hypothesis_text(row.improvement),
                                     RESULT_WORDS[row.result],
                                     RESULT_WORDS[row.result_alone])))
    properties = (("action", decision.action), ("primary_reason", decision.reasons[0]),
                  ("release_id", release.manifest.value["release_id"]),
                  ("evidence_fingerprint", release.fingerprint),
                  ("family_wise_level", str(decision.level)))
    seconds = run_time(release)
    suites = [_suite("release", cases, properties, seconds)]
    if decision.notes:
        suites.append(_suite("release notes", [
            Case("release.notes", shorten("note %d: %s" % (index, note), MAX_NOTE_NAME),
                 "0.000", output=note) for index, note in enumerate(decision.notes, 1)]))
    tests = sum(suite[0] for suite in suites)
    failures = sum(suite[1] for suite in suites)
    errors = 0
    texts = [suite[2] for suite in suites]
    for row in found:
        more_tests, more_failures, more_errors, _seconds, xml = section_suites(
            row.sections["junit"], row.name)
        tests += more_tests
        failures += more_failures
        errors += more_errors
        texts.append(xml)
    # junit-10.xsd allows only name, time, tests, failures and errors on the root.
    root = _element("testsuites", (
        ("name", "proagents-bench release %s: %s" % (release.manifest.value["release_id"],
                                                     decision.action)),
        ("tests", str(tests)), ("failures", str(failures)), ("errors", str(errors)),
        ("time", seconds)), texts)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + root + "\n").encode("utf-8")
