"""The first `tools/list` and `tools/call` answered before the MCP SDK has loaded (handshake.Wire
hands them here), exactly as the SDK-built server answers them, so a host's first answer waits for
the graph but not for the SDK.

`tools/list` is the SDK server's own listing, kept in listing.json with the protocol versions it is for
(tests/test_server_early.py checks it against the SDK's and says how to refresh it). A call to a
read tool (tools.py) goes through the checks StrictServer and the SDK make, in their order and with
their words (refusals.py): the tool's argument names against its schema, every string against its
kind, then the values against a model built from the body's parameters as the SDK builds its own;
the very same body then runs under the same deadline on the same workers. Whatever this cannot
vouch for (another tool, a value the SDK would first re-read as JSON, an index still in doubt, a
protocol version not in the listing) is left to the SDK, which answers it and everything after it.
This module imports nothing of the SDK."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from graphctx.server.agents import Caller
from graphctx.server.refusals import internal_error, invalid_values, refused_string, unknown_arguments
from graphctx.server.results import ToolAnswer, error_answer
from graphctx.server.tools import ServerState, read_tools


# The SDK server's tools/list result, and the protocol versions it lists exactly that for.
LISTING = Path(__file__).with_name("listing.json")


def read_listing() -> dict[str, dict]:
    """The SDK server's tools/list result by protocol version."""
    stored = json.loads(LISTING.read_text(encoding="utf-8"))
    return dict.fromkeys(stored["versions"], stored["result"])


class Arguments(BaseModel):
    """The base of a tool's argument model, configured as the SDK configures its own."""

    model_config = ConfigDict(arbitrary_types_allowed=True)


def argument_model(body: Callable) -> type[BaseModel]:
    """The model the SDK builds from a tool's parameters (all but the first, the Caller): each
    parameter's annotation and default, a name BaseModel already uses taken by alias."""
    fields: dict[str, Any] = {}
    for parameter in list(inspect.signature(body, eval_str=True).parameters.values())[1:]:
        name, options = parameter.name, {}
        if hasattr(BaseModel, name) and callable(getattr(BaseModel, name)):
            name, options = f"field_{name}", {"alias": name}
        annotation = Annotated[(parameter.annotation, Field(**options))]
        fields[name] = annotation if parameter.default is inspect.Parameter.empty else (annotation, parameter.default)
    return create_model(f"{body.__name__}Arguments", __base__=Arguments, **fields)


class EarlyTools:
    """The read tools of `state`, answering before the SDK has loaded. `usable()` (blocking) says
    whether the index may be answered from; a call waits for it."""

    def __init__(self, state: ServerState, usable: Callable[[], bool | None]):
        self.state = state
        self._usable = usable
        self._listing: dict[str, dict] | None = None
        self._bodies: dict[str, Callable[..., ToolAnswer]] | None = None
        self._models: dict[str, type[BaseModel]] = {}

    def listing(self, version: str) -> dict | None:
        if self._listing is None:
            self._listing = read_listing()
        return self._listing.get(version)

    def answer(self, method: str, params: Any, caller: Caller, version: str) -> dict | None:
        """The `result` the SDK would send for this request, or None to leave it to the SDK."""
        listing = self.listing(version)
        if listing is None:
            return None
        if method == "tools/list":
            return listing if params in (None, {}) else None
        if not (isinstance(params, dict) and set(params) <= {"name", "arguments"} and isinstance(params.get("name"), str)):
            return None
        arguments = {} if params.get("arguments") is None else params["arguments"]
        schema = next((tool["inputSchema"] for tool in listing["tools"] if tool["name"] == params["name"]), None)
        if self._bodies is None:
            self._bodies = {body.__name__: body for body in read_tools(self.state)}
        body = self._bodies.get(params["name"])
        if body is None or schema is None or not isinstance(arguments, dict) or not self._usable():
            return None
        answer = self._call(body, schema, arguments, caller)
        return None if answer is None else answer.wire()

    def _call(self, body: Callable[..., ToolAnswer], schema: dict, arguments: dict, caller: Caller) -> ToolAnswer | None:
        name, accepted = body.__name__, list(schema.get("properties", {}))
        unknown = [key for key in arguments if key not in accepted]
        if unknown:
            return ToolAnswer(unknown_arguments(name, unknown, accepted), is_error=True)
        refused = refused_string(arguments)
        if refused:
            return ToolAnswer(refused, is_error=True)
        model = self._models.get(name) or self._models.setdefault(name, argument_model(body))
        if reread(model, arguments):
            return None
        try:
            validated = model.model_validate(arguments)
        except ValidationError as error:
            return ToolAnswer(invalid_values(error, schema), is_error=True)
        values = {field.alias or key: getattr(validated, key) for key, field in type(validated).model_fields.items()}
        try:
            return asyncio.run(self.state.off_loop(body, error_answer)(caller, **values))
        except Exception as exc:  # a bug, answered as StrictServer answers it
            return ToolAnswer(internal_error(name, exc), is_error=True)


def reread(model: type[BaseModel], arguments: dict) -> bool:
    """Whether the SDK would first re-read one of these values as JSON: a string given for a
    parameter that is not a string, holding JSON other than a string or a number (a list, an object
    or null). The test is the SDK's own (FuncMetadata.pre_parse_json)."""
    fields = {field.alias or key: field for key, field in model.model_fields.items()}
    for key, value in arguments.items():
        if isinstance(value, str) and key in fields and fields[key].annotation is not str:
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                continue
            if not isinstance(parsed, str | int | float):
                return True
    return False
