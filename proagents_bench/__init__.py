"""proagents-bench: the release gate an AI-agent team runs before it ships a new agent.

``evaluate([InputFile("spec", path), InputFile("cases", path), InputFile("results", path)])``
returns the decision; it raises :class:`ContractErrors` (a ``ValueError``) for bad input.
"""

from typing import TYPE_CHECKING

from .version import VERSION

if TYPE_CHECKING:  # what __getattr__ loads, for the type checker
    from .errors import ContractError, ContractErrors, format_path
    from .pipeline import InputFile, evaluate

__version__ = VERSION
__all__ = ["ContractError", "ContractErrors", "InputFile", "VERSION", "evaluate",
           "format_path"]

_HOMES = {"InputFile": "pipeline", "evaluate": "pipeline", "ContractError": "errors",
          "ContractErrors": "errors", "format_path": "errors"}


def __getattr__(name: str) -> object:
    # Loaded on first use (PEP 562): importing the package stays light, so the command line
    # can take its signals over before the pipeline's modules load.
    if name in _HOMES:
        from importlib import import_module
        return getattr(import_module("." + _HOMES[name], __name__), name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
