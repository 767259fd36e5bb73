"""Write the Inspect AI fixture logs of the import tests, with Inspect AI itself.

Not part of the suite and not a dependency of the product: run it by hand in a virtual
environment that has ``inspect-ai`` installed (``python -m pip install inspect-ai``)::

    python make_inspect_logs.py OUTPUT_FOLDER

It runs the order agent of the shipped example (``examples/benchmark_cases.json``: two
train, two development and five test tasks) as an Inspect task, three epochs, with the
``mockllm`` model and scripted tool calls, so the run is offline and its decisions are
deterministic (times, ids and token counts are whatever the run measured):

- ``baseline``: solves every task; on ``test-status`` its model fails once (epoch 3), so
  that sample carries an error;
- ``candidate``: the same, except that on the critical ``test-safety`` it calls the
  forbidden ``refund_order`` in every epoch (the gate BLOCKs on it).

Each system is written as an ``.eval`` log, and as a ``.json`` log of ``test-safety`` alone,
two epochs (``.json`` logs are not compressed, and the suite's fixtures stay small). Inspect
writes ``.eval`` entries zstd-compressed by default; the fixtures are written with deflate
(the script switches Inspect's zip compression for its own run), and one baseline log is
also written as Inspect writes it by default (``baseline-zstd.eval``), for the importer's
zstd decoder.
Tracebacks in the logs name the files of the machine that ran them: the script replaces the
interpreter's and the checkout's folders with ``<python>`` and ``<project>``.
"""

import contextlib
import json
import os
import shutil
import sys
import tempfile
import zipfile

from inspect_ai import Task, eval as inspect_eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool
from inspect_ai.util import store

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "..", "examples", "benchmark_cases.json")

# The tools each task's scripted agent calls, in order, then its final answer.
SCRIPTS = {
    "train-refund-basic": ["lookup_order", "check_refund_policy", "issue_refund"],
    "train-cancel-basic": ["lookup_order", "cancel_order"],
    "dev-status-tracking": ["lookup_order"],
    "dev-privacy-export": ["lookup_customer"],
    "test-refund": ["lookup_order", "check_refund_policy", "issue_refund"],
    "test-cancel": ["lookup_order", "cancel_order"],
    "test-status": ["lookup_order"],
    "test-safety": ["lookup_order", "check_refund_policy"],
    "test-privacy": ["lookup_customer"],
}
CANDIDATE_SCRIPTS = dict(SCRIPTS, **{"test-safety": ["lookup_order", "refund_order"]})
# The candidate refunds anyway, yet reports the refund as denied (a self-reported state).
SIDE_EFFECTING = ("issue_refund", "cancel_order", "refund_order", "share_customer_data")


def _order_tool(name):
    async def execute(order_id: str) -> str:
        """Act on an order.

        Args:
            order_id: the order's number.
        """
        if name in SIDE_EFFECTING:
            done = store().get("side_effects", [])
            store().set("side_effects", done + [name])
        return "%s(%s): ok" % (name, order_id)
    return execute


def make_tool(name):
    @tool(name=name)
    def factory():
        return _order_tool(name)
    return factory()


TOOL_NAMES = sorted({name for script in CANDIDATE_SCRIPTS.values() for name in script}
                    | {"reply_customer"})


def samples():
    with open(CASES, "rb") as handle:
        cases = json.loads(handle.read().decode("utf-8"))["cases"]
    return [Sample(id=case["id"], input="[%s] %s" % (case["id"], case["initial_state"]),
                   target=case["expected_final_state"],
                   metadata={key: case[key] for key in (
                       "split", "family_id", "slice", "critical", "task_type",
                       "allowed_tools", "forbidden_side_effects")})
            for case in cases]


def scripted_model(scripts, expected, failing):
    """A mockllm output function: the next scripted tool call, then the final answer."""
    calls = {"count": 0}

    def output(messages, tools, tool_choice, config):
        first = next(message for message in messages if message.role == "user")
        case_id = first.text.split("]")[0].lstrip("[")
        done = sum(1 for message in messages if message.role == "tool")
        script = scripts[case_id]
        if done == 0 and case_id in failing:
            calls["count"] += 1
            if calls["count"] in failing[case_id]:
                raise RuntimeError("the order service is unavailable (scripted failure)")
        if done < len(script):
            result = ModelOutput.for_tool_call(model="mockllm", tool_name=script[done],
                                               tool_arguments={"order_id": "2001"})
        else:
            result = ModelOutput.from_content(model="mockllm", content=expected[case_id])
        # Token counts given, so mockllm does not count them with a tokenizer it would
        # download; a fixed price per call, so the runs are offline and the same each time.
        result.usage = ModelUsage(input_tokens=100 + 20 * len(messages), output_tokens=20,
                                  total_tokens=120 + 20 * len(messages), total_cost=0.001)
        return result
    return output


@task(name="order_agent")
def order_agent(small=False):
    dataset = [sample for sample in samples() if sample.id == "test-safety"] if small else (
        samples())
    return Task(dataset=dataset, solver=[use_tools([make_tool(name) for name in TOOL_NAMES]),
                                         generate()],
                scorer=match(location="exact"), epochs=2 if small else 3, message_limit=8,
                time_limit=30, version=1)


def run(scripts, failing, folder, log_format):
    expected = {sample.id: sample.target for sample in samples()}
    model = get_model("mockllm/model", custom_outputs=scripted_model(scripts, expected,
                                                                     failing))
    # A .json log is not compressed: the fixture of that format is one task, two epochs.
    logs = inspect_eval(order_agent(small=log_format == "json"), model=model, log_dir=folder,
                        log_format=log_format,
                        display="none", max_samples=1, fail_on_error=False,
                        retry_on_error=0, log_images=False)
    return logs[0].location


def without_local_paths(data):
    """A traceback in a log names the files of the machine that ran it: the folders of the
    interpreter and of this checkout become ``<python>`` and ``<project>``."""
    project = os.path.dirname(os.path.dirname(HERE))
    for folder, shown in ((sys.prefix, b"<python>"), (sys.base_prefix, b"<python>"),
                          (project, b"<project>")):
        data = data.replace(folder.encode("utf-8"), shown)
    return data


def rezip_without_local_paths(source, target):
    """The .eval log with every entry passed through :func:`without_local_paths`, each
    compressed as it was (Inspect's zstd support is installed in this interpreter)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            data = without_local_paths(old.read(info))
            new.writestr(info, data, compress_type=info.compress_type)


@contextlib.contextmanager
def deflated():
    """Inspect AI's zip compression switched to deflate (level 9) for the runs inside."""
    import inspect_ai._util.zipfile as inspect_zip
    default = dict(inspect_zip.zipfile_compress_kwargs)
    inspect_zip.zipfile_compress_kwargs.update(compression=zipfile.ZIP_DEFLATED,
                                               compresslevel=9)
    try:
        yield
    finally:
        inspect_zip.zipfile_compress_kwargs.clear()
        inspect_zip.zipfile_compress_kwargs.update(default)


def main(output):
    import inspect_ai._util.zipfile as inspect_zip
    os.makedirs(output, exist_ok=True)
    work = tempfile.mkdtemp()
    try:
        default = dict(inspect_zip.zipfile_compress_kwargs)
        written = [("baseline-zstd.eval", run(SCRIPTS, {"test-status": [3]},
                                              os.path.join(work, "z"), "eval"))]
        inspect_zip.zipfile_compress_kwargs.update(compression=zipfile.ZIP_DEFLATED,
                                                   compresslevel=9)
        try:
            for role, scripts, failing in (("baseline", SCRIPTS, {"test-status": [3]}),
                                           ("candidate", CANDIDATE_SCRIPTS, {})):
                for log_format in ("eval", "json"):
                    written.append(("%s.%s" % (role, log_format), run(
                        scripts, failing, os.path.join(work, role + log_format), log_format)))
        finally:
            inspect_zip.zipfile_compress_kwargs.clear()
            inspect_zip.zipfile_compress_kwargs.update(default)
        for name, location in written:
            target = os.path.join(output, name)
            if name.endswith(".eval"):
                rezip_without_local_paths(location, target)
            else:
                with open(location, "rb") as source, open(target, "wb") as handle:
                    handle.write(without_local_paths(source.read()))
            print(name, os.path.getsize(target))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "fixtures"))
