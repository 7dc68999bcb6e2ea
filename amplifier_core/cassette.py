"""Record and replay a session's provider calls (and, optionally, tool results) at the provider boundary.

Why the provider boundary and not HTTP (vcrpy): it is the one interface every provider shares, bundled or
third-party, whatever SDK or transport it uses (some stream over websockets, some are not HTTP at all); a
cassette of ``ChatRequest`` / ``ChatResponse`` plus the stream events the provider emitted replays the same
``complete`` result and the same display events without the SDK, a key or a network, and reads as the
conversation it is. Requests are matched by a digest of what decides the answer: model, messages and tools.

A cassette is a directory holding ``cassette.jsonl``: one JSON object per provider call (``kind: provider``)
or tool call (``kind: tool``), in the order they happened, with secrets masked by the caller's ``mask``.
One ``Cassette`` is shared by a session and its sub-agents (each call appends or consumes in order).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from .message_models import ChatRequest, ChatResponse
from .models import ToolResult

CASSETTE_FILE = "cassette.jsonl"
CASSETTE_VERSION = 1
# what a streaming provider emits while a response arrives (docs/STREAMING.md): recorded, and re-emitted on replay
STREAM_EVENTS = ("llm:stream_block_start", "content_block:start", "content_block:delta", "thinking:delta",
                 "thinking:final", "content_block:end", "llm:stream_block_end")
# the hook registry adds these to every payload (and pairs llm:* events by request_id): not part of the recording
_REGISTRY_FIELDS = ("session_id", "parent_id", "timestamp", "request_id")
_PROVIDER_ATTRIBUTES = ("default_model", "model", "priority")
Mode = Literal["record", "replay"]


class ReplayMismatch(Exception):
    """A request the cassette has no answer for: the run must end (exit 2 in the app), naming what differs."""


class CassetteError(Exception):
    """A cassette directory that cannot be read (missing, or a line that is not a cassette record)."""


def request_view(request: ChatRequest) -> dict[str, Any]:
    """What a request is matched on: model, messages and tools, as JSON. A message's ``metadata`` (when it was
    added, by which hook) is the app's bookkeeping, not what the model reads, and differs on every run: left out."""
    dumped = request.model_dump(mode="json", exclude_none=True)
    messages = [{key: value for key, value in message.items() if key != "metadata"}
                for message in dumped.get("messages", [])]
    return {"model": dumped.get("model"), "messages": messages, "tools": dumped.get("tools") or []}


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Cassette:
    """The calls of one run, recorded to or replayed from ``directory``."""

    def __init__(self, directory: Path | str, mode: Mode, *, replay_tools: bool = False,
                 mask: Callable[[Any], Any] | None = None) -> None:
        self.directory = Path(directory)
        self.mode: Mode = mode
        self.replay_tools = replay_tools
        self.mask = mask or (lambda value: value)
        self.failure: ReplayMismatch | None = None  # the first mismatch: every later call raises it again
        self._records: list[dict[str, Any]] = []
        self._used: set[int] = set()
        self._provider_calls = 0
        self._sessions: list[str] = []  # ids of the attached sessions, in order: [SESSION:n] in the cassette
        if mode == "record":
            self.directory.mkdir(parents=True, exist_ok=True)
            self.path.write_text("", encoding="utf-8")
        else:
            self._records = self._load()

    @property
    def path(self) -> Path:
        return self.directory / CASSETTE_FILE

    def _load(self) -> list[dict[str, Any]]:
        if not self.path.is_file():
            raise CassetteError(f"{self.path}: no cassette there (record one with --record {self.directory})")
        records = []
        for number, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise CassetteError(f"{self.path}:{number}: not JSON ({error.msg})") from None
            if not isinstance(record, dict) or record.get("kind") not in ("provider", "tool"):
                raise CassetteError(f"{self.path}:{number}: not a cassette record (kind provider or tool)")
            records.append(record)
        return records

    def add_session(self, session_id: str | None) -> None:
        """A session of the run (the top one, then each sub-agent as it starts): its id is new on every run, so
        the cassette holds ``[SESSION:n]`` instead (a sub-agent's result names its session), and a replayed
        response gets the id of this run's n-th session back (a model resuming a sub-agent by id)."""
        if session_id and session_id not in self._sessions:
            self._sessions.append(session_id)

    def _placeholders(self, value: Any) -> Any:
        if not self._sessions:
            return value
        text = json.dumps(value, ensure_ascii=False)
        for number, session_id in enumerate(self._sessions, start=1):
            text = text.replace(session_id, f"[SESSION:{number}]")
        return json.loads(text)

    def _ids(self, value: Any) -> Any:
        if not self._sessions:
            return value
        text = json.dumps(value, ensure_ascii=False)
        for number, session_id in enumerate(self._sessions, start=1):
            text = text.replace(f"[SESSION:{number}]", session_id)
        return json.loads(text)

    def _view(self, request: ChatRequest) -> dict[str, Any]:
        return self._placeholders(self.mask(request_view(request)))

    def _append(self, record: dict[str, Any]) -> None:
        record = {"cassette_version": CASSETTE_VERSION, **self._placeholders(self.mask(record))}
        self._records.append(record)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    # -- providers -------------------------------------------------------------------------------------
    def recorded_providers(self) -> dict[str, dict[str, Any]]:
        """Provider name -> the attributes it had when recorded (default_model, priority), first call wins."""
        found: dict[str, dict[str, Any]] = {}
        for record in self._records:
            if record["kind"] == "provider":
                found.setdefault(record["provider"], record.get("attributes") or {})
        return found

    def record_call(self, provider: str, attributes: dict[str, Any], request: ChatRequest,
                    events: list[tuple[str, dict[str, Any]]], response: ChatResponse) -> None:
        view = self._view(request)
        self._append({"kind": "provider", "provider": provider, "attributes": attributes, "digest": digest(view),
                      "request": view, "events": [{"event": name, "data": data} for name, data in events],
                      "response": response.model_dump(mode="json", exclude_none=True)})

    def answer(self, provider: str, request: ChatRequest) -> dict[str, Any]:
        """The recorded call that matches ``request`` (the first unused one), or raise ReplayMismatch."""
        if self.failure is not None:
            raise self.failure
        self._provider_calls += 1
        view = self._view(request)
        wanted = digest(view)
        candidates = [(index, record) for index, record in enumerate(self._records)
                      if record["kind"] == "provider" and index not in self._used]
        for index, record in candidates:
            if record.get("digest") == wanted and record.get("provider") == provider:
                self._used.add(index)
                return self._ids(record)
        self.failure = ReplayMismatch(self._explain(provider, view, [record for _, record in candidates]))
        raise self.failure

    def _explain(self, provider: str, view: dict[str, Any], candidates: list[dict[str, Any]]) -> str:
        head = f"replay of {self.path}: request {self._provider_calls} to provider '{provider}' is not in the cassette"
        same_provider = [record for record in candidates if record.get("provider") == provider]
        if not same_provider:
            return f"{head}: the cassette has no more requests to '{provider}' (record the run again)"
        messages = view["messages"]

        def common(record: dict[str, Any]) -> int:
            recorded = record["request"].get("messages", [])
            count = 0
            while count < min(len(recorded), len(messages)) and recorded[count] == messages[count]:
                count += 1
            return count

        nearest = max(same_provider, key=common)
        recorded = nearest["request"].get("messages", [])
        position = common(nearest)
        if position < len(messages) or position < len(recorded):
            now = messages[position] if position < len(messages) else None
            then = recorded[position] if position < len(recorded) else None
            role = (now or then or {}).get("role", "?")
            if now and then and now.get("content") == then.get("content"):
                fields = sorted(key for key in {*now, *then} if now.get(key) != then.get(key))
                return f"{head}: message {position + 1} ({role}) differs in {', '.join(fields)}"
            return (f"{head}: message {position + 1} ({role}) differs: recorded "
                    f"{_short(then.get('content') if then else '(none)')!s}, now "
                    f"{_short(now.get('content') if now else '(none)')!s}")
        if nearest["request"].get("model") != view["model"]:
            return f"{head}: the model differs: recorded {nearest['request'].get('model')}, now {view['model']}"
        return f"{head}: the tools differ from the recorded request's"

    # -- tools -----------------------------------------------------------------------------------------
    def _tool_digest(self, tool: str, arguments: Any) -> str:
        return digest(self._placeholders(self.mask({"tool": tool, "input": arguments})))

    def record_tool(self, tool: str, arguments: Any, result: Any) -> None:
        dumped = result.model_dump(mode="json", exclude_none=True) if isinstance(result, ToolResult) else result
        self._append({"kind": "tool", "tool": tool, "digest": self._tool_digest(tool, arguments),
                      "input": arguments, "result": dumped})

    def tool_result(self, tool: str, arguments: Any) -> ToolResult:
        if self.failure is not None:
            raise self.failure
        wanted = self._tool_digest(tool, arguments)
        for index, record in enumerate(self._records):
            if record["kind"] == "tool" and index not in self._used and record.get("digest") == wanted:
                self._used.add(index)
                return ToolResult.model_validate(self._ids(record["result"]))
        self.failure = ReplayMismatch(
            f"replay of {self.path}: no recorded result of tool '{tool}' for input {_short(arguments)}")
        raise self.failure


class CassetteProvider:
    """A mounted provider behind the cassette: records its calls, or answers them from the cassette without
    calling it (``inner`` is None on replay when the provider could not mount, e.g. no key)."""

    def __init__(self, name: str, inner: Any, cassette: Cassette, hooks: Any,
                 attributes: dict[str, Any] | None = None) -> None:
        self._name = name
        self._inner = inner
        self._cassette = cassette
        self._hooks = hooks
        self._attributes = attributes or {}
        self._capture: list[tuple[str, dict[str, Any]]] | None = None
        if cassette.mode == "record" and hooks is not None:
            for event in STREAM_EVENTS:
                hooks.register(event, self._on_stream_event, priority=-1000, name="cassette-record")

    def __getattr__(self, attribute: str) -> Any:
        inner = self.__dict__.get("_inner")
        if inner is not None:
            return getattr(inner, attribute)
        if attribute in self.__dict__.get("_attributes", {}):
            return self._attributes[attribute]
        raise AttributeError(attribute)

    @property
    def name(self) -> str:
        return self._name

    def get_info(self) -> Any:
        if self._inner is not None:
            return self._inner.get_info()
        from .models import ProviderInfo

        return ProviderInfo(id=self._name, display_name=f"{self._name} (replayed)")

    async def list_models(self) -> list[Any]:
        return await self._inner.list_models() if self._inner is not None else []

    def parse_tool_calls(self, response: ChatResponse) -> list[Any]:
        if self._inner is not None and hasattr(self._inner, "parse_tool_calls"):
            return self._inner.parse_tool_calls(response)
        return list(response.tool_calls or [])

    async def _on_stream_event(self, event: str, data: dict[str, Any]) -> None:
        if self._capture is not None and data.get("provider") == self._name:
            self._capture.append((event, {key: value for key, value in data.items() if key not in _REGISTRY_FIELDS}))

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        if self._cassette.mode == "replay":
            record = self._cassette.answer(self._name, request)
            if request.stream and self._hooks is not None:
                for item in record.get("events") or []:
                    await self._hooks.emit(item["event"], dict(item["data"]))
            return ChatResponse.model_validate(record["response"])
        self._capture = []
        try:
            response = await self._inner.complete(request, **kwargs)
            events = self._capture
        finally:
            self._capture = None
        attributes = {key: value for key in _PROVIDER_ATTRIBUTES
                      if isinstance(value := getattr(self._inner, key, None), str | int)}
        self._cassette.record_call(self._name, attributes, request, events, response)
        return response


class CassetteTool:
    """A mounted tool behind the cassette: its results are recorded; with ``replay_tools`` they are replayed."""

    def __init__(self, name: str, inner: Any, cassette: Cassette) -> None:
        self._name = name
        self._inner = inner
        self._cassette = cassette

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.__dict__["_inner"], attribute)

    @property
    def name(self) -> str:
        return getattr(self._inner, "name", self._name)

    @property
    def description(self) -> str:
        return getattr(self._inner, "description", "")

    @property
    def input_schema(self) -> dict[str, Any]:
        return getattr(self._inner, "input_schema", {})

    async def execute(self, input: dict[str, Any]) -> Any:
        if self._cassette.mode == "replay" and self._cassette.replay_tools:
            return self._cassette.tool_result(self._name, input)
        result = await self._inner.execute(input)
        if self._cassette.mode == "record":
            self._cassette.record_tool(self._name, input, result)
        return result


def attach_cassette(coordinator: Any, cassette: Cassette) -> None:
    """Put the session's mounted providers and tools behind ``cassette``; on replay, stand in for every recorded
    provider that did not mount (no key is needed to replay)."""
    cassette.add_session(getattr(coordinator, "session_id", None))
    providers = coordinator.mount_points.get("providers")
    if providers is None:
        providers = coordinator.mount_points["providers"] = {}
    for name, provider in list(providers.items()):
        if not isinstance(provider, CassetteProvider):
            providers[name] = CassetteProvider(name, provider, cassette, coordinator.hooks)
    if cassette.mode == "replay":
        for name, attributes in cassette.recorded_providers().items():
            if name not in providers:
                providers[name] = CassetteProvider(name, None, cassette, coordinator.hooks, attributes)
    tools = coordinator.mount_points.get("tools") or {}
    for name, tool in list(tools.items()):
        if not isinstance(tool, CassetteTool):
            tools[name] = CassetteTool(name, tool, cassette)
