"""Which methods of a file only declare themselves (parse/stubs.py: a body that is `...` or raises
`NotImplementedError`, a typing stub in a mixin or an abstract method). A call of one on an object
whose class is overridden below reaches the overrides, and among the candidates of a call on an
object of unknown type an override stands for the declaration. Plain functions of one file's facts."""

from __future__ import annotations

from graphctx.parse.facts import FileFacts


def declaration_scopes(facts: FileFacts) -> frozenset[str]:
    """The qualified names of the file's methods that only declare themselves."""
    return frozenset(stub.scope for stub in facts.stubs)
