"""The harness version, in one place (the package, the output document and pyproject)."""

VERSION = "0.2.0"
