"""JSON in and out, with no knowledge of the contract: the strict loader (``load``), the
RFC 8785 canonical form and the evidence fingerprint (``canonical``), the output document's
writer (``dump``), files published all or none (``atomic``), whether two paths name one file (``paths``), and
the garbage-collector pause that keeps large files fast (``gcpause``)."""

from typing import Any, Dict, Union

# A parsed JSON value (an object, array, string, int, Decimal, bool or None), as the loader
# returns it. Its shape is the contract's to check (contract/shapes.py), not the type
# checker's: code that reads a validated document indexes it as the contract says.
JSON = Any
# A parsed JSON object.
JSONObject = Dict[str, JSON]
# An output's bytes as they are written: bytes, or a buffer that holds them (the bytearray a
# forked benchmark's decision was read into, a view of it), written as it is, never copied.
BytesLike = Union[bytes, bytearray, memoryview]
