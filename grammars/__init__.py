"""graphctx's tree-sitter queries, one `<language>.scm` per language (conventions in README.md).
Installed as the package data of `graphctx.grammars` and read with importlib.resources."""
