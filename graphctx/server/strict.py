"""Strict tool calls, in one place for every tool: an unknown tool, an unknown argument, a string
with a NUL byte, a control character in a name or a value over its length limit (graphctx.inputs),
or a value the tool's schema refuses comes back as an error result of one plain sentence that
names the problem and the fix (did-you-mean for names), never a raw validation dump, an internal
error or a silently ignored argument. The SDK validates arguments against the model it builds from
each tool's signature; this server checks the argument names against the published schema and
every string against its kind first, and rewords the SDK's validation errors, which it raises with
the pydantic error as their cause. Resource URIs get the same checks. The words are refusals.py's,
shared with the answers given before the SDK has loaded (early.py)."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError, UnexpectedToolError
from mcp_types import CallToolResult, TextContent, Tool
from pydantic import ValidationError

from graphctx import inputs
from graphctx.errors import bounded
from graphctx.server.refusals import (
    MAX_URI, internal_error, invalid_values, refused_string, unknown_arguments, unknown_resource, unknown_tool,
)


class StrictServer(MCPServer):
    """An MCPServer whose tools refuse what they do not accept, saying what they do accept."""

    async def list_tools(self) -> list[Tool]:
        # The published schemas say what the calls enforce: no argument beyond those listed.
        tools = await super().list_tools()
        for tool in tools:
            tool.input_schema.setdefault("additionalProperties", False)
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context | None = None) -> Any:
        schemas = {tool.name: tool.input_schema for tool in await super().list_tools()}
        schema = schemas.get(name)
        if schema is None:
            return refusal(unknown_tool(name, sorted(schemas)))
        unknown = [key for key in arguments if key not in schema.get("properties", {})]
        if unknown:
            return refusal(unknown_arguments(name, unknown, list(schema.get("properties", {}))))
        refused = refused_string(arguments)
        if refused:
            return refusal(refused)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError):  # a bug: logged in full, answered in short
                return refusal(internal_error(name, exc.__cause__ or exc))
            if isinstance(exc.__cause__, ValidationError):
                return refusal(invalid_values(exc.__cause__, schema))
            return refusal(bounded(str(exc)))

    async def read_resource(self, uri: Any, context: Context | None = None) -> Any:
        text = str(uri)
        refused = inputs.problem(unquote(text), "the resource URI", "name", MAX_URI)
        if refused:
            raise ResourceError(refused)
        try:
            return await super().read_resource(uri, context)
        except ResourceNotFoundError as exc:
            if str(exc).startswith("Unknown resource"):  # the SDK's words, with the whole URI
                known = [str(r.uri) for r in await self.list_resources()]
                known += [str(t.uri_template) for t in await self.list_resource_templates()]
                raise ResourceNotFoundError(unknown_resource(text, known)) from None
            raise ResourceNotFoundError(bounded(str(exc))) from None
        except ResourceError as exc:
            raise ResourceError(bounded(str(exc))) from None


def refusal(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
