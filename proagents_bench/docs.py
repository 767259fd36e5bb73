"""The README's contract field tables, written from the declarative contract.

``python -B -m proagents_bench.docs`` prints the tables; ``--write README.md`` replaces the
part of the README between the ``BEGIN``/``END`` markers below. A test fails when the README
and the contract disagree, so the tables cannot drift from the validator.
"""

import sys

from .contract import CROSS_FILE_RULES, FILE_KINDS, object_shapes
from .shapes import SCHEMA_KEY

BEGIN = "<!-- BEGIN generated contract tables: python -B -m proagents_bench.docs --write " \
        "README.md -->"
END = "<!-- END generated contract tables -->"


def tables():
    """Markdown: one table per object of every file kind and version, then the rules."""
    out = []
    seen = set()
    for kind, versions in FILE_KINDS.items():
        for version, root in sorted(versions.items()):
            out.append("#### %s file: `schema_version` = `%s`\n" % (kind.capitalize(), version))
            for shape in object_shapes(root, seen):
                out.append(_table(shape))
    out.append("#### Rules across objects and files\n")
    out.append("| code | rule |\n|---|---|")
    for shape_rules in _object_rules():
        out.append(shape_rules)
    for code, text in CROSS_FILE_RULES:
        out.append("| `%s` | %s |" % (code, text))
    out.append("")
    return "\n".join(out)


def _object_rules():
    seen = set()
    for versions in FILE_KINDS.values():
        for root in versions.values():
            for shape in object_shapes(root, set()):
                for rule in shape.rules:
                    if rule.code not in seen:
                        seen.add(rule.code)
                        yield "| `%s` | %s |" % (rule.code, rule.text)


def _table(shape):
    lines = ["%s object%s:\n" % (shape.title, " (the file's root)" if shape.root else ""),
             "| key | type and rule | meaning |", "|---|---|---|"]
    for field in shape.fields:
        lines.append("| `%s` | %s | %s |" % (field.key, field.shape.describe(), field.meaning))
    if shape.root:
        lines.append("| `%s` | string, optional | a JSON Schema reference for editors; the "
                     "only extra key accepted |" % SCHEMA_KEY)
    lines.append("")
    return "\n".join(lines)


def replace_between_markers(text, generated):
    start = text.index(BEGIN) + len(BEGIN)
    end = text.index(END)
    return text[:start] + "\n" + generated + text[end:]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    generated = tables()
    if argv[:1] == ["--write"] and len(argv) == 2:
        with open(argv[1], "rb") as handle:
            text = handle.read().decode("utf-8")
        with open(argv[1], "wb") as handle:
            handle.write(replace_between_markers(text, generated).encode("utf-8"))
        return 0
    if argv:
        sys.stderr.write("usage: python -B -m proagents_bench.docs [--write README.md]\n")
        return 2
    sys.stdout.write(generated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
