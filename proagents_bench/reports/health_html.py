"""The health report (``health --html``): one self-contained page in the gate report's house
style (:mod:`.html`: its stylesheet, its escaping, its tables that scroll in their own box on
a narrow window, no script, no external asset).

The banner says how many test tasks carry information (the effective size) and names the
tasks to audit first with a count per reason; then the audit table, the spread of the
tasks' pass rates, the systems, the slices and families, every task (cut, with a count of
the rest: the JSON document has them all), how each figure is measured, and the inputs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, SupportsFloat

from ..maintenance.health_document import METHODS, group_document, system_documents
from ..maintenance.health_figures import AUDIT_REASONS, HEALTH, Health, TaskHealth, describe_reason
from ..maintenance.validity import DO_NOTHING, ORACLE, validity_document
from . import charts
from .html import render_no_decision as render_no_decision  # the no-result page: the gate's
from .html_parts import (breakable_digest, breakable_id, escaped, page_head, scrolling_chart,
                         scrolling_table)
from .words import counted, named, show

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

MAX_AUDIT_ROWS = 200
MAX_TASK_ROWS = 500
MAX_GROUP_ROWS = 100
MAX_SYSTEM_COLUMNS = 12  # per-system pass rates shown in the task table
PASS_RATE_BINS = 20
HEALTH_STYLE = """
.HEALTH { background: var(--note); }
.tag { font-size: .75rem; font-weight: 700; padding: 0 5px; border-radius: 3px;
  color: #fff; margin: 0 4px 2px 0; display: inline-block; white-space: nowrap; }
.tag.never_passed, .tag.negative_discrimination { background: var(--block); }
.tag.unknown_trials, .tag.flaky { background: var(--review); }
.tag.saturated, .tag.latency_outlier, .tag.cost_outlier { background: var(--none); }
.banner .primary .count { font-weight: 800; }
dl.methods dt { font-weight: 700; margin-top: 6px; } dl.methods dd { margin-left: 1.2em; }
table.systems td:nth-child(2) { min-width: 16em; }
@media (max-width: 600px) {
  table.audit, table.audit tbody, table.audit tr, table.audit td { display: block; }
  table.audit thead { display: none; }
  table.audit tr { border: 1px solid #d0d7de; margin: 0 0 6px; }
  table.audit td { border: 0; padding: 2px 8px; text-align: left; }
  table.audit td[data-label]::before { content: attr(data-label) ": "; color: #57606a;
    font-size: .85em; }
}
"""


def _page_head(title: str) -> str:
    return page_head(title).replace("</style>", HEALTH_STYLE + "</style>", 1)


def _tags(task: TaskHealth) -> str:
    return "".join('<span class="tag %s">%s</span>' % (reason, reason.replace("_", " "))
                   for reason in task.reasons)


def render(health: Health) -> bytes:
    """The page's bytes (UTF-8) for a :class:`~proagents_bench.maintenance.health.Health`."""
    cases = health.cases
    audit = health.audit()
    effective = health.effective_size
    size = ("%d of %d test tasks" % (effective, len(health.tasks)) if effective is not None
            else "not estimable (%s)" % health.analysis.reason)
    groups = []
    for reason in AUDIT_REASONS:
        ids = [task.case_id for task in audit if reason in task.reasons]
        if ids:
            groups.append('<li><span class="count">%d</span> %s: %s</li>' % (
                len(ids), escaped(reason.replace("_", " ")), escaped(named(ids), 2000)))
    parts = [
        _page_head("HEALTH: %s %s, dataset %s" % (escaped(cases["benchmark_id"], 80),
                                                  escaped(cases["benchmark_version"], 40),
                                                  escaped(cases["dataset_version"], 80))),
        '<header class="banner %s" id="health">\n<p class="action">%s</p>\n'
        '<p class="meaning">Effective size: %s carry information about which system is '
        'better (%d systems, %d trials per task).</p>\n<ul class="primary">\n%s\n</ul>\n'
        '</header>\n' % (HEALTH, HEALTH, escaped(size, 400), len(health.systems),
                         health.trials_per_task,
                         "\n".join(groups) or "<li>no task to audit</li>"),
        _facts(health),
        _audit(health, audit),
        _spread(health),
        _systems(health),
        _validity(health),
        _groups("slices", "By slice", health.by_slice, health),
        _groups("families", "By family", health.by_family, health),
        _tasks(health),
        _methods(),
        _inputs(health),
        "</body>\n</html>\n",
    ]
    return "".join(parts).encode("utf-8")


def _facts(health: Health) -> str:
    cases = health.cases
    rows = [("Benchmark", breakable_id(cases["benchmark_id"])),
            ("Version", breakable_id(cases["benchmark_version"])),
            ("Dataset", breakable_id(cases["dataset_version"])),
            ("Test tasks", show(len(health.tasks))),
            ("Systems", show(len(health.systems))),
            ("Packages", show(len(health.packages)))]
    body = "\n".join('<tr><th scope="row">%s</th><td>%s</td></tr>' % (escaped(name), value)
                     for name, value in rows)
    return '<section id="facts">\n%s\n</section>\n' % scrolling_table(
        "facts", "<tbody>\n%s\n</tbody>" % body)


def _discrimination(task: TaskHealth) -> str:
    if task.discrimination is None:
        return '<span class="note" title="%s">n/a</span>' % escaped(task.discrimination_note)
    return escaped(show(float(task.discrimination.rounded())))


def _audit(health: Health, audit: List[TaskHealth]) -> str:
    if not audit:
        return ('<section id="audit">\n<h2>Tasks to audit first</h2>\n<p>None: no task was '
                'never passed, saturated, flaky in most systems, discriminating the wrong '
                'way, unknown in a trial or an outlier.</p>\n</section>\n')
    shown, rest = counted(audit, MAX_AUDIT_ROWS)
    count = len(health.systems)
    lines = ['<thead><tr><th>#</th><th>Task</th><th>Why</th><th>Pass rate</th>'
             '<th>Flaky in</th><th>Unknown</th><th>Discrimination</th></tr></thead>\n<tbody>']
    for number, task in enumerate(shown, 1):
        why = "<br>".join(escaped(describe_reason(task, reason, count), 600)
                          for reason in task.reasons)
        lines.append('<tr><td class="num">%d</td><td><span class="id">%s</span></td>'
                     '<td>%s<br>%s</td><td class="num" data-label="Pass rate">%s</td>'
                     '<td class="num" data-label="Flaky in">%d of %d systems</td>'
                     '<td class="num" data-label="Unknown">%s</td>'
                     '<td class="num" data-label="Discrimination">%s</td></tr>' % (
                         number, breakable_id(task.case_id, 120), _tags(task), why,
                         escaped(show(float(task.pass_rate))), task.flaky_systems, count,
                         escaped(show(float(task.unknown_share))), _discrimination(task)))
    lines.append("</tbody>")
    cut = ('<p class="cut">%d more tasks to audit not shown (the JSON document lists them '
           'all).</p>\n' % rest) if rest else ""
    return ('<section id="audit">\n<h2>Tasks to audit first (%d)</h2>\n<p class="note">In '
            'this order: never passed, a negative discrimination, unknown trials, flaky in '
            'most systems, saturated, a latency or cost outlier; then by how many reasons, '
            'then in the cases file\'s order.</p>\n%s\n%s</section>\n' % (
                len(audit), scrolling_table("audit", "\n".join(lines)), cut))


def _spread(health: Health) -> str:
    rates = [float(task.pass_rate) for task in health.tasks]
    bars, _above = charts.even_bins(rates, 0.0, 1.0, PASS_RATE_BINS)
    title = "Pass rate of the %d test tasks (mean over %d systems)" % (len(rates),
                                                                       len(health.systems))
    chart = scrolling_chart(lambda width: charts.histogram(
        title, bars, (0.0, 1.0), x_label="task pass rate", unit=" tasks", width=width))
    return ('<section id="spread">\n<h2>How hard the tasks are</h2>\n<p class="note">%s. A bar '
            'at 0 holds the tasks no system passes, one at 1 the saturated ones; the tasks '
            'between are where systems differ.</p>\n%s\n</section>\n' % (escaped(title), chart))


def _systems(health: Health) -> str:
    systems = system_documents(health)
    lines = ['<thead><tr><th>System</th><th>Runs</th><th>Trials per task</th>'
             '<th>Mean pass rate</th><th>Task success rate</th><th>Flaky tasks</th></tr>'
             '</thead>\n<tbody>']
    for system in systems:
        lines.append('<tr><th scope="row"><span class="id">%s</span></th>'
                     '<td data-label="runs">%s</td>'
                     '<td class="num" data-label="trials per task">%d</td>'
                     '<td class="num" data-label="mean pass rate">%s</td>'
                     '<td class="num" data-label="task success rate">%s</td>'
                     '<td class="num" data-label="flaky tasks">%d</td>'
                     '</tr>' % (breakable_id(system["name"], 120), "<br>".join(
                         '<span class="id">%s</span>' % breakable_id(run, 200)
                         for run in system["runs"]),
                         system["trials_per_task"], escaped(show(system["mean_pass_rate"])),
                         escaped(show(system["task_success_rate"])), system["flaky_tasks"]))
    lines.append("</tbody>")
    return ('<section id="systems">\n<h2>Systems (%d)</h2>\n<p class="note">A system\'s runs '
            'are pooled; the task success rate uses the spec\'s task gate.</p>\n%s\n'
            '</section>\n' % (len(systems), scrolling_table("stack systems",
                                                            "\n".join(lines))))


def _validity(health: Health) -> str:
    """The validity audit: the score range between the reference runs, each system above
    the floor, and each finding with its tasks (why, on hover)."""
    validity = health.validity
    if validity is None:
        return ""
    document = validity_document(validity)
    ends = []
    for word, kind in (("floor (do-nothing agent)", DO_NOTHING), ("ceiling (oracle)", ORACLE)):
        found = document["references"][kind]
        ends.append("%s: %s" % (word, "not given" if found is None else "%s, %s" % (
            show(found["task_success_rate"]), breakable_id(found["name"], 120))))
    rows = ['<thead><tr><th>System</th><th>Task success rate</th><th>Above the floor</th>'
            '<th>Share of the range</th></tr></thead>\n<tbody>']
    rows += ['<tr><td><span class="id">%s</span></td>%s</tr>' % (
        breakable_id(system["name"], 120), "".join(
            '<td class="num">%s</td>' % escaped(show(system[key])) for key in (
                "task_success_rate", "above_floor", "share_of_range")))
        for system in document["systems"]]
    rows.append("</tbody>")
    findings = ['<thead><tr><th>Finding</th><th>Tasks</th><th>Meaning</th></tr></thead>\n'
                '<tbody>']
    for finding in document["findings"]:
        shown, rest = counted(finding["tasks"], MAX_AUDIT_ROWS)
        findings.append('<tr><td><span class="id">%s</span></td><td>%s%s</td><td>%s</td>'
                        '</tr>' % (breakable_id(finding["code"], 80), ", ".join(
                            '<span class="id" title="%s">%s</span>' % (
                                escaped(task["why"], 400), breakable_id(task["case_id"], 120))
                            for task in shown), " and %d more" % rest if rest else "",
                            escaped(finding["meaning"])))
    findings.append("</tbody>")
    return ('<section id="validity">\n<h2>Is the run evidence?</h2>\n<p class="note">%s. A '
            'task the do-nothing agent passes measures nothing; one the oracle fails is broken '
            'or unsolvable.</p>\n%s\n%s</section>\n' % (
                "; ".join(ends), scrolling_table("validity", "\n".join(rows)),
                scrolling_table("validity-findings", "\n".join(findings))
                if document["findings"] else "<p>No finding.</p>\n"))


def _groups(anchor: str, title: str, groups: JSONObject, health: Health) -> str:
    names = sorted(groups)
    shown, rest = counted(names, MAX_GROUP_ROWS)
    lines = ['<thead><tr><th>%s</th>%s</tr></thead>\n<tbody>' % (
        escaped(title[3:].capitalize()), "".join("<th>%s</th>" % escaped(heading)
                                                 for heading, _key in GROUP_COLUMNS))]
    for name in shown:
        item = group_document(groups[name], health)
        lines.append('<tr><th scope="row"><span class="id">%s</span></th>%s</tr>' % (
            breakable_id(name, 120), "".join(
                '<td class="num" data-label="%s">%s</td>' % (escaped(heading.lower()),
                                                             escaped(show(item[key])))
                for heading, key in GROUP_COLUMNS)))
    lines.append("</tbody>")
    cut = '<p class="cut">%d more not shown.</p>\n' % rest if rest else ""
    return '<section id="%s">\n<h2>%s</h2>\n%s\n%s</section>\n' % (
        anchor, escaped(title), scrolling_table("stack " + anchor, "\n".join(lines)), cut)


# A slice's or family's columns: their headings and the group document's keys.
GROUP_COLUMNS = (("Tasks", "task_count"), ("Pass rate", "pass_rate"),
                 ("Never passed", "never_passed"), ("Saturated", "saturated"),
                 ("Flaky", "flaky_tasks"), ("Unknown share", "unknown_share"),
                 ("Effective size", "effective_size"), ("To audit", "audit_count"))


def _tasks(health: Health) -> str:
    shown, rest = counted(health.tasks, MAX_TASK_ROWS)
    systems = health.systems[:MAX_SYSTEM_COLUMNS]
    head = "".join('<th title="%s">%s</th>' % (escaped(system.name), breakable_id(system.name, 24))
                   for system in systems)
    lines = ['<thead><tr><th>Task</th><th>Slice</th><th>Pass rate</th>%s<th>Flaky in</th>'
             '<th>Unknown</th><th>Discrimination</th><th>Mean latency (ms)</th>'
             '<th>Mean cost</th><th>Audit</th></tr></thead>\n<tbody>' % head]
    for task in shown:
        rates = "".join('<td class="num">%s</td>' % escaped(show(float(rate)))
                        for rate in task.pass_rates[:MAX_SYSTEM_COLUMNS])
        lines.append('<tr><td><span class="id">%s</span>%s</td><td>%s</td>'
                     '<td class="num">%s</td>%s<td class="num">%d</td><td class="num">%s</td>'
                     '<td class="num">%s</td><td class="num">%s</td><td class="num">%s</td>'
                     '<td>%s</td></tr>' % (
                         breakable_id(task.case_id, 120), '<span class="badge">CRITICAL</span>'
                         if task.case["critical"] else "", breakable_id(task.case["slice"], 60),
                         escaped(show(float(task.pass_rate))), rates, task.flaky_systems,
                         escaped(show(float(task.unknown_share))), _discrimination(task),
                         escaped(show(_maybe(task.mean_latency_ms))),
                         escaped(show(_maybe(task.mean_cost_units))), _tags(task)))
    lines.append("</tbody>")
    notes = []
    if len(health.systems) > MAX_SYSTEM_COLUMNS:
        notes.append("the first %d of %d systems' pass rates are shown" % (
            MAX_SYSTEM_COLUMNS, len(health.systems)))
    if rest:
        notes.append("%d more tasks not shown" % rest)
    cut = ('<p class="cut">%s; the JSON document has every task and system.</p>\n' %
           escaped("; ".join(notes)).capitalize()) if notes else ""
    return ('<section id="tasks">\n<h2>Every test task</h2>\n<p class="note">In the cases '
            'file\'s order; a pass rate per system, then their mean.</p>\n%s\n%s</section>\n'
            % (scrolling_table("grid", "\n".join(lines)), cut))


def _maybe(value: Optional[SupportsFloat]) -> Optional[float]:
    return None if value is None else float(value)


def _methods() -> str:
    items = "\n".join("<dt>%s</dt><dd>%s</dd>" % (escaped(name.replace("_", " ")),
                                                  escaped(text, 2000))
                      for name, text in sorted(METHODS.items()))
    return ('<section id="methods">\n<h2>How each figure is measured</h2>\n<dl class="methods">'
            '\n%s\n</dl>\n</section>\n' % items)


def _inputs(health: Health) -> str:
    body = ['<thead><tr><th>Input</th><th>File</th><th>Bytes</th><th>SHA-256</th>'
            '<th>Systems</th></tr></thead>\n<tbody>']
    rows = [("spec", health.inputs["spec"], ""), ("cases", health.inputs["cases"], "")]
    rows += [("results", package, "; ".join("%s %s: %s" % (
        system["role"], system["name"], system["counted"]) for system in package["systems"]))
        for package in health.packages]
    for kind, item, systems in rows:
        body.append('<tr><th scope="row">%s</th><td class="id">%s</td><td class="num">%s</td>'
                    '<td class="id">%s</td><td>%s</td></tr>' % (
                        escaped(kind), breakable_id(item["file"]), escaped(show(item["bytes"])),
                        breakable_digest("sha256:" + item["sha256"]), escaped(systems, 2000)))
    body.append("</tbody>")
    excluded = "".join("<li>%s %s: %s</li>" % (
        breakable_id(item["file"]), breakable_id(item["system"]),
        escaped("; ".join(item["protocol_mismatches"]), 2000)) for item in health.excluded)
    return ('<section id="evidence">\n<h2>Inputs</h2>\n%s\n%s</section>\n' % (
        scrolling_table("inputs", "\n".join(body)),
        "<p>Left out (another protocol than the spec's):</p>\n<ul>%s</ul>\n" % excluded
        if excluded else ""))
