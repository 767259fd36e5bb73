"""Sequential designs for the tests: a run whose every trial's outcome is chosen (by pool
position), the spec v5 of a design on it, each look cut from it, and the gate run on a look
with or without a ledger, in this process."""

import json
import os

from devtools.sequential_packages import look_package, make_design_spec, make_run, test_ids
from proagents_bench import ledgered, pipeline
from proagents_bench.contract.sequential import pool_order

TEN_LOOKS = [(10 * k, 3) for k in range(1, 11)]


def controlled_run(task_count, trials, outcome, seed=5):
    """(cases, run): every test task with ``trials`` trials of each system, trial t of the
    task at pool position p (0-based, in the order of the synthetic designs' seed) passing
    exactly when ``outcome(role, p, t)``; no critical task, no tool or side effect rule."""
    from devtools.sequential_packages import ORDER_SEED
    cases, run = make_run(task_count, trials, 0.5, 0.5, seed=seed)
    by_id = {}
    for case in cases["cases"]:
        case.update(critical=False, allowed_tools=[], forbidden_side_effects=[])
        by_id[case["id"]] = case
    position = {case_id: index for index, case_id in enumerate(
        pool_order(test_ids(cases), ORDER_SEED))}
    for system in run["systems"]:
        for record in system["records"]:
            case = by_id[record["case_id"]]
            clean = outcome(system["role"], position[record["case_id"]], record["trial_id"])
            record.update(status="success" if clean else "error",
                          final_state=case["expected_final_state"] if clean else None,
                          side_effects=[], tools_used=[], latency_ms=100, cost_units=0.01)
    return cases, run


def inputs(spec, cases, results):
    return [pipeline.InputFile(kind, None, kind + ".json",
                               data=json.dumps(value).encode("utf-8"))
            for kind, value in (("spec", spec), ("cases", cases), ("results", results))]


class Design:
    """A design on a controlled run: ``judge(look)`` runs the gate on that look (1-based),
    with the ledger in ``folder`` when ``ledger`` is true, writing it as the command line
    would (only the bytes the evaluation holds)."""

    def __init__(self, folder, cases, run, looks=TEN_LOOKS, **design):
        self.folder = folder
        self.cases = cases
        self.run = run
        self.spec = make_design_spec(cases, looks, **design)
        self.ledger_path = os.path.join(folder, "ledger.json")

    def package(self, look):
        return look_package(self.spec, self.run, look)

    def judge(self, look=None, package=None, spec=None, ledger=True, write=True, cases=None):
        package = package if package is not None else self.package(look)
        files = inputs(spec if spec is not None else self.spec,
                       cases if cases is not None else self.cases, package)
        if not ledger:
            return pipeline.evaluate(files)
        evaluation = ledgered.evaluate(files, pipeline.InputFile("ledger", self.ledger_path,
                                                                 "ledger.json"))
        if write and evaluation.ledger is not None:
            with open(self.ledger_path, "wb") as handle:
                handle.write(evaluation.ledger)
        return evaluation

    def ledger(self):
        with open(self.ledger_path, "rb") as handle:
            return json.loads(handle.read().decode("ascii"))

    def write_ledger(self, value):
        with open(self.ledger_path, "wb") as handle:
            handle.write(json.dumps(value, sort_keys=True, indent=2).encode("ascii"))


def strong(role, position, trial):
    """The candidate passes everything; the baseline the tasks at even positions: every
    odd task a candidate's win."""
    return role == "candidate" or position % 2 == 0


def weak(role, position, trial):
    """The mirror image: every odd task a baseline's win."""
    return role == "baseline" or position % 2 == 0


def even(role, position, trial):
    """Odd tasks discordant, their winners alternating (candidate first)."""
    if position % 2 == 0:
        return True
    return (role == "candidate") == ((position // 2) % 2 == 0)
