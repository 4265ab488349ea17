"""The MCP server adapter: graphctx's library API as MCP tools, resources and prompts over stdio
and streamable HTTP. Importing it loads the MCP SDK (slow), so only `graphctx serve` does."""

from graphctx.server.app import build_server
from graphctx.server.main import serve

__all__ = ["build_server", "serve"]
