"""Error results shared by every tool: a mistake the caller can fix comes back as an isError result
with the message and suggestions; a bug comes back as an isError result too (and is logged with its
traceback), so nothing a caller sends can take the server down."""

from __future__ import annotations

import logging
import traceback

from mcp_types import CallToolResult, TextContent

from graphctx.errors import GraphctxError, bounded

log = logging.getLogger("graphctx.server")


def error_result(exc: GraphctxError) -> CallToolResult:
    text = exc.message.replace("`graphctx search`", "the search tool")
    if exc.suggestions:
        text += "\nsuggestions:\n" + "\n".join(f"  - {s}" for s in exc.suggestions)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def internal_error(exc: Exception) -> CallToolResult:
    """Call from an `except` block: logs the traceback to stderr and says what went wrong."""
    log.error("graphctx: internal error\n%s", traceback.format_exc())
    text = bounded(f"internal error: {type(exc).__name__}: {exc}")
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
