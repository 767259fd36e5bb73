"""The contract, declared once: what the spec, cases and results files and the output
documents look like (shapes), the gates, and the rules that span objects and files. The
validator, the JSON Schemas, the docs' tables and the reports are all derived from it."""
