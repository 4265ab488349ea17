"""The MCP server adapter: graphctx's library API as MCP tools, resources and prompts over stdio
and streamable HTTP. Using it loads the MCP SDK (slow), so only `graphctx serve` does; `serve` loads
it while the index is being checked."""

__all__ = ["build_server", "serve"]


def __getattr__(name: str):
    if name == "build_server":
        from graphctx.server.app import build_server

        return build_server
    if name == "serve":
        from graphctx.server.main import serve

        return serve
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
