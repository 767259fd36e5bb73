"""The tests of the development package (``devtools/``): its commands, its benchmarks run
small, its generators and the exact enumerations behind the docs' tables."""
