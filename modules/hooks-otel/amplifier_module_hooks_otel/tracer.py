"""One session's events as spans and metrics, named by the OpenTelemetry GenAI semantic conventions.

Spans: ``amplifier session`` (whole session) > ``invoke_agent amplifier`` (one turn: execution:start to
execution:end) > ``chat {model}`` (one provider request: provider:request to provider:response/error, with
llm:response's usage and cost) and ``execute_tool {name}`` (tool:pre to tool:post/error). A sub-agent's session
span is a child of the ``execute_tool task`` span that started it: the tool span is kept in a context variable
while the tool runs, and the sub-agent's session starts inside that call. Every session span also carries its
parent's id (``amplifier.parent_session.id``), so a backend can join them even when the context is lost.

Metrics: ``gen_ai.client.token.usage`` and ``gen_ai.client.operation.duration`` per model call, and
``amplifier.client.cost`` (USD) for calls the provider priced.
"""

from __future__ import annotations

import logging
import os
import time
from contextvars import ContextVar
from typing import Any

from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, set_span_in_context

from amplifier_support.capability_names import REDACTION_REDACT, SECRETS_VALUES, SESSION_DEPTH
from amplifier_support.secret_values import SecretValues

from .content import ContentPolicy, header_secrets, response_messages, text_message
from .pipeline import Pipeline, release_pipeline
from .settings import OtelSettings

logger = logging.getLogger(__name__)

AGENT_NAME = "amplifier"
KNOWN_PROVIDERS = ("anthropic", "openai")  # gen_ai.provider.name values, recognised in a provider's name/module

# The span of the tool call running in this task (each tool call runs in its own task): a sub-agent's session
# started by that call finds its parent here.
_running_tool_span: ContextVar[Span | None] = ContextVar("amplifier_hooks_otel_tool_span", default=None)


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


class SessionTracer:
    """Registered on one session's hooks; owns that session's open spans."""

    def __init__(self, coordinator: Any, settings: OtelSettings, pipeline: Pipeline) -> None:
        self.coordinator = coordinator
        self.settings = settings
        self.pipeline = pipeline
        self.tracer = pipeline.tracer
        given = self._capability(SECRETS_VALUES)
        named = {**header_secrets(dict(settings.headers or ()), os.environ),
                 **(given if isinstance(given, dict) else {})}
        self.content = ContentPolicy(settings.capture_content, settings.max_content_length,
                                     SecretValues.from_environment(named), redact=self._redact)
        self.session_span: Span | None = None
        self.turn_span: Span | None = None
        self.chat_span: Span | None = None
        self.chat_attributes: dict[str, Any] = {}
        self.tool_spans: dict[str, Span] = {}
        self._unregister: list[Any] = []
        self._released = False

    # -- wiring ------------------------------------------------------------------------------------------
    def register(self) -> None:
        handlers = {
            "session:start": self.on_session_start, "session:resume": self.on_session_start,
            "session:end": self.on_session_end, "execution:start": self.on_execution_start,
            "orchestrator:complete": self.on_orchestrator_complete, "execution:end": self.on_execution_end,
            "provider:request": self.on_provider_request, "llm:request": self.on_llm_request,
            "llm:response": self.on_llm_response, "provider:response": self.on_provider_response,
            "provider:error": self.on_provider_error, "tool:pre": self.on_tool_pre, "tool:post": self.on_tool_post,
            "tool:error": self.on_tool_error,
        }
        for event, handler in handlers.items():
            self._unregister.append(self.coordinator.hooks.register(
                event, self._guarded(handler), priority=self.settings.priority, name="hooks-otel"))

    def _guarded(self, handler: Any) -> Any:
        """Telemetry never fails a run: a handler error is one debug line; events of other sessions are skipped."""

        async def handle(event: str, data: dict[str, Any]) -> None:
            own = getattr(self.coordinator, "session_id", None)
            sender = data.get("session_id") if isinstance(data, dict) else None
            if own and sender and sender != own:
                return None
            try:
                handler(event, data if isinstance(data, dict) else {})
            except Exception as error:
                logger.debug("hooks-otel: %s handler failed: %s", event, error)
            return None

        return handle

    def _capability(self, name: str) -> Any:
        getter = getattr(self.coordinator, "get_capability", None)
        return getter(name) if callable(getter) else None

    def _redact(self, value: Any) -> Any:
        redact = self._capability(REDACTION_REDACT)  # looked up per use: hooks-redaction may mount after us
        return redact(value) if callable(redact) else value

    def _set(self, span: Span | None, name: str, value: Any) -> None:
        if span is not None and value is not None and value != "":
            span.set_attribute(name, value)

    def _provider_name(self, name: Any) -> str:
        """gen_ai.provider.name: ``anthropic``/``openai`` when the mounted provider is one of them (also under an
        instance name), else the provider's own name."""
        text = str(name or "unknown")
        providers = getattr(self.coordinator, "get", lambda _: None)("providers") or {}
        module = type(providers.get(text)).__module__ if isinstance(providers, dict) and text in providers else ""
        for known in KNOWN_PROVIDERS:
            if known in text.lower() or known in module:
                return known
        return text

    # -- session -----------------------------------------------------------------------------------------
    def _session_id(self, data: dict[str, Any]) -> str:
        return str(data.get("session_id") or getattr(self.coordinator, "session_id", None) or "")

    def _ensure_session(self, data: dict[str, Any], resumed: bool = False) -> Span:
        if self.session_span is not None:
            return self.session_span
        parent = _running_tool_span.get()
        context = set_span_in_context(parent) if parent is not None else Context()
        session_id = self._session_id(data)
        span = self.tracer.start_span("amplifier session", context=context, kind=SpanKind.INTERNAL)
        self._set(span, "gen_ai.conversation.id", session_id)
        self._set(span, "amplifier.session.id", session_id)
        self._set(span, "amplifier.session.resumed", resumed)
        self._set(span, "amplifier.parent_session.id",
                  data.get("parent_id") or getattr(self.coordinator, "parent_id", None))
        depth = self._capability(SESSION_DEPTH)
        self._set(span, "amplifier.session.depth", depth if isinstance(depth, int) else None)
        self.session_span = span
        return span

    def on_session_start(self, event: str, data: dict[str, Any]) -> None:
        self._ensure_session(data, resumed=event == "session:resume")

    def on_session_end(self, event: str, data: dict[str, Any]) -> None:
        self._end_turn(None)
        if self.session_span is None:
            return
        status = data.get("status")
        self._set(self.session_span, "amplifier.session.status", status)
        if status == "failed":
            self.session_span.set_status(Status(StatusCode.ERROR))
        self.session_span.end()
        self.session_span = None

    # -- turn ----------------------------------------------------------------------------------------------
    def _parent(self) -> Context:
        span = self.turn_span or self.session_span
        return set_span_in_context(span) if span is not None else Context()

    def on_execution_start(self, event: str, data: dict[str, Any]) -> None:
        session = self._ensure_session(data)
        self._end_turn(None)
        span = self.tracer.start_span(f"invoke_agent {AGENT_NAME}", context=set_span_in_context(session),
                                      kind=SpanKind.INTERNAL)
        span.set_attribute("gen_ai.operation.name", "invoke_agent")
        span.set_attribute("gen_ai.agent.name", AGENT_NAME)
        self._set(span, "gen_ai.conversation.id", self._session_id(data))
        prompt = data.get("prompt")
        self._set(span, "gen_ai.input.messages",
                  self.content.captured(text_message("user", prompt) if isinstance(prompt, str) else None))
        self.turn_span = span

    def on_orchestrator_complete(self, event: str, data: dict[str, Any]) -> None:
        span = self.turn_span
        if span is None:
            return
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        self._set(span, "gen_ai.usage.input_tokens", usage.get("input_tokens"))
        self._set(span, "gen_ai.usage.output_tokens", usage.get("output_tokens"))
        self._set(span, "amplifier.usage.cost_usd", _number(usage.get("cost_usd")))
        self._set(span, "amplifier.turn.requests", data.get("turn_count"))
        if data.get("provider"):
            self._set(span, "gen_ai.provider.name", self._provider_name(data.get("provider")))
        self._set(span, "gen_ai.request.model", data.get("model"))

    def on_execution_end(self, event: str, data: dict[str, Any]) -> None:
        response = data.get("response")
        status = data.get("status")
        if self.turn_span is not None and isinstance(response, str) and response:
            self._set(self.turn_span, "gen_ai.output.messages",
                      self.content.captured(text_message("assistant", response, str(status or "") or None)))
        self._end_turn(status)

    def _end_turn(self, status: Any) -> None:
        """End the turn and whatever it left open (a denied request, a cancelled tool)."""
        for call_id in list(self.tool_spans):
            self.tool_spans.pop(call_id).end()
        if self.chat_span is not None:
            self.chat_span.end()
            self.chat_span = None
        if self.turn_span is None:
            return
        self._set(self.turn_span, "amplifier.turn.status", status)
        if status == "error":
            self.turn_span.set_status(Status(StatusCode.ERROR))
        self.turn_span.end()
        self.turn_span = None

    # -- provider requests ---------------------------------------------------------------------------------
    def _chat_attributes(self, provider: Any, model: Any) -> dict[str, Any]:
        system = self._provider_name(provider)
        attributes: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": system,
                                      "gen_ai.system": system}
        if model:
            attributes["gen_ai.request.model"] = str(model)
        return attributes

    def on_provider_request(self, event: str, data: dict[str, Any]) -> None:
        if self.chat_span is not None:
            self.chat_span.end()
        model = data.get("model")
        self.chat_attributes = self._chat_attributes(data.get("provider"), model)
        span = self.tracer.start_span(f"chat {model}" if model else "chat", context=self._parent(),
                                      kind=SpanKind.CLIENT, attributes=self.chat_attributes)
        self._set(span, "amplifier.provider.name", data.get("provider"))
        self._set(span, "amplifier.iteration", data.get("iteration"))
        self.chat_span = span

    def on_llm_request(self, event: str, data: dict[str, Any]) -> None:
        """The provider names the model it asks for (the loop may not know it: the provider's default)."""
        model = data.get("model")
        if self.chat_span is not None and model and "gen_ai.request.model" not in self.chat_attributes:
            self.chat_attributes["gen_ai.request.model"] = str(model)
            self.chat_span.set_attribute("gen_ai.request.model", str(model))
            self.chat_span.update_name(f"chat {model}")

    def on_llm_response(self, event: str, data: dict[str, Any]) -> None:
        span = self.chat_span
        standalone = span is None  # a model call outside the loop's requests (e.g. a summary for compaction)
        attributes = dict(self.chat_attributes) if span is not None else self._chat_attributes(
            data.get("provider"), data.get("model"))
        if data.get("model") and "gen_ai.request.model" not in attributes:
            attributes["gen_ai.request.model"] = str(data["model"])
        duration = _number(data.get("duration_ms"))
        if standalone:
            started = time.time_ns() - int((duration or 0) * 1_000_000)
            span = self.tracer.start_span(f"chat {data.get('model') or ''}".strip(), context=self._parent(),
                                          kind=SpanKind.CLIENT, attributes=attributes, start_time=started)
        assert span is not None
        metric_attributes = dict(attributes)
        metric_attributes.pop("gen_ai.system", None)
        if data.get("status") == "error":
            error_type = str(data.get("error_type") or "error")
            span.set_attribute("error.type", error_type)
            metric_attributes["error.type"] = error_type
        else:
            usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
            for key, name in (("input_tokens", "gen_ai.usage.input_tokens"),
                              ("output_tokens", "gen_ai.usage.output_tokens"),
                              ("cache_read_tokens", "gen_ai.usage.cache_read.input_tokens"),
                              ("cache_write_tokens", "gen_ai.usage.cache_creation.input_tokens"),
                              ("reasoning_tokens", "amplifier.usage.reasoning_tokens")):
                if isinstance(usage.get(key), int):
                    span.set_attribute(name, usage[key])
            if data.get("finish_reason"):
                span.set_attribute("gen_ai.response.finish_reasons", [str(data["finish_reason"])])
            cost = _number(data.get("cost_usd"))
            self._set(span, "amplifier.usage.cost_usd", cost)
            for token_type in ("input", "output"):
                count = usage.get(f"{token_type}_tokens")
                if isinstance(count, int):
                    self.pipeline.token_usage.record(count, {**metric_attributes, "gen_ai.token.type": token_type})
            if cost is not None:
                self.pipeline.cost.add(cost, metric_attributes)
        if duration is not None:
            self.pipeline.operation_duration.record(duration / 1000, metric_attributes)
        if standalone:
            span.end()

    def on_provider_response(self, event: str, data: dict[str, Any]) -> None:
        span = self.chat_span
        if span is None:
            return
        response = data.get("response") if isinstance(data.get("response"), dict) else {}
        metadata = response.get("metadata") if isinstance(response.get("metadata"), dict) else {}
        self._set(span, "gen_ai.response.model", metadata.get("model"))
        response_id = next((value for key, value in metadata.items() if key.endswith(("message_id", "response_id"))
                            and isinstance(value, str)), None)
        self._set(span, "gen_ai.response.id", response_id)
        self._set(span, "gen_ai.output.messages",
                  self.content.captured(response_messages(response, data.get("finish_reason"))))
        span.end()
        self.chat_span = None

    def on_provider_error(self, event: str, data: dict[str, Any]) -> None:
        span = self.chat_span
        if span is None:
            return
        error = data.get("error")
        error_type = error.get("type") if isinstance(error, dict) else None
        message = error.get("message", error.get("msg")) if isinstance(error, dict) else error
        span.set_attribute("error.type", str(error_type or "error"))
        self._set(span, "http.response.status_code", data.get("status_code"))
        span.set_status(Status(StatusCode.ERROR, self.content.text(message) if message else None))
        span.end()
        self.chat_span = None

    # -- tool calls ------------------------------------------------------------------------------------------
    def _start_tool(self, data: dict[str, Any]) -> Span:
        name = str(data.get("tool_name") or "unknown")
        span = self.tracer.start_span(f"execute_tool {name}", context=self._parent(), kind=SpanKind.INTERNAL)
        span.set_attribute("gen_ai.operation.name", "execute_tool")
        span.set_attribute("gen_ai.tool.name", name)
        span.set_attribute("gen_ai.tool.type", "function")
        self._set(span, "gen_ai.tool.call.id", data.get("tool_call_id"))
        self._set(span, "gen_ai.tool.call.arguments", self.content.captured(data.get("tool_input")))
        return span

    def on_tool_pre(self, event: str, data: dict[str, Any]) -> None:
        call_id = str(data.get("tool_call_id") or "")
        previous = self.tool_spans.pop(call_id, None)
        if previous is not None:
            previous.end()
        span = self._start_tool(data)
        self.tool_spans[call_id] = span
        _running_tool_span.set(span)  # this task runs the tool: a sub-agent it starts is parented here

    def on_tool_post(self, event: str, data: dict[str, Any]) -> None:
        span = self.tool_spans.pop(str(data.get("tool_call_id") or ""), None)
        if span is None:
            return
        result = data.get("result") if isinstance(data.get("result"), dict) else {}
        output = result.get("output") if result.get("output") is not None else result.get("error")
        self._set(span, "gen_ai.tool.call.result", self.content.captured(output))
        if result.get("success") is False:
            span.set_attribute("error.type", "tool_failed")
            span.set_status(Status(StatusCode.ERROR))
        span.end()
        _running_tool_span.set(None)

    def on_tool_error(self, event: str, data: dict[str, Any]) -> None:
        span = self.tool_spans.pop(str(data.get("tool_call_id") or ""), None) or self._start_tool(data)
        error = data.get("error") if isinstance(data.get("error"), dict) else {}
        span.set_attribute("error.type", str(error.get("type") or "error"))
        message = self.content.captured(error.get("msg"))  # a tool's error message may quote its arguments
        span.set_status(Status(StatusCode.ERROR, message))
        span.end()
        _running_tool_span.set(None)

    # -- end -------------------------------------------------------------------------------------------------
    def close(self) -> None:
        """Session cleanup: stop listening, end what is still open, hand the pipeline back (the last user
        flushes it, bounded by ``flush_timeout``)."""
        if self._released:
            return
        self._released = True
        for unregister in self._unregister:
            try:
                unregister()
            except Exception as error:
                logger.debug("hooks-otel: unregistering a handler failed: %s", error)
        self._end_turn(None)
        if self.session_span is not None:
            self.session_span.end()
            self.session_span = None
        release_pipeline(self.pipeline, self.settings.flush_timeout)
