"""Python lambdas as entities: their names (`outer.<lambda1>`, `outer.<lambda2>`: numbered in source
order among the lambdas of their enclosing definition, as PyCG names them, so that an edit elsewhere
in the file, which moves their lines, leaves them and what depends on them as they were) and the
flow paths that hold them. While a file is read, flows.paths writes a lambda by its position (it
knows no scopes); once the file's scopes are known, the paths get the lambda's qualified name.
Pure: one file's facts."""

from __future__ import annotations

from graphctx.models import ANONYMOUS_MARK
from graphctx.parse import flows as flow
from graphctx.parse.facts import FileFacts


def local_name(count: int) -> str:
    """The name of the `count`-th lambda of its enclosing definition."""
    return f"{ANONYMOUS_MARK}{count}>"


def name_in_paths(facts: FileFacts, names: dict[int, str]) -> None:
    """Every flow path of the file that holds a lambda by its position (`&<lambda@120>`) holds it by
    its qualified name instead (`&outer.<lambda1>`); `names` maps start bytes to those names."""
    def named(path: str) -> str:
        return flow.LAMBDA_AT.sub(lambda m: names.get(int(m.group(1)), ""), path) if flow.LAMBDA in path else path

    for f in facts.flows:
        f.source = named(f.source)
    for c in facts.calls:
        c.callee = named(c.callee)
        c.args = [named(a) for a in c.args]
    for a in facts.accessors:
        a.method = named(a.method)
    for u in facts.attributes:
        u.path = named(u.path)
