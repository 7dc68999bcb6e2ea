"""Machine-readable output of `amplifier run`: `json` (one object at the end) and `stream-json` (one JSON
object per line as things happen). Only these objects ever reach stdout in those modes.

Every object carries ``schema_version``: the shape of each ``type`` is published in
docs/schemas/stream-json.schema.json and documented in docs/EVENTS.md. The version changes only when a field
is removed or changes meaning; new types and new optional fields keep it."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from amplifier_core import HookResult
from amplifier_core.models import json_default

STREAM_SCHEMA_VERSION = 1


def write_json_line(stream: TextIO, payload: dict[str, Any]) -> None:
    payload = {"schema_version": STREAM_SCHEMA_VERSION, **payload}
    try:
        stream.write(json.dumps(payload, ensure_ascii=False, default=json_default) + "\n")
    except UnicodeEncodeError:  # a path that is not UTF-8 (lone surrogates): JSON escapes read back the same
        stream.write(json.dumps(payload, ensure_ascii=True, default=json_default) + "\n")
    stream.flush()


class StreamJsonWriter:
    """Hook handlers that turn session events into stream-json records on ``stream``; with ``attach_children``,
    the sub-agents' events too, each line naming its ``agent`` and ``parent_session_id``."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stdout

    def write(self, payload: dict[str, Any]) -> None:
        write_json_line(self._stream, payload)

    def attach(self, hooks: Any) -> None:
        # Late priority: secrets are already redacted by hooks-redaction when these run.
        for event in RECORDS:
            hooks.register(event, self._on_event, priority=1000, name=f"stream-json:{event}")

    def attach_children(self, hub: Any) -> None:
        """Write the sub-agents' lines too (``hub``: the session's SubAgentHub, capability `session.subagents`)."""
        hub.observe(self._on_child_event)

    async def _on_event(self, event: str, data: dict[str, Any]) -> HookResult:
        record = RECORDS[event](data)
        if record is not None:
            self.write(record)
        return HookResult()

    async def _on_child_event(self, event: str, data: dict[str, Any], run: Any) -> None:
        origin = {"agent": run.agent, "parent_session_id": run.parent_session_id}
        if event == "subagent:status":
            self.write({"type": "agent_status", "session_id": run.session_id, **origin, "status": data.get("status"),
                        "background": run.background})
            return
        build = RECORDS.get(event)
        record = build(data) if build is not None else None
        if record is not None:
            self.write({**record, "session_id": data.get("session_id") or run.session_id, **origin})


def _text_delta(data: dict[str, Any]) -> dict[str, Any] | None:
    if data.get("block_type", "text") == "text" and data.get("delta"):
        return {"type": "text_delta", "text": data["delta"], "session_id": data.get("session_id")}
    return None


def _text(data: dict[str, Any]) -> dict[str, Any] | None:
    block = data.get("block") or {}
    if isinstance(block, dict) and block.get("type") == "text":
        return {"type": "text", "text": block.get("text", ""), "session_id": data.get("session_id")}
    return None


def _thinking_delta(data: dict[str, Any]) -> dict[str, Any] | None:
    if data.get("delta"):
        return {"type": "thinking_delta", "text": data["delta"], "session_id": data.get("session_id")}
    return None


def _tool_call(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_call", "id": data.get("tool_call_id"), "name": data.get("tool_name"),
            "input": data.get("tool_input"), "session_id": data.get("session_id")}


def _tool_result(data: dict[str, Any]) -> dict[str, Any]:
    result: Any = data.get("tool_result") or data.get("result")
    if hasattr(result, "model_dump"):
        result = result.model_dump(mode="json")
    success = result.get("success", True) if isinstance(result, dict) else True
    output = result.get("output") if isinstance(result, dict) else result
    if isinstance(result, dict) and not success and result.get("error"):
        output = output if output is not None else result["error"].get("message")
    return {"type": "tool_result", "id": data.get("tool_call_id"), "name": data.get("tool_name"), "success": success,
            "output": output, "session_id": data.get("session_id")}


def _tool_error(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_error", "id": data.get("tool_call_id"), "name": data.get("tool_name"),
            "error": data.get("error"), "session_id": data.get("session_id")}


def _usage(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "usage", "provider": data.get("provider"), "model": data.get("model"), "usage": data.get("usage"),
            "cost_usd": data.get("cost_usd"), "session_id": data.get("session_id")}


def _provider_error(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "error", "source": "provider", "error": data.get("error"), "session_id": data.get("session_id")}


def _retry(data: dict[str, Any]) -> dict[str, Any]:
    # The rule (docs/EVENTS.md): deltas stream as they arrive; a retry tells consumers to drop the text and
    # thinking deltas the failed attempt sent (this session's, since its last usage / tool_result / retry).
    return {"type": "retry", "attempt": data.get("attempt"), "delay": data.get("delay"),
            "error": data.get("message") or data.get("error_type"), "discard_attempt_text": True,
            "session_id": data.get("session_id")}


RECORDS: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
    "content_block:delta": _text_delta,
    "content_block:end": _text,
    "thinking:delta": _thinking_delta,
    "tool:pre": _tool_call,
    "tool:post": _tool_result,
    "tool:error": _tool_error,
    "llm:response": _usage,
    "provider:error": _provider_error,
    "provider:retry": _retry,
}
