"""Machine-readable output of `amplifier run`: `json` (one object at the end) and `stream-json` (one JSON
object per line as things happen). Only these objects ever reach stdout in those modes.

Every object carries ``schema_version``: the shape of each ``type`` is published in
docs/schemas/stream-json.schema.json and documented in docs/EVENTS.md. The version changes only when a field
is removed or changes meaning; new types and new optional fields keep it."""

from __future__ import annotations

import json
import sys
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
    """Hook handlers that turn session events into stream-json records on ``stream``."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stdout

    def write(self, payload: dict[str, Any]) -> None:
        write_json_line(self._stream, payload)

    def attach(self, hooks: Any) -> None:
        # Late priority: secrets are already redacted by hooks-redaction when these run.
        for event, handler in (
            ("content_block:delta", self._on_delta),
            ("content_block:end", self._on_block_end),
            ("thinking:delta", self._on_thinking),
            ("tool:pre", self._on_tool_pre),
            ("tool:post", self._on_tool_post),
            ("tool:error", self._on_tool_error),
            ("llm:response", self._on_llm_response),
            ("provider:error", self._on_provider_error),
            ("provider:retry", self._on_retry),
        ):
            hooks.register(event, handler, priority=1000, name=f"stream-json:{event}")

    async def _on_delta(self, event: str, data: dict[str, Any]) -> HookResult:
        if data.get("block_type", "text") == "text" and data.get("delta"):
            self.write({"type": "text_delta", "text": data["delta"], "session_id": data.get("session_id")})
        return HookResult()

    async def _on_block_end(self, event: str, data: dict[str, Any]) -> HookResult:
        block = data.get("block") or {}
        if isinstance(block, dict) and block.get("type") == "text":
            self.write({"type": "text", "text": block.get("text", ""), "session_id": data.get("session_id")})
        return HookResult()

    async def _on_thinking(self, event: str, data: dict[str, Any]) -> HookResult:
        if data.get("delta"):
            self.write({"type": "thinking_delta", "text": data["delta"], "session_id": data.get("session_id")})
        return HookResult()

    async def _on_tool_pre(self, event: str, data: dict[str, Any]) -> HookResult:
        self.write(
            {
                "type": "tool_call",
                "id": data.get("tool_call_id"),
                "name": data.get("tool_name"),
                "input": data.get("tool_input"),
                "session_id": data.get("session_id"),
            }
        )
        return HookResult()

    async def _on_tool_post(self, event: str, data: dict[str, Any]) -> HookResult:
        result: Any = data.get("tool_result") or data.get("result")
        if hasattr(result, "model_dump"):
            result = result.model_dump(mode="json")
        success = result.get("success", True) if isinstance(result, dict) else True
        output = result.get("output") if isinstance(result, dict) else result
        if isinstance(result, dict) and not success and result.get("error"):
            output = output if output is not None else result["error"].get("message")
        self.write(
            {
                "type": "tool_result",
                "id": data.get("tool_call_id"),
                "name": data.get("tool_name"),
                "success": success,
                "output": output,
                "session_id": data.get("session_id"),
            }
        )
        return HookResult()

    async def _on_tool_error(self, event: str, data: dict[str, Any]) -> HookResult:
        self.write(
            {
                "type": "tool_error",
                "id": data.get("tool_call_id"),
                "name": data.get("tool_name"),
                "error": data.get("error"),
                "session_id": data.get("session_id"),
            }
        )
        return HookResult()

    async def _on_llm_response(self, event: str, data: dict[str, Any]) -> HookResult:
        self.write(
            {
                "type": "usage",
                "provider": data.get("provider"),
                "model": data.get("model"),
                "usage": data.get("usage"),
                "cost_usd": data.get("cost_usd"),
                "session_id": data.get("session_id"),
            }
        )
        return HookResult()

    async def _on_provider_error(self, event: str, data: dict[str, Any]) -> HookResult:
        self.write(
            {"type": "error", "source": "provider", "error": data.get("error"), "session_id": data.get("session_id")}
        )
        return HookResult()

    async def _on_retry(self, event: str, data: dict[str, Any]) -> HookResult:
        # The rule (docs/EVENTS.md): deltas stream as they arrive; a retry tells consumers to drop the text and
        # thinking deltas the failed attempt sent (this session's, since its last usage / tool_result / retry).
        self.write(
            {
                "type": "retry",
                "attempt": data.get("attempt"),
                "delay": data.get("delay"),
                "error": data.get("message") or data.get("error_type"),
                "discard_attempt_text": True,
                "session_id": data.get("session_id"),
            }
        )
        return HookResult()
