"""provider-scripted: a provider that plays a script of model turns instead of calling an LLM.

Used by the test suites, the bundled ``demo`` profile and module authors to run a whole session without an
API key. Turns with a ``match`` pattern answer the request whose last user or tool message matches; the
other turns play in order. Running out of turns is a clear ConfigurationError, never a silent default.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from decimal import Decimal
from typing import Any

from pydantic import Field, model_validator

from amplifier_core import events
from amplifier_core.llm_errors import ConfigurationError
from amplifier_core.message_models import (
    ChatRequest,
    ChatResponse,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolCallBlock,
    Usage,
)
from amplifier_core.models import ModelInfo, ProviderInfo
from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_support.capability_names import SESSION_WORKING_DIR

from .script import TurnSpec, load_script_file, parse_script, resolve_script_path
from .stream_events import emit_stream

__amplifier_module_type__ = "provider"

logger = logging.getLogger(__name__)

MODULE_ID = "provider-scripted"
PROVIDER_NAME = "scripted"
MODEL_ID = "scripted"
DISPLAY_NAME = "Scripted model (no LLM)"
_REMINDER_PREFIX = "<system-reminder"
_PREVIEW = 80
_ECHO_LIMIT = 200


class ScriptedConfig(ModuleConfig):
    script: list[Any] | None = None
    script_file: str | None = None
    repeat_last: bool = False
    echo_when_done: bool = False
    priority: int = 100
    stream_chunk_size: int = Field(default=8, ge=1)
    context_window: int = Field(default=200_000, ge=1)
    max_output_tokens: int = Field(default=8_192, ge=1)

    @model_validator(mode="after")
    def _one_source(self) -> ScriptedConfig:
        if self.script is not None and self.script_file is not None:
            raise ValueError("set either script (inline turns) or script_file (a YAML/JSON file), not both")
        if self.repeat_last and self.echo_when_done:
            raise ValueError("set either repeat_last or echo_when_done (what to do when the script is over), not both")
        return self


def _message_text(message: Message) -> str:
    if isinstance(message.content, str):
        return message.content
    parts = []
    for block in message.content:
        if block.type == "text":
            parts.append(block.text)
        elif block.type == "tool_result":
            parts.append(block.output if isinstance(block.output, str) else str(block.output))
    return "\n".join(parts)


def _last_prompt(request: ChatRequest) -> tuple[str, str]:
    """(role, text) of the last user or tool message that is not an injected system reminder."""
    for message in reversed(request.messages):
        if message.role in ("user", "tool"):
            text = _message_text(message)
            if not text.lstrip().startswith(_REMINDER_PREFIX):
                return message.role, text
    return "user", ""


def _matches(pattern: str, text: str) -> bool:
    if pattern in text:
        return True
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def _echo_turn(text: str) -> TurnSpec:
    """The answer once the script is over with ``echo_when_done``: the message quoted back, so a demo chat
    keeps answering (and says plainly that no model is behind it)."""
    quoted = " ".join(text.split())
    quoted = quoted if len(quoted) <= _ECHO_LIMIT else quoted[:_ECHO_LIMIT] + "..."
    return TurnSpec(text=f"(scripted demo model, no LLM) You said: \"{quoted}\". I can only echo; use a profile "
                         "with a real provider (e.g. `amplifier init`) for actual answers.")


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class ScriptedProvider:
    """Plays ``turns``; ``requests`` records every ChatRequest received (handy in tests)."""

    name = PROVIDER_NAME

    def __init__(self, turns: list[TurnSpec], config: ScriptedConfig | None = None, coordinator: Any = None) -> None:
        self.config = config or ScriptedConfig()
        self.turns = list(turns)
        self.coordinator = coordinator
        self.priority = self.config.priority
        self.requests: list[ChatRequest] = []
        self._used = [False] * len(self.turns)
        self._last_played: tuple[int, TurnSpec] | None = None

    @property
    def remaining_turns(self) -> int:
        return self._used.count(False)

    def get_info(self) -> ProviderInfo:
        return ProviderInfo(
            id=PROVIDER_NAME, display_name=DISPLAY_NAME, credential_env_vars=[],
            capabilities=["tools", "streaming", "thinking"],
            defaults={"model": MODEL_ID, "context_window": self.config.context_window,
                      "max_output_tokens": self.config.max_output_tokens},
        )

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(id=MODEL_ID, display_name=DISPLAY_NAME, context_window=self.config.context_window,
                          max_output_tokens=self.config.max_output_tokens,
                          capabilities=["tools", "streaming", "thinking"])]

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return list(response.tool_calls or [])

    # -- playing the script --------------------------------------------------------------------------
    def _next_turn(self, request_number: int, request: ChatRequest) -> tuple[int, TurnSpec]:
        role, text = _last_prompt(request)
        for index, turn in enumerate(self.turns):
            if not self._used[index] and turn.match is not None and _matches(turn.match, text):
                self._used[index] = True
                return index, turn
        for index, turn in enumerate(self.turns):
            if not self._used[index] and turn.match is None:
                self._used[index] = True
                return index, turn
        if self.config.repeat_last and self._last_played is not None:
            return self._last_played
        if self.config.echo_when_done:
            return -1, _echo_turn(text)
        label = "last tool result" if role == "tool" else "last user message"
        preview = text if len(text) <= _PREVIEW else text[:_PREVIEW] + "..."
        waiting = [turn.match for index, turn in enumerate(self.turns) if not self._used[index]]
        detail = f"; unused turns wait for match patterns {waiting} that do not match" if waiting else ""
        raise ConfigurationError(
            f"provider-scripted: the script has no turn left for request #{request_number} ({label}: "
            f"{preview!r}){detail}. Add a turn to the script, or set repeat_last: true to replay the last one.",
            provider=PROVIDER_NAME,
        )

    def _response(self, index: int, turn: TurnSpec, request: ChatRequest, streamed: bool) -> ChatResponse:
        content: list[Any] = []
        if turn.thinking is not None:
            content.append(ThinkingBlock(thinking=turn.thinking, signature=turn.signature))
        if turn.text is not None:
            content.append(TextBlock(text=turn.text))
        calls = [ToolCall(id=call.id or f"call_{uuid.uuid4().hex[:16]}", name=call.name,
                          arguments=dict(call.arguments)) for call in turn.tool_calls]
        content.extend(ToolCallBlock(id=call.id, name=call.name, input=call.arguments) for call in calls)
        if turn.usage is not None:
            input_tokens, output_tokens = turn.usage.input_tokens, turn.usage.output_tokens
            cost = Decimal(turn.usage.cost_usd) if turn.usage.cost_usd is not None else None
        else:
            input_tokens = sum(_estimate_tokens(_message_text(message)) for message in request.messages)
            output_tokens = _estimate_tokens((turn.thinking or "") + (turn.text or ""))
            cost = None
        return ChatResponse(
            content=content,
            tool_calls=calls or None,
            usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens,
                        total_tokens=input_tokens + output_tokens, cost_usd=cost),
            finish_reason=turn.stop_reason or ("tool_use" if calls else "end_turn"),
            metadata={"model": request.model or MODEL_ID, "scripted_turn": index + 1 if index >= 0 else None,
                      "streamed": streamed},
        )

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        self.requests.append(request)
        request_number = len(self.requests)
        hooks = getattr(self.coordinator, "hooks", None)
        model = request.model or MODEL_ID
        started = time.monotonic()
        if hooks is not None:
            await hooks.emit(events.LLM_REQUEST, {"provider": PROVIDER_NAME, "model": model,
                                                  "message_count": len(request.messages),
                                                  "stream": bool(request.stream)})
        index, turn = self._next_turn(request_number, request)
        self._last_played = (index, turn)
        if turn.error is not None:
            raise turn.error.build()
        streamed = bool(request.stream) and hooks is not None
        response = self._response(index, turn, request, streamed)
        if streamed:
            blocks = [block.model_dump(mode="json", exclude_none=True) for block in response.content]
            await emit_stream(hooks, PROVIDER_NAME, blocks, self.config.stream_chunk_size)
        if hooks is not None:
            usage = {"input_tokens": response.usage.input_tokens, "output_tokens": response.usage.output_tokens}
            await hooks.emit(events.LLM_RESPONSE, {"provider": PROVIDER_NAME, "model": model, "status": "ok",
                                                   "duration_ms": int((time.monotonic() - started) * 1000),
                                                   "usage": usage})
        return response


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    settings = parse_module_config(ScriptedConfig, config, MODULE_ID)
    if settings.script_file is not None:
        working_dir = coordinator.get_capability(SESSION_WORKING_DIR) if coordinator is not None else None
        turns = load_script_file(resolve_script_path(settings.script_file, working_dir))
    else:
        turns = parse_script(settings.script or [], "config `script`")
    provider = ScriptedProvider(turns, settings, coordinator)
    await coordinator.mount("providers", provider, name=PROVIDER_NAME)
    return None


__all__ = ["ScriptedConfig", "ScriptedProvider", "TurnSpec", "mount"]
