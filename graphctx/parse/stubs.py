"""Python functions that only declare themselves: a body (past its docstring) that is `...` or
raises `NotImplementedError`, such as a typing stub in a mixin or an abstract method. Calling one
on an object reaches its override, so the resolver needs to know them. Pure: one node."""

from __future__ import annotations

from tree_sitter import Node

NOT_IMPLEMENTED = b"NotImplementedError"
SKIPPED = frozenset({"comment"})


def is_stub(definition: Node) -> bool:
    """Whether a function definition's body only declares it (`...` or `raise NotImplementedError`)."""
    body = definition.child_by_field_name("body")
    if body is None:
        return False
    statements = [s for s in body.named_children if s.type not in SKIPPED]
    if statements and _docstring(statements[0]) and len(statements) > 1:
        statements = statements[1:]
    if len(statements) != 1:
        return False
    statement = statements[0]
    if statement.type == "expression_statement":
        return len(statement.named_children) == 1 and statement.named_children[0].type == "ellipsis"
    if statement.type == "raise_statement" and statement.named_children:
        raised = statement.named_children[0]
        if raised.type == "call":
            raised = raised.child_by_field_name("function")
        return raised is not None and raised.type == "identifier" and raised.text == NOT_IMPLEMENTED
    return False


def _docstring(statement: Node) -> bool:
    return statement.type == "expression_statement" and len(statement.named_children) == 1 \
        and statement.named_children[0].type == "string"
