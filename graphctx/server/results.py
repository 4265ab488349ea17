"""Tool results shared by every tool: a mistake the caller can fix comes back as an isError result
with the message and suggestions; a bug comes back as an isError result too (and is logged with its
traceback), so nothing a caller sends can take the server down. `ToolAnswer` is a result without
the MCP SDK's types, so the read tools (tools.py) can answer before the SDK has loaded (early.py):
`sdk()` makes the SDK's CallToolResult of it, `wire()` the JSON the SDK sends for that result."""

from __future__ import annotations

import logging
import traceback
from dataclasses import dataclass
from typing import Any

from graphctx.errors import GraphctxError, bounded

log = logging.getLogger("graphctx.server")


@dataclass(frozen=True)
class ToolAnswer:
    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False

    def sdk(self) -> Any:
        from mcp_types import CallToolResult, TextContent

        return CallToolResult(content=[TextContent(type="text", text=self.text)], structured_content=self.structured,
                              is_error=self.is_error)

    def wire(self) -> dict[str, Any]:
        """The `result` of the SDK's answer to a call that returned this (its keys in the SDK's order)."""
        result: dict[str, Any] = {"content": [{"text": self.text, "type": "text"}], "isError": self.is_error}
        if self.structured is not None:
            result["structuredContent"] = self.structured
        return result


def error_answer(exc: GraphctxError) -> ToolAnswer:
    text = exc.message.replace("`graphctx search`", "the search tool")
    if exc.suggestions:
        text += "\nsuggestions:\n" + "\n".join(f"  - {s}" for s in exc.suggestions)
    return ToolAnswer(text, is_error=True)


def internal_answer(exc: Exception) -> ToolAnswer:
    """Call from an `except` block: logs the traceback to stderr and says what went wrong."""
    log.error("graphctx: internal error\n%s", traceback.format_exc())
    return ToolAnswer(bounded(f"internal error: {type(exc).__name__}: {exc}"), is_error=True)


def error_result(exc: GraphctxError) -> Any:
    """error_answer as the SDK's CallToolResult."""
    return error_answer(exc).sdk()


def internal_error(exc: Exception) -> Any:
    """internal_answer as the SDK's CallToolResult (call from an `except` block)."""
    return internal_answer(exc).sdk()
