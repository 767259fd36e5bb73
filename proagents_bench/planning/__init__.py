"""How many tasks and trials to run: the planner behind ``run_benchmark.py plan``.

It reads a results package the way the gate does (:func:`proagents_bench.pipeline.evaluate`:
loaded, validated, graded), measures what a plan needs, and answers for the **trial-level
paired difference** (candidate minus baseline per-task trial success rate, the difference
Miller's K-samples formula is about, gated by spec v4's ``min_trial_delta_ci_low``):

- **measured**: each system's success rate and within-task variance (the mean of the unbiased
  per-task x (K - x) / (K (K - 1))), the between-task variance of the true per-task difference
  (the sample variance of the observed differences less the within-task part, Miller 2024,
  "Adding Error Bars to Evals", arXiv:2411.00640, sections 3 and 4.2), and each system's mean
  cost per trial;
- **now**: the benchmark as it is (its tasks and trials): Miller's power and minimum detectable
  effect (section 5), and the gate's own power, false-pass rate and smallest detectable effect;
- **recommended**: the tasks x trials that reach the power at the least cost, within the tasks
  available, the trials the protocol allows and the budget; when none does, the most
  powerful design within them and what more tasks would buy (``with_more_tasks``).

**The effect.** A trial-level effect delta is E[p'] - E[p]: the candidate's chance that a
trial passes, less the baseline's, averaged over the benchmark's tasks (p and p' the two
systems' chances on one task). The gate's trial-level mean difference estimates it.

The package is measured as the gate reads it (:mod:`.measured`); the gate's power at a
design comes from a model of the next run (:mod:`.model`); the planner searches the designs
and writes the plan (:mod:`.planner`).
"""
