"""Which methods of a file only declare an interface: every call their body makes raises
`NotImplementedError` (`def finish(self): raise NotImplementedError()`). A call on an object of
unknown type whose candidates include such a declaration and an override of it below its class
reaches the override, never the declaration. Plain functions of one file's facts."""

from __future__ import annotations

from collections import defaultdict

from graphctx.parse.facts import FileFacts

NOT_IMPLEMENTED = "NotImplementedError"


def declaration_scopes(facts: FileFacts) -> frozenset[str]:
    """The qualified names of the file's functions whose every call raises NotImplementedError."""
    names: dict[str, set[str]] = defaultdict(set)
    for call in facts.calls:
        if call.scope and not call.implicit:
            names[call.scope].add(call.name if call.receiver is None else "")
    return frozenset(scope for scope, called in names.items() if called == {NOT_IMPLEMENTED})
