"""graphctx: code context for coding agents, from a tree-sitter entity graph.

    from graphctx import Project

    with Project(".") as project:
        project.index()
        answer, text = project.context("resolve_entity", token_budget=2000)
        print(text)

`Project` and the models load on first use, so that `import graphctx` (and `graphctx --help`) stay fast."""

from __future__ import annotations

from typing import Any

__all__ = ["Project", "models", "errors"]


def __getattr__(name: str) -> Any:
    if name == "Project":
        from graphctx.project import Project

        return Project
    if name in ("models", "errors"):
        import importlib

        return importlib.import_module(f"graphctx.{name}")
    raise AttributeError(f"module 'graphctx' has no attribute {name!r}")
