"""Record ids: ULIDs (48 bits of milliseconds then 80 random bits, Crockford base32, 26 characters).
They sort by creation time and two branches or processes never mint the same one, which an id of
the form max+1 cannot promise."""

from __future__ import annotations

import os
import re
import threading
import time
from datetime import UTC, datetime

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ID_PATTERN = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
_RANDOM_BITS = 80

_lock = threading.Lock()
_last_ms = 0
_last_random = 0


def _forget_state() -> None:
    # A forked child would otherwise continue the parent's monotonic sequence and mint its ids.
    global _last_ms, _last_random
    _last_ms, _last_random = 0, 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_state)


def new_id() -> str:
    """A fresh id, strictly greater than the previous one minted by this process."""
    global _last_ms, _last_random
    now = time.time_ns() // 1_000_000
    with _lock:
        if now <= _last_ms:
            # Same millisecond (or a clock step back): keep order by counting up from the last id.
            now, random = _last_ms, _last_random + 1
            if random >> _RANDOM_BITS:
                now, random = now + 1, int.from_bytes(os.urandom(10), "big")
        else:
            random = int.from_bytes(os.urandom(10), "big")
        _last_ms, _last_random = now, random
    return encode((now << _RANDOM_BITS) | random)


def encode(value: int) -> str:
    chars = []
    for _ in range(26):
        chars.append(ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def normalize(text: str) -> str:
    """An id as a person may type it (lower case, surrounding spaces) in canonical form."""
    return text.strip().upper()


def is_id(text: str) -> bool:
    return bool(ID_PATTERN.match(text))


def created_at(record_id: str) -> datetime | None:
    """The minting time encoded in an id, or None for an id that is not a ULID (a hand-named file)."""
    if not is_id(record_id):
        return None
    value = 0
    for char in record_id[:10]:
        value = value * 32 + ALPHABET.index(char)
    return datetime.fromtimestamp(value / 1000, UTC)
