"""proagents-bench: the release gate an AI-agent team runs before it ships a new agent."""

from .errors import ContractError, ContractErrors, format_path
from .gate import InputFile, evaluate
from .version import VERSION

__version__ = VERSION
__all__ = ["ContractError", "ContractErrors", "InputFile", "VERSION", "evaluate",
           "format_path"]
