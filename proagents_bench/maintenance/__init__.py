"""Maintaining a benchmark across the many runs it accumulates: the health of its test tasks
over any number of results packages (``health``), and what a new version of its cases or spec
changes for the results on record (``versions``: the ``diff`` command). Above the pipeline's
stages, which they reuse (load, validate, grade), and below the reports and the commands."""
