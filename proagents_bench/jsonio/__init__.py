"""JSON in and out, with no knowledge of the contract: the strict loader (``load``), the
RFC 8785 canonical form and the evidence fingerprint (``canonical``), the output document's
writer (``dump``), files published all or none (``atomic``), and the garbage-collector pause
that keeps large files fast (``gcpause``)."""
