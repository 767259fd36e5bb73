"""Team tokens: random, shown once, stored only as salted hashes, compared in constant time.

A token reads ``pab1.<id>.<secret>``: ``id`` (8 random bytes, hex) finds the team's row, and
only the secret's salted hash is stored. The secret is 32 random bytes from ``secrets``
(256 bits), so nobody can guess it, whatever the hash costs; the hash exists so that a copy of
the database does not hold usable tokens. Slow hashing would buy nothing against 256-bit
secrets and would cost every request its time, so PBKDF2-HMAC-SHA256 runs with a low
iteration count (:data:`HASH_ITERATIONS`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Optional, Tuple

TOKEN_PREFIX = "pab1"
HASH_ITERATIONS = 1000
SALT_BYTES = 16
_TOKEN = re.compile(r"pab1\.([0-9a-f]{16})\.([A-Za-z0-9_-]{43})\Z")


class IssuedToken:
    """A new token (``text``, shown once) and what is stored of it."""

    def __init__(self, text: str, token_id: str, salt: bytes, digest: bytes) -> None:
        self.text = text
        self.token_id = token_id
        self.salt = salt
        self.digest = digest


def _digest(secret: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", secret.encode("ascii"), salt, HASH_ITERATIONS)


def issue() -> IssuedToken:
    token_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    salt = secrets.token_bytes(SALT_BYTES)
    return IssuedToken("%s.%s.%s" % (TOKEN_PREFIX, token_id, secret), token_id, salt,
                       _digest(secret, salt))


def split(text: str) -> Optional[Tuple[str, str]]:
    """(id, secret) of a well-formed token, else None."""
    match = _TOKEN.match(text)
    return (match.group(1), match.group(2)) if match else None


def matches(secret: str, salt: bytes, digest: bytes) -> bool:
    return hmac.compare_digest(_digest(secret, salt), digest)


def bearer(header: Optional[str]) -> Optional[str]:
    """The token of an ``Authorization: Bearer TOKEN`` header, else None."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
