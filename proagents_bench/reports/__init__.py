"""The reports beside the JSON document, for people and for CI: HTML (``html``, with inline
SVG charts from ``charts``), Markdown (``markdown``) and JUnit XML (``junit``), all three read
from one view of the evaluation (``view``, its values in ``words``), and written all or none
(``write``)."""
