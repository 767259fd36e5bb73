"""The decision document: the last stage of the pipeline. ``document`` builds it from the
evaluation's exact values (they become JSON numbers only here, as the nearest double) and
writes its bytes; ``trialrows`` keeps the per-trial evidence as the graded records until then.
``nodecision`` is what a run that ends without a decision says instead (the command line
makes it, every report draws it).
"""
