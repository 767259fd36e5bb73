"""The mapping file, read strictly, with each harness's defaults filled in.

A mapping is optional: without one (:func:`default_settings`) a typical log imports as it
is. With one, the file is loaded by the contract's strict loader and validated against
:data:`~proagents_bench.contract.mapping.MAPPING_V1_SHAPE`; its errors are contract errors
placed at their line and column, as a spec's are. Which sources fit which harness is checked
once the log's harness is known (:meth:`Settings.check_harness`).
"""

from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Tuple, Union

from ..contract.harnesses import KEYED_SOURCES, Harness
from ..contract.mapping import mapping_errors
from ..errors import ContractError, ContractErrors
from ..jsonio import JSON, JSONObject, load
from ..text import quote


# The choices of the import's --swebench-instances, the default first.
SWEBENCH_INSTANCES = ("dataset", "submitted")


class Settings:
    """What the importer needs to know beyond the log: the mapping's values (``value``, the
    file as loaded; empty for the defaults), its SHA-256 (None without a file) and its name
    for messages."""

    def __init__(self, value: JSONObject, sha256: Optional[str] = None,
                 shown: Optional[str] = None, document: Optional[load.Document] = None) -> None:
        self.value = value
        self.sha256 = sha256
        self.shown = shown
        self._document = document
        # Which instances a SWE-bench summary's run is (the import's --swebench-instances):
        # its dataset's (those without a prediction are missing trials) or the submitted.
        self.swebench_instances = SWEBENCH_INSTANCES[0]
        # Whether each record gets the reference of its trace in the log (the import's
        # --trace-refs: a results v5 package), which costs a digest of every sample read.
        self.trace_refs = False
        # Whether each record keeps whose its failure is (the import's --failure-origins: a
        # results v6 package; a release asks for it when its benchmark's spec bounds it).
        self.failure_origins = False

    def get(self, key: str, default: JSON = None) -> JSON:
        return self.value.get(key, default)

    @property
    def protocol(self) -> JSONObject:
        return dict(self.value.get("protocol", {}))

    @property
    def side_effect_tools(self) -> Optional[FrozenSet[str]]:
        tools = self.value.get("side_effect_tools")
        return None if tools is None else frozenset(tools)

    @property
    def side_effect_store_keys(self) -> FrozenSet[str]:
        return frozenset(self.value.get("side_effect_store_keys", ()))

    def final_state(self, harness: Harness) -> Tuple[str, Optional[str]]:
        """(source, key or None) for ``harness`` (its first source by default)."""
        chosen = self.value.get("final_state", {})
        return chosen.get("source", harness.final_state_names[0]), chosen.get("key")

    def cost(self, harness: Harness) -> Tuple[str, Union[int, float]]:
        """(source, scale) for ``harness`` (its first source by default); the scale an int or
        a float."""
        chosen = self.value.get("cost", {})
        scale = chosen.get("scale", 1)
        return chosen.get("source", harness.cost_names[0]), scale if isinstance(
            scale, int) else float(scale)

    def metadata_key(self, field: str) -> str:
        key: str = self.value.get("metadata_keys", {}).get(field, field)
        return key

    def case_override(self, case_id: str) -> Dict[str, object]:
        return dict(self.value.get("cases", {}).get(case_id, {}))

    def check_harness(self, harness: Harness) -> None:
        """The sources chosen must be ones ``harness`` has (a contract error otherwise)."""
        finals, costs = harness.final_state_names, harness.cost_names
        errors: List[ContractError] = []
        source = self.value.get("final_state", {}).get("source")
        if source is not None and source not in finals:
            errors.append(ContractError(
                "mapping.final_state_source", "final_state.source %s is not one of %s's: "
                "use %s" % (quote(source), harness.name, " or ".join(finals)),
                ("final_state", "source")))
        cost = self.value.get("cost", {}).get("source")
        if cost is not None and cost not in costs:
            errors.append(ContractError(
                "mapping.cost_source", "cost.source %s is not one of %s's: use %s" % (
                    quote(cost), harness.name, " or ".join(costs)), ("cost", "source")))
        if source in KEYED_SOURCES and "key" not in self.value.get("final_state", {}):
            errors.append(ContractError(
                "mapping.final_state_key", "final_state.source %s needs final_state.key: %s"
                % (quote(source), KEYED_SOURCES[source]), ("final_state",)))
        if errors:
            raise ContractErrors(self.placed(errors))

    def placed(self, errors: List[ContractError]) -> List[ContractError]:
        """Errors of the mapping file, placed at their line and column in it."""
        if self._document is None:
            return errors
        return self._document.errors_at(errors)


def default_settings() -> Settings:
    return Settings({})


def load_settings(path: Optional[str], shown: Optional[str] = None) -> Settings:
    """The mapping file at ``path``: loaded strictly and validated; ContractErrors otherwise.
    No path (no ``--mapping``): the defaults of each harness (:func:`default_settings`)."""
    if path is None:
        return default_settings()
    document = load.load_file(path, source=shown if shown is not None else path)
    errors = mapping_errors(document.value)
    if errors:
        raise ContractErrors(document.errors_at(errors))
    return Settings(document.value, document.sha256, document.source, document)
