"""One ACP session: an open LiveSession, and the translation between its events and the editor.

Everything a session does (open, turn, approvals, cancel, budgets, checkpoints, saving) is the app's sessions
layer, as for the chat and `amplifier run`; this file only turns the session's events into `session/update`
notifications (text and thinking chunks, tool calls with kind, title, locations and content, the plan, usage)
and the editor's requests into turns. Nothing here writes to stdout: only the connection does."""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from amplifier_core import HookResult
from amplifier_support.capability_names import SESSION_SUBAGENTS

from ...sessions.interrupts import TurnControl
from ...sessions.turns import TurnOutcome, run_turn
from .edit_previews import EditPreviews
from .tool_calls import (
    EDIT_TOOLS,
    result_succeeded,
    result_text,
    tool_kind,
    tool_locations,
    tool_path,
    tool_title,
)

if TYPE_CHECKING:
    from ...sessions.live import LiveSession

LATE = 1000  # after hooks-redaction: what the editor sees has its secrets masked
# set while a sub-agent's event is translated: every update it sends carries `_meta` naming the agent
_CHILD_META: ContextVar[dict[str, Any] | None] = ContextVar("acp_child_meta", default=None)


class AcpSession:
    """A LiveSession as the editor sees it, with the connection (``conn``, the SDK's AgentSideConnection)."""

    def __init__(self, agent: Any, live: LiveSession, *, editor_reads: bool) -> None:
        self.agent = agent  # its ``conn`` (the SDK's connection) exists once the SDK is imported
        self.live = live
        self.id = live.session_id
        self.cwd = Path(live.paths.cwd)
        self.control: TurnControl | None = None
        self.cancelled = False  # session/cancel during this prompt, before its turn began (the trust question)
        self.told: list[str] = []  # messages to show at the start of the next prompt (warnings, hook messages)
        self.greeted = False  # before_first_prompt has run
        self.models: list[str] = []  # what the provider offers (offer_models)
        self.opener: Any = None  # async (AcpSession, kept) -> LiveSession: this session opened again (opening.py)
        self._started: set[str] = set()  # tool calls the editor has been told of
        self.edits = EditPreviews(self.cwd, self._read_in_editor if editor_reads else None)

    @property
    def conn(self) -> Any:
        return self.agent.conn

    async def _read_in_editor(self, path: Path) -> str:
        response = await self.conn.read_text_file(session_id=self.id, path=str(path))
        return str(response.content)

    # -- sending ------------------------------------------------------------------------------------------
    async def update(self, update: Any) -> None:
        meta = _CHILD_META.get()
        if meta is not None:
            update = update.model_copy(update={"field_meta": {**(update.field_meta or {}), **meta}})
        try:
            await self.conn.session_update(session_id=self.id, update=update)
        except ConnectionError:  # the editor went away; the turn goes on and is saved
            pass

    async def say(self, text: str) -> None:
        from acp import update_agent_message_text

        await self.update(update_agent_message_text(text))

    # -- events -------------------------------------------------------------------------------------------
    def attach(self) -> None:
        hooks = self.live.coordinator.hooks
        for event, handler in (("content_block:delta", self._on_text), ("thinking:delta", self._on_thinking),
                               ("tool:pre", self._on_tool_pre), ("tool:post", self._on_tool_post),
                               ("tool:error", self._on_tool_error), ("todo:updated", self._on_todos),
                               ("llm:response", self._on_usage), ("provider:retry", self._on_retry)):
            hooks.register(event, handler, priority=LATE, name=f"acp:{event}")
        hub = self.live.coordinator.get_capability(SESSION_SUBAGENTS)
        if hub is not None:
            hub.observe(self._on_child_event)

    async def _on_child_event(self, event: str, data: dict[str, Any], run: Any) -> None:
        """A sub-agent's event, shown as the parent's would be with `_meta.amplifier` naming the agent: its text
        as thought (it is not the answer), its tool calls as tool calls, its status as a line of thought."""
        from acp import update_agent_thought_text

        handlers = {"content_block:delta": self._on_child_text, "thinking:delta": self._on_thinking,
                    "tool:pre": self._on_tool_pre, "tool:post": self._on_tool_post, "tool:error": self._on_tool_error,
                    "llm:response": self._on_usage}
        token = _CHILD_META.set({"amplifier": {"agent": run.agent, "session_id": run.session_id,
                                               "parent_session_id": run.parent_session_id}})
        try:
            if event == "subagent:status":
                await self.update(update_agent_thought_text(
                    f"[agent {run.agent} {run.session_id[:8]}: {data.get('status')}]\n"))
            elif event in handlers:
                await handlers[event](event, data)
        finally:
            _CHILD_META.reset(token)

    async def _on_child_text(self, event: str, data: dict[str, Any]) -> HookResult:
        from acp import update_agent_thought_text

        if data.get("block_type", "text") == "text" and data.get("delta"):
            await self.update(update_agent_thought_text(str(data["delta"])))
        return HookResult()

    async def _on_text(self, event: str, data: dict[str, Any]) -> HookResult:
        if data.get("block_type", "text") == "text" and data.get("delta"):
            await self.say(str(data["delta"]))
        return HookResult()

    async def _on_thinking(self, event: str, data: dict[str, Any]) -> HookResult:
        from acp import update_agent_thought_text

        if data.get("delta"):
            await self.update(update_agent_thought_text(str(data["delta"])))
        return HookResult()

    async def _on_tool_pre(self, event: str, data: dict[str, Any]) -> HookResult:
        from acp import start_tool_call

        call_id, name, arguments = _call_of(data)
        path = tool_path(arguments, self.cwd)
        content = None
        if name in EDIT_TOOLS and path is not None:
            content = await self.edits.propose(call_id, name, arguments, path)
        self._started.add(call_id)
        await self.update(start_tool_call(
            call_id, tool_title(name, arguments, self.cwd), kind=tool_kind(name), status="pending",  # type: ignore[arg-type]
            locations=tool_locations(path), raw_input=arguments, content=content))
        return HookResult()

    async def _on_tool_post(self, event: str, data: dict[str, Any]) -> HookResult:
        from acp import update_tool_call

        call_id = _call_of(data)[0]
        result = data.get("result")
        succeeded = result_succeeded(result)
        content = self.edits.diff_of(call_id) if succeeded else None
        await self.update(update_tool_call(
            call_id, status="completed" if succeeded else "failed",
            content=content or _text_content(result_text(result)), raw_output=_raw(result)))
        self.edits.forget(call_id)
        return HookResult()

    async def _on_tool_error(self, event: str, data: dict[str, Any]) -> HookResult:
        from acp import start_tool_call, update_tool_call

        call_id, name, arguments = _call_of(data)
        error = data.get("error")
        message = str(error.get("msg") or error.get("type") or "") if isinstance(error, dict) else str(error or "")
        self.edits.forget(call_id)
        if call_id in self._started:
            await self.update(update_tool_call(call_id, status="failed", content=_text_content(message)))
        else:  # refused before the editor heard of it (plan mode, a rule): one failed call
            self._started.add(call_id)
            await self.update(start_tool_call(
                call_id, tool_title(name, arguments, self.cwd), kind=tool_kind(name), status="failed",  # type: ignore[arg-type]
                raw_input=arguments, content=_text_content(message)))
        return HookResult()

    async def _on_todos(self, event: str, data: dict[str, Any]) -> HookResult:
        from acp import plan_entry, update_plan

        todos = data.get("todos")
        if isinstance(todos, list):
            await self.update(update_plan([plan_entry(str(item.get("content") or ""), status=_plan_status(item))
                                           for item in todos if isinstance(item, dict)]))
        return HookResult()

    async def _on_retry(self, event: str, data: dict[str, Any]) -> HookResult:
        """A provider call is tried again: any text the failed attempt streamed comes again (ACP cannot take
        chunks back), so the editor is told why."""
        from acp import update_agent_thought_text

        delay = data.get("delay")
        wait = f" in {float(delay):.1f} s" if isinstance(delay, int | float) else ""
        await self.update(update_agent_thought_text(
            f"\n(the model provider failed: {data.get('message') or data.get('error_type') or 'error'}; trying again"
            f"{wait}, attempt {data.get('attempt')}; text from the failed attempt may repeat)\n"))
        return HookResult()

    async def _on_usage(self, event: str, data: dict[str, Any]) -> HookResult:
        from acp.schema import Cost, UsageUpdate

        usage = data.get("usage") or {}
        used = sum(int(usage.get(key) or 0) for key in ("input_tokens", "output_tokens", "cache_read_tokens",
                                                        "cache_write_tokens"))
        cost = self.live.usage.session.known_cost()
        await self.update(UsageUpdate(session_update="usage_update", used=used, size=self._context_window(),
                                      cost=Cost(amount=float(cost), currency="USD") if cost is not None else None))
        return HookResult()

    def _context_window(self) -> int:
        try:
            window = self.live.active_provider().get_info().defaults.get("context_window")
        except Exception:
            window = None
        return window if isinstance(window, int) and window > 0 else 0

    # -- approvals ----------------------------------------------------------------------------------------
    async def show_call(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        """Tell the editor of a call it has not heard of before asking about it. Sub-agents' calls normally reach
        it first through the hub (_on_child_event); this keeps the protocol whole if one did not."""
        from acp import start_tool_call

        if call_id in self._started:
            return
        self._started.add(call_id)
        path = tool_path(arguments, self.cwd)
        await self.update(start_tool_call(
            call_id, f"{tool_title(name, arguments, self.cwd)} (sub-agent)", kind=tool_kind(name),  # type: ignore[arg-type]
            status="pending", locations=tool_locations(path), raw_input=arguments))

    async def show_question(self, call_id: str, prompt: str) -> None:
        from acp import start_tool_call

        self._started.add(call_id)
        await self.update(start_tool_call(call_id, prompt.splitlines()[0] if prompt else "Approval needed",
                                          kind="other", status="pending", content=_text_content(prompt)))

    async def ask_permission(self, call_id: str, prompt: str, options: list[Any]) -> Any:
        from acp import update_tool_call

        content = _text_content(prompt) + (self.edits.diff_of(call_id) or [])
        return await self.conn.request_permission(session_id=self.id, options=options,
                                                  tool_call=update_tool_call(call_id, content=content))

    async def mark_running(self, call_id: str) -> None:
        from acp import update_tool_call

        await self.update(update_tool_call(call_id, status="in_progress"))

    # -- mode, model, trust -------------------------------------------------------------------------------
    async def set_mode(self, mode: str) -> None:
        from acp.schema import CurrentModeUpdate

        self.live.set_mode(mode)
        await self.update(CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode))

    async def set_model(self, wanted: str) -> tuple[str | None, str]:
        provider, model = self.live.switch_model(wanted)
        await self._send_config()
        return provider, model

    def config_options(self) -> list[dict[str, Any]]:
        """The model as a select option (JSON, as the protocol spells it: sent before the SDK's models may be
        imported): the models the provider offers (once known) and the current one."""
        current = self.live.model_name or "default"
        names = list(dict.fromkeys([current, *self.models]))
        return [{"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": current,
                 "options": [{"value": name, "name": name} for name in names]}]

    def mode_state(self) -> dict[str, Any]:
        from .handshake import MODES

        return {"currentModeId": self.live.mode, "availableModes": [
            {"id": mode, "name": name, "description": description} for mode, name, description in MODES]}

    async def offer_models(self) -> None:
        """Ask the provider which models it offers (a request, so after the session is open) and tell the editor."""
        try:
            self.models = await self.live.model_names()
        except Exception:  # the current model stays the only choice shown
            return
        await self._send_config()

    async def _send_config(self) -> None:
        from acp.schema import ConfigOptionUpdate

        await self.update(ConfigOptionUpdate(session_update="config_option_update",
                                             config_options=self.config_options()))

    async def before_first_prompt(self) -> None:
        """Once, before the first turn: what the session's opening warned about (an untrusted project's ignored
        servers and hooks, a module's warning), then the question whether to trust the project."""
        if self.greeted:
            return
        self.greeted = True
        told, self.told = self.told, []
        for line in told:
            await self.say(f"warning: {line}\n")
        from ...config.trust import project_trust

        if project_trust(self.live.paths).needs_trust and getattr(
                self.live.coordinator.approval_system, "asks_a_person", False):
            await self.offer_trust()

    async def offer_trust(self, *, asked_by_user: bool = False) -> bool:
        from .trust_question import ask_to_trust

        return await ask_to_trust(self, asked_by_user=asked_by_user)

    async def reopen(self) -> None:
        """The same session opened again (after the project was trusted), in place."""
        assert self.opener is not None
        kept, mode = self.live.record.has_messages, self.live.mode
        await self.live.close()
        self.live = await self.opener(self, kept)
        self.live.set_mode(mode)
        self.attach()

    # -- turns --------------------------------------------------------------------------------------------
    async def run(self, prompt: str, images: list[dict[str, Any]]) -> TurnOutcome:
        if self.cancelled:  # the editor cancelled while the prompt waited for an answer of its own
            return TurnOutcome("interrupted")
        self.control = TurnControl(self.live.coordinator, notify=lambda text: None)
        try:
            outcome = await run_turn(self.live, prompt, images, control=self.control)
        finally:
            self.control = None
            self._started.clear()
            self.edits.forget()
        for line in outcome.background_lines():
            await self.say(f"\n({line}; the model can read it with task_output)\n")
        if outcome.budget_stop is not None:
            spent = "; no more model calls in this session" if outcome.ending == "budget_spent" else ""
            await self.say(f"\nStopped: {outcome.budget_stop.message()}{spent}.\n")
        await self._send_info()
        return outcome

    async def _send_info(self) -> None:
        """The session's title (its first prompt, as `session list` shows it) and when it was last active."""
        from acp.schema import SessionInfoUpdate

        metadata = self.live.record.metadata
        title = " ".join((metadata.first_prompt or "").split())[:80] or None
        await self.update(SessionInfoUpdate(session_update="session_info_update", title=title,
                                            updated_at=metadata.updated))

    def response_for(self, outcome: TurnOutcome) -> Any:
        """The `session/prompt` answer: the stop reason and the turn's tokens; a failed turn is an error the
        editor shows (the session stays open and answers the next prompt)."""
        from acp import RequestError
        from acp.schema import PromptResponse, Usage

        ending = outcome.ending
        if outcome.error is not None:
            what = "The model provider failed" if ending == "provider_error" else "The turn failed"
            raise RequestError(-32603, self.live.redacted(f"{what}: {type(outcome.error).__name__}: {outcome.error}"),
                               {"sessionId": self.id})
        turn = self.live.usage.turn
        usage = Usage(total_tokens=turn.input_tokens + turn.output_tokens, input_tokens=turn.input_tokens,
                      output_tokens=turn.output_tokens, cached_read_tokens=turn.cache_read_tokens or None,
                      cached_write_tokens=turn.cache_write_tokens or None)
        return PromptResponse(stop_reason=_stop_reason(outcome), usage=usage)

    def cancel(self) -> None:
        """`session/cancel`: stop the turn at once; a pending permission request ends with it."""
        if self.control is not None:
            self.control.cancel()
        else:
            self.cancelled = True

    async def close(self) -> None:
        self.cancel()
        await self.live.close()


def _plan_status(item: dict[str, Any]) -> Any:
    status = item.get("status")
    return status if status in ("pending", "in_progress", "completed") else "pending"


def _stop_reason(outcome: TurnOutcome) -> str:
    if outcome.ending in ("interrupted", "stopped"):
        return "cancelled"
    if outcome.ending in ("budget", "budget_spent") or outcome.hit_call_limit:
        return "max_turn_requests"
    if outcome.refused:
        return "refusal"
    if outcome.cut_at_max_tokens:
        return "max_tokens"
    return "end_turn"


def _call_of(data: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    arguments = data.get("tool_input")
    return (str(data.get("tool_call_id") or ""), str(data.get("tool_name") or ""),
            arguments if isinstance(arguments, dict) else {})


def _text_content(text: str) -> list[Any]:
    from acp import text_block, tool_content

    return [tool_content(text_block(text))] if text else []


def _raw(result: Any) -> Any:
    return result.model_dump(mode="json") if hasattr(result, "model_dump") else result
