"""Write ``proagents_bench/importers/tau2_tools.py``: the agent tools of every tau2-bench
domain with the type tau2 itself gives each (``@is_tool(ToolType.WRITE)`` and the others),
read from tau2-bench's source.

Not part of the suite: run it by hand with a tau2-bench checkout (its public repository,
sierra-research/tau2-bench) and the commit it is at::

    python make_tau2_tool_types.py TAU2_CHECKOUT COMMIT

It reads each domain's modules (``src/tau2/domains/DOMAIN/*.py``) with :mod:`ast` (nothing
of tau2 is imported or run): every method of an agent toolkit (a class deriving from
``ToolKitBase``, or a mix-in of metaclass ``ToolKitType`` such as the banking domain's
retrieval tools; not the simulated user's toolkits, ``user_tools.py`` and the classes named
``...UserTools``, whose calls are never the agent's) decorated with ``@is_tool(ToolType.X)``
is a tool of type ``x``. Methods decorated with ``@is_discoverable_tool`` (the banking
domain's) are not the agent's tools: the agent reaches them through its
``call_discoverable_agent_tool`` tool, whose type the file gives. The domain names are those
the registry (``src/tau2/registry.py``) registers with ``register_domain``: ``telecom`` and
``telecom-workflow`` share one toolkit.
"""

import ast
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "..", "..", "proagents_bench", "importers", "tau2_tools.py")


def is_agent_toolkit(node):
    if node.name.endswith("UserTools"):
        return False
    bases = [getattr(base, "id", getattr(base, "attr", "")) for base in node.bases]
    metaclasses = [getattr(keyword.value, "id", "") for keyword in node.keywords
                   if keyword.arg == "metaclass"]
    return "ToolKitBase" in bases or "ToolKitType" in metaclasses


def tool_types(folder):
    """{tool name: type} of the agent toolkits in one domain's folder."""
    found = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py") and name != "user_tools.py":
            found.update(module_tool_types(os.path.join(folder, name)))
    return found


def module_tool_types(path):
    with open(path, "rb") as handle:
        tree = ast.parse(handle.read().decode("utf-8"), path)
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or not is_agent_toolkit(node):
            continue
        for item in node.body:
            if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for decorator in item.decorator_list:
                if (isinstance(decorator, ast.Call)
                        and getattr(decorator.func, "id", "") == "is_tool"):
                    kind = "read"  # is_tool's default
                    if decorator.args:
                        kind = decorator.args[0].attr.lower()
                    found[item.name] = kind
    return found


def registered_domains(checkout):
    """{domain name: the folder of its toolkit} from the registry's register_domain calls."""
    with open(os.path.join(checkout, "src", "tau2", "registry.py"), "rb") as handle:
        text = handle.read().decode("utf-8")
    folders = {alias: folder for folder, alias in re.findall(
        r"from tau2\.domains\.(\w+)\.environment import \(?\s*\w+ as (\w+)", text)}
    found = {}
    for alias, name in re.findall(r"register_domain\(\s*(\w+),\s*\"([^\"]+)\"", text):
        found[name] = folders[alias]
    return found


def main(checkout, commit):
    domains = {}
    aliases = {}  # a domain registered with the toolkit of one already read
    by_folder = {}
    for name, folder in sorted(registered_domains(checkout).items()):
        if folder in by_folder:
            aliases[name] = by_folder[folder]
            continue
        by_folder[folder] = name
        types = tool_types(os.path.join(checkout, "src", "tau2", "domains", folder))
        domains[name] = {kind: sorted(tool for tool, found in types.items() if found == kind)
                         for kind in sorted(set(types.values()))}
    lines = ['"""The agent tools of tau2-bench\'s own domains, each with the type tau2 gives it',
             "(``@is_tool(ToolType.WRITE)``, ...), read from tau2-bench's source at commit",
             ":data:`TAU2_COMMIT` by ``tests/importers/make_tau2_tool_types.py`` (generated:",
             "do not edit). The importer records a call of a ``write`` tool as a side effect",
             "(see :mod:`.tau2`).",
             '"""', "", "from __future__ import annotations", "",
             "from typing import Dict, List", "",
             "TAU2_COMMIT = %s" % json.dumps(commit), "",
             "DOMAIN_TOOLS: Dict[str, Dict[str, List[str]]] = {"]
    for name, kinds in domains.items():
        lines.append("    %s: {" % json.dumps(name))
        for kind, tools in kinds.items():
            lines.append("        %s: [" % json.dumps(kind))
            lines.extend("            %s," % json.dumps(tool) for tool in tools)
            lines.append("        ],")
        lines.append("    },")
    lines.append("}")
    lines.append("# Domains registered with the toolkit of another.")
    lines.extend("DOMAIN_TOOLS[%s] = DOMAIN_TOOLS[%s]" % (json.dumps(alias), json.dumps(name))
                 for alias, name in sorted(aliases.items()))
    with open(TARGET, "wb") as handle:
        handle.write(("\n".join(lines) + "\n").encode("utf-8"))
    print(TARGET, ", ".join(sorted(domains) + sorted(aliases)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
