"""The agent turn loop shared by loop-basic (``stream=False``) and loop-streaming (``stream=True``).

One turn: prompt:submit -> store the user message -> [provider:request -> complete() -> provider:response ->
store the assistant message -> run its tool calls in parallel -> store the results in call order]* -> the
answer. Every exit path (answer, wrap-up after max_iterations, cancellation, denial, error) emits
orchestrator:complete and execution:end and leaves a transcript a provider accepts on resume: every tool
call has a result, and a cancelled turn ends with an assistant message saying so.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from amplifier_core import events
from amplifier_core.cancellation import CancellationToken
from amplifier_core.llm_errors import InvalidRequestError, LLMError
from amplifier_core.message_models import ChatRequest, ChatResponse, Message, ToolSpec
from amplifier_core.read_only_messages import request_models
from amplifier_support.capability_names import ORCHESTRATOR_OVERRIDES, PROMPT_IMAGES
from amplifier_support.request_images import fit_images, oversize_problem

from .block_events import announce_blocks
from .config import LoopConfig
from .hook_gate import HookGate, with_ephemeral
from .provider_choice import ProviderChoice, choose_provider
from .tool_round import NOT_RUN_RESULT, ToolOutcome, ToolRound
from .transcript import (
    CANCELLED_NOTE,
    MAX_ITERATIONS_NOTE,
    WRAP_UP_REMINDER,
    PlannedCall,
    answer_text,
    assistant_message,
    planned_calls,
    text_message,
    tool_result_message,
)
from .turn_usage import TurnUsage

logger = logging.getLogger(__name__)


EMPTY_RESPONSE_RETRIES = 2
EMPTY_RESPONSE_NOTE = "The model returned an empty response."
_EXECUTION_STATUS = {"success": "completed", "incomplete": "completed"}


class _RequestDenied(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Turn:
    """State of one execute() call."""

    context: Any
    providers: dict[str, Any]
    tools: dict[str, Any]
    hooks: Any
    gate: HookGate
    token: CancellationToken
    coordinator: Any
    choice: ProviderChoice | None = None
    usage: TurnUsage = field(default_factory=TurnUsage)
    calls_made: int = 0
    open_calls: list[PlannedCall] = field(default_factory=list)
    outcomes: dict[str, ToolOutcome] = field(default_factory=dict)
    tool_specs: list[ToolSpec] | None = None  # set once the coordinator's tools changed during the turn
    mounted_at_start: dict[str, Any] | None = None  # the coordinator's tools when the turn began


def _tool_specs(tools: dict[str, Any]) -> list[ToolSpec]:
    return [ToolSpec(name=name, description=getattr(tool, "description", "") or "", parameters=_tool_schema(tool))
            for name, tool in tools.items()]


def _mounted_tools(turn: _Turn) -> dict[str, Any] | None:
    current = turn.coordinator.get("tools") if turn.coordinator is not None else None
    return dict(current) if isinstance(current, dict) else None


def _follow_mounted_tools(turn: _Turn) -> None:
    """Tools mounted or unmounted on the coordinator since the turn began (an MCP server's tools/list_changed,
    read by a provider:request hook) take part from the next request on; the tools the turn was given otherwise
    stay as they were."""
    current = _mounted_tools(turn)
    if current is None or turn.mounted_at_start is None or current.keys() == turn.mounted_at_start.keys():
        return
    for name in turn.mounted_at_start.keys() - current.keys():
        turn.tools.pop(name, None)
    for name in current.keys() - turn.mounted_at_start.keys():
        turn.tools[name] = current[name]
    turn.mounted_at_start = current
    turn.tool_specs = _tool_specs(turn.tools)


def _user_content(turn: _Turn, prompt: str) -> str | list[dict[str, Any]]:
    """The prompt, followed by the images the app attached to this turn (capability ``prompt.images``: a list
    of ImageBlock dicts, registered for one ``execute``); plain text when there are none."""
    images = turn.coordinator.get_capability(PROMPT_IMAGES) if turn.coordinator is not None else None
    blocks = [dict(image) for image in images or [] if isinstance(image, dict) and image.get("type") == "image"]
    if not blocks:
        return prompt
    return [{"type": "text", "text": prompt}, *blocks]


def _tool_schema(tool: Any) -> dict[str, Any]:
    schema = getattr(tool, "input_schema", None) or getattr(tool, "parameters", None)
    return dict(schema) if isinstance(schema, dict) else {"type": "object", "properties": {}}


def _error_payload(error: BaseException) -> dict[str, Any]:
    return {"type": type(error).__name__, "msg": str(error)}


class AgentLoop:
    """The orchestrator. ``stream`` asks providers to stream (docs/STREAMING.md) and makes the loop emit
    delta events itself for responses the provider did not stream."""

    def __init__(self, config: LoopConfig | None = None, *, stream: bool = False, name: str = "loop-basic") -> None:
        self.config = config or LoopConfig()
        self.stream = stream
        self.name = name
        self._active_tasks: set[asyncio.Future[Any]] = set()
        self._watched_tokens: list[CancellationToken] = []

    # -- entry point -------------------------------------------------------------------------------
    async def execute(self, prompt: str, context: Any, providers: dict[str, Any], tools: dict[str, Any],
                      hooks: Any, coordinator: Any = None, **kwargs: Any) -> str:
        token = coordinator.cancellation if coordinator is not None else CancellationToken()
        self._watch(token)
        if coordinator is not None and hasattr(coordinator, "reset_turn"):
            coordinator.reset_turn()
        turn = _Turn(context=context, providers=dict(providers or {}), tools=dict(tools or {}), hooks=hooks,
                     gate=HookGate(hooks, coordinator), token=token, coordinator=coordinator)
        turn.mounted_at_start = _mounted_tools(turn)
        await hooks.emit(events.EXECUTION_START, {"prompt": prompt})
        try:
            text, status = await self._run(turn, prompt)
        except asyncio.CancelledError:
            await self._seal(turn, closing_note=CANCELLED_NOTE)
            await self._finish(turn, "cancelled", "")
            raise
        except BaseException as error:
            await self._seal(turn, closing_note=None)
            await self._finish(turn, "error", "", error)
            raise
        await self._finish(turn, status, text)
        return text

    def _watch(self, token: CancellationToken) -> None:
        """On immediate cancellation, cancel the running provider call and tools (once per token)."""
        if any(known is token for known in self._watched_tokens):
            return
        self._watched_tokens.append(token)

        async def cancel_running_work() -> None:
            if token.is_immediate:
                for task in list(self._active_tasks):
                    task.cancel()

        token.on_cancel(cancel_running_work)

    # -- the turn ----------------------------------------------------------------------------------
    async def _run(self, turn: _Turn, prompt: str) -> tuple[str, str]:
        submitted = await turn.gate.emit(events.PROMPT_SUBMIT, {"prompt": prompt})
        if submitted.action == "deny":
            return f"Operation denied: {submitted.reason or 'a hook denied the prompt'}", "denied"
        modified_prompt = (submitted.data or {}).get("prompt")
        if isinstance(modified_prompt, str):
            prompt = modified_prompt
        await turn.context.add_message({"role": "user", "content": _user_content(turn, prompt)})
        overrides = turn.coordinator.get_capability(ORCHESTRATOR_OVERRIDES) if turn.coordinator is not None else None
        turn.choice = choose_provider(turn.providers, self.config.default_provider, self.config.model, overrides)
        tool_specs = _tool_specs(turn.tools)
        try:
            return await self._iterate(turn, tool_specs)
        except _RequestDenied as denied:
            note = f"Operation denied: {denied.reason}"
            await self._seal(turn, closing_note=note)
            return note, "denied"

    async def _iterate(self, turn: _Turn, tool_specs: list[ToolSpec]) -> tuple[str, str]:
        limit = self.config.max_iterations
        empty_responses = 0
        while True:
            if turn.token.is_cancelled:
                await self._seal(turn, closing_note=CANCELLED_NOTE)
                return "", "cancelled"
            if limit != -1 and turn.calls_made >= limit:
                return await self._wrap_up(turn, tool_specs)
            response = await self._call_provider(turn, tool_specs)
            if response is None:
                await self._seal(turn, closing_note=CANCELLED_NOTE)
                return "", "cancelled"
            calls = self._tool_calls(turn, response)
            if calls:
                await self._run_tools(turn, response, calls)
                continue
            if not response.content:
                empty_responses += 1
                if empty_responses <= EMPTY_RESPONSE_RETRIES:
                    logger.warning("%s: the provider returned an empty response; asking again", self.name)
                    continue
                await turn.context.add_message(text_message(EMPTY_RESPONSE_NOTE))
                return "", "incomplete"
            await turn.context.add_message(assistant_message(response, []))
            return answer_text(response), "success"

    async def _wrap_up(self, turn: _Turn, tool_specs: list[ToolSpec]) -> tuple[str, str]:
        """After max_iterations: one more call asking for a plain-text summary, with tool_choice "none" (the
        tools stay declared because APIs such as Anthropic's reject tool history without them). Whatever the
        model answers, the turn returns text and stores no unanswered tool call."""
        response = await self._call_provider(turn, tool_specs, wrap_up=True)
        if response is None:
            await self._seal(turn, closing_note=CANCELLED_NOTE)
            return "", "cancelled"
        text = answer_text(response)
        if text:
            await turn.context.add_message(assistant_message(response, [], drop_tool_calls=True))
        else:
            text = MAX_ITERATIONS_NOTE.format(limit=self.config.max_iterations)
            await turn.context.add_message(text_message(text))
        return text, "incomplete"

    def _tool_calls(self, turn: _Turn, response: ChatResponse) -> list[PlannedCall]:
        parse = getattr(turn.choice.provider if turn.choice else None, "parse_tool_calls", None)
        raw: Any = None
        if callable(parse):
            try:
                raw = parse(response)
            except Exception as error:
                logger.warning("%s: parse_tool_calls failed (%s); using response.tool_calls", self.name, error)
        if not raw:
            raw = response.tool_calls or [block for block in response.content if block.type == "tool_call"]
        return planned_calls(raw)

    # -- provider calls ------------------------------------------------------------------------------
    async def _request_messages(self, turn: _Turn) -> list[Message]:
        """The request's messages as models: the context's ready, shared read-only models when it has them
        (context-simple), else each message validated."""
        getter = getattr(turn.context, "get_messages_for_request", None)
        if getter is None:
            return request_models(await turn.context.get_messages())
        try:
            return request_models(await getter(provider=turn.choice.provider if turn.choice else None))
        except TypeError:
            return request_models(await getter())

    async def _call_provider(self, turn: _Turn, tool_specs: list[ToolSpec], *, wrap_up: bool = False
                             ) -> ChatResponse | None:
        """One provider call with its events; None when an immediate cancellation stopped it."""
        choice = turn.choice
        assert choice is not None
        iteration = turn.calls_made + 1
        request_data: dict[str, Any] = {"provider": choice.name, "model": choice.model, "iteration": iteration}
        if wrap_up:
            request_data["max_reached"] = True
        verdict = await turn.gate.emit(events.PROVIDER_REQUEST, request_data)
        if verdict.action == "deny":
            raise _RequestDenied(verdict.reason or "a hook denied the provider request")
        _follow_mounted_tools(turn)
        if turn.tool_specs is not None:
            tool_specs = turn.tool_specs
        messages = with_ephemeral(await self._request_messages(turn), turn.gate.take_ephemeral())
        if wrap_up:
            messages.append(Message(role="user", content=WRAP_UP_REMINDER))
        messages, _ = fit_images(messages)  # earlier images over the request budget are described instead
        too_large = oversize_problem(messages)
        if too_large is not None:  # refused here with a message, not by the provider after an upload
            error = InvalidRequestError(too_large, provider=choice.name, model=choice.model)
            await self._report_provider_error(turn, iteration, error)
            raise error
        request = ChatRequest(
            messages=[],
            tools=tool_specs or None,
            tool_choice="none" if wrap_up and tool_specs else None,
            stream=self.stream,
            model=choice.model,
            reasoning_effort=self.config.reasoning_effort,
            max_output_tokens=self.config.max_output_tokens,
        )
        request.messages = messages  # already Message models: validating the whole history again per call is
        # what made long sessions slow (ChatRequest does not validate on assignment)
        options = {"extended_thinking": True} if self.config.extended_thinking else {}
        turn.calls_made += 1
        task = asyncio.ensure_future(choice.provider.complete(request, **options))
        self._active_tasks.add(task)
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            self._active_tasks.discard(task)
        if task.cancelled() or turn.token.is_immediate:
            return None
        error = task.exception()
        if error is not None:
            await self._report_provider_error(turn, iteration, error)
            raise error
        response: ChatResponse = task.result()
        turn.usage.add(response.usage)
        if not self.stream:
            await announce_blocks(turn.hooks, choice.name, response, with_deltas=False)
        elif not (response.metadata or {}).get("streamed"):
            await announce_blocks(turn.hooks, choice.name, response, with_deltas=True)
        tool_call_count = len(response.tool_calls or [])
        await turn.gate.emit(events.PROVIDER_RESPONSE, {
            "provider": choice.name, "model": choice.model, "iteration": iteration,
            "usage": response.usage.model_dump(mode="json", exclude_none=True) if response.usage else None,
            "tool_calls": tool_call_count > 0, "tool_call_count": tool_call_count,
            "finish_reason": response.finish_reason, "response": response.model_dump(mode="json", exclude_none=True),
        })
        return response

    async def _report_provider_error(self, turn: _Turn, iteration: int, error: BaseException) -> None:
        choice = turn.choice
        data: dict[str, Any] = {"provider": choice.name if choice else None, "model": choice.model if choice else None,
                                "iteration": iteration, "error": _error_payload(error)}
        if isinstance(error, LLMError):
            data["retryable"] = error.retryable
            data["status_code"] = error.status_code
        await turn.hooks.emit(events.PROVIDER_ERROR, data)

    # -- tools -----------------------------------------------------------------------------------------
    async def _run_tools(self, turn: _Turn, response: ChatResponse, calls: list[PlannedCall]) -> None:
        await turn.context.add_message(assistant_message(response, calls))
        turn.open_calls, turn.outcomes = calls, {}
        if not turn.token.is_cancelled:  # a graceful stop asked for during the call: do not start new tools
            await ToolRound(turn.tools, turn.gate, turn.token, self._active_tasks).run(calls, turn.outcomes)
        await self._store_results(turn)
        await turn.gate.flush_deferred()

    async def _store_results(self, turn: _Turn) -> None:
        """Store a result for each open call, in call order. A call leaves ``open_calls`` only once its result
        is stored, so a cancellation between two stores leaves the rest for ``_seal``."""
        while turn.open_calls:
            call = turn.open_calls[0]
            outcome = turn.outcomes.get(call.id)
            await turn.context.add_message(tool_result_message(call, outcome.content if outcome else NOT_RUN_RESULT,
                                                               outcome.images if outcome else ()))
            turn.open_calls.pop(0)

    # -- endings -----------------------------------------------------------------------------------------
    async def _seal(self, turn: _Turn, closing_note: str | None) -> None:
        """Pair every stored tool call with a result and, when given, close the turn with an assistant note.
        Best effort: a failing context must not hide the original error."""
        try:
            if turn.open_calls:
                await self._store_results(turn)
            if closing_note:
                await turn.context.add_message(text_message(closing_note))
        except Exception:
            logger.exception("%s: could not close the transcript of the interrupted turn", self.name)

    async def _finish(self, turn: _Turn, status: str, text: str, error: BaseException | None = None) -> None:
        choice = turn.choice
        if status in ("success", "incomplete"):
            await turn.hooks.emit(events.PROMPT_COMPLETE, {"response": text, "response_preview": text[:200],
                                                           "length": len(text), "status": status})
        complete: dict[str, Any] = {
            "orchestrator": self.name, "turn_count": turn.calls_made, "status": status,
            "usage": turn.usage.to_dict(), "provider": choice.name if choice else None,
            "model": choice.model if choice else None,
        }
        if error is not None:
            complete["error"] = _error_payload(error)
        await turn.hooks.emit(events.ORCHESTRATOR_COMPLETE, complete)
        await turn.hooks.emit(events.EXECUTION_END,
                              {"response": text, "status": _EXECUTION_STATUS.get(status, status)})
