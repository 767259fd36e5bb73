"""Tools for the people who work on proagents-bench, not part of the gate: a generator of
valid synthetic packages of any size (``synthetic``) and the benchmark command's runs
(``bench``)."""
