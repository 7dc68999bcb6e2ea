"""Is a transcript line a message the kernel accepts? A hand-written check of what ``amplifier_core``'s
``Message`` requires (role, content, its blocks' required fields) plus ``tool_calls``, which resume reads.

Not the pydantic model itself: validating a 10,000-message transcript with it costs about twice the JSON parse,
on every resume; this check costs a few per cent of it. A line that fails is reported (file, line, problem) and
skipped like a line that is not JSON, instead of ending the next request in a validation traceback."""

from __future__ import annotations

from typing import Any

ROLES = frozenset({"system", "developer", "user", "assistant", "function", "tool"})

# block type -> (field, accepted types, required) for the fields the kernel's block models declare
_STR = (str,)
_OPT_STR = (str, type(None))
_BLOCK_FIELDS: dict[str, tuple[tuple[str, tuple[type, ...], bool], ...]] = {
    "text": (("text", _STR, True),),
    "thinking": (("thinking", _STR, True), ("signature", _OPT_STR, False), ("content", (list, type(None)), False)),
    "redacted_thinking": (("data", _STR, True),),
    "tool_call": (("id", _STR, True), ("name", _STR, True), ("input", (dict,), True)),
    "tool_result": (("tool_call_id", _STR, True),),
    "image": (("source", (dict,), True),),
    "reasoning": (("content", (list,), True), ("summary", (list,), True)),
}


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def message_problem(message: Any) -> str | None:
    """What makes ``message`` unusable as a stored message, or None when it is fine."""
    if not isinstance(message, dict):
        return f"is {_kind(message)}, not a message object"
    role = message.get("role")
    if "role" not in message:
        return "is not a message (no 'role')"
    if not isinstance(role, str) or role not in ROLES:
        shown = repr(role) if isinstance(role, str) else _kind(role)
        return f"has 'role' {shown}, not one of {', '.join(sorted(ROLES))}"
    if "content" not in message:
        return "has no 'content'"
    content = message["content"]
    if isinstance(content, list):
        for index, block in enumerate(content):
            if (problem := _block_problem(block)) is not None:
                return f"has a bad 'content[{index}]': {problem}"
    elif not isinstance(content, str):
        return f"has 'content' that is {_kind(content)}, not text or a list of blocks"
    for key in ("name", "tool_call_id"):
        if not isinstance(message.get(key), _OPT_STR):
            return f"has '{key}' that is {_kind(message[key])}, not text"
    if not isinstance(message.get("metadata"), (dict, type(None))):
        return f"has 'metadata' that is {_kind(message['metadata'])}, not an object"
    calls = message.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            return f"has 'tool_calls' that is {_kind(calls)}, not a list"
        for index, call in enumerate(calls):
            if (problem := _call_problem(call)) is not None:
                return f"has a bad 'tool_calls[{index}]': {problem}"
    return None


def _call_problem(call: Any) -> str | None:
    """A stored call is ``{id, tool|name, arguments|input}``: resume pairs results with its id, providers send
    its name and arguments, so each must be of the kind they read."""
    if not isinstance(call, dict):
        return f"it is {_kind(call)}, not an object"
    if "id" not in call or call["id"] == "":
        return "its 'id' is missing"
    if not isinstance(call["id"], str):
        return f"its 'id' is {_kind(call['id'])}, not text"
    for key in ("tool", "name"):
        if not isinstance(call.get(key), _OPT_STR):
            return f"its '{key}' is {_kind(call[key])}, not text"
    for key in ("arguments", "input"):
        if not isinstance(call.get(key), (dict, str, type(None))):
            return f"its '{key}' is {_kind(call[key])}, not an object"
    return None


def _block_problem(block: Any) -> str | None:
    if not isinstance(block, dict):
        return f"it is {_kind(block)}, not a block object"
    kind = block.get("type")
    fields = _BLOCK_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        return f"unknown block type {kind!r} (known: {', '.join(_BLOCK_FIELDS)})"
    for name, types, required in fields:
        if name not in block:
            if required:
                return f"a '{kind}' block without '{name}'"
            continue
        if not isinstance(block[name], types):
            return f"'{name}' of a '{kind}' block is {_kind(block[name])}"
    return None
