"""The reports beside the JSON document, for people and for CI: HTML (``html``, with inline
SVG charts from ``charts``), Markdown (``markdown``) and JUnit XML (``junit``), all three read
from one view of the evaluation (``view``, its values in ``words``); ``registry`` names them,
each by the option that asks for it and the loader of its renderer (the command line writes
them, all or none: :mod:`proagents_bench.cli.report_files`)."""
