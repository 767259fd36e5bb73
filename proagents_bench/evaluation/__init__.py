"""The middle of the pipeline, one stage a module: grade every trial (``grading``), aggregate
per system (``metrics``), compare baseline and candidate (``comparison``), and decide
(``decision``)."""
