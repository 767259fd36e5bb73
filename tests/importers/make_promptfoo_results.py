"""Write the promptfoo fixtures with promptfoo itself: ``promptfoo eval`` of the configs in
``promptfoo/`` (``baseline.yaml``, ``candidate.yaml``), offline, with the local JavaScript
provider ``promptfoo/order_agent.js`` (a scripted order-support agent: no model, no
network), each test repeated 3 times (``evaluateOptions.repeat``), one at a time.

Not part of the suite and not a dependency of the product. Run it by hand where promptfoo is
installed from the npm registry (``npm install promptfoo`` in a folder outside the project;
promptfoo 0.123.1 needs Node.js 22.22 or later)::

    python make_promptfoo_results.py PATH_TO_PROMPTFOO [OUTPUT_FOLDER]

It writes ``promptfoo_baseline.json`` (its provider fails on the second call of
``test-status``: a provider error; it answers ``test-cancel`` wrongly on the third: a failed
assertion) and ``promptfoo_candidate.json`` (it answers the critical ``test-refund``
wrongly on the second call), each the file ``promptfoo eval --output results.json`` writes
(results format version 3), unchanged; and ``promptfoo_defaults_baseline.json`` and
``promptfoo_defaults_candidate.json``, promptfoo's default output: the same configs without
their ``evaluateOptions`` (so no ``timeoutMs``), each test repeated by the command line
(``--repeat 3``, one call at a time), as a team runs a config of its own. The fixtures of the
suite were written by promptfoo 0.123.1, the default-output ones by 0.121.20 (the last
release that runs on Node.js 20).
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "promptfoo")
SYSTEMS = ("baseline", "candidate")
# The runs written: (the file's prefix, what to drop from each config, the command line's own
# options). promptfoo's defaults: no evaluateOptions at all, the repetitions given to eval.
RUNS = (("promptfoo_", None, []),
        ("promptfoo_defaults_", "evaluateOptions:", ["--repeat", "3", "--max-concurrency", "1"]))


def without_block(text, key):
    """A YAML config without its top-level block ``key`` (and every line indented under it)."""
    kept, dropping = [], False
    for line in text.splitlines(True):
        if line.startswith(key):
            dropping = True
        elif dropping and line.strip() and not line.startswith((" ", "\t")):
            dropping = False
        if not dropping:
            kept.append(line)
    return "".join(kept)


def main(promptfoo, output):
    environment = dict(os.environ, PROMPTFOO_DISABLE_TELEMETRY="1",
                       PROMPTFOO_DISABLE_UPDATE="1", PROMPTFOO_DISABLE_SHARING="1")
    with tempfile.TemporaryDirectory() as scratch:
        environment["PROMPTFOO_CONFIG_DIR"] = os.path.join(scratch, "config")
        for name in os.listdir(CONFIGS):
            shutil.copy(os.path.join(CONFIGS, name), scratch)
        for prefix, dropped, options in RUNS:
            for system in SYSTEMS:
                with open(os.path.join(CONFIGS, system + ".yaml"), encoding="utf-8") as handle:
                    config = handle.read()
                with open(os.path.join(scratch, system + ".yaml"), "w",
                          encoding="utf-8") as handle:
                    handle.write(without_block(config, dropped) if dropped else config)
                # promptfoo exits 100 when a test failed, as these do.
                status = subprocess.run([promptfoo, "eval", "-c", system + ".yaml",
                                         "--no-cache", "--no-table", "--output",
                                         "results.json"] + options, cwd=scratch,
                                        env=environment).returncode
                if status not in (0, 100):
                    raise SystemExit("promptfoo eval failed (exit %d)" % status)
                shutil.copy(os.path.join(scratch, "results.json"),
                            os.path.join(output, "%s%s.json" % (prefix, system)))


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]),
         sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "fixtures"))
