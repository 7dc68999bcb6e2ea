"""tool-task: the `task` tool, which delegates a self-contained piece of work to a sub-agent.

The work runs in a child session that the APP builds (capability `session.spawn`; continuing one uses
`session.resume`), so this module holds no session logic: it checks the delegation depth (capability
`session.depth`, limit `max_depth`), calls the capability, reports the child's answer and session id, and
emits task:agent_spawned / task:agent_resumed / task:agent_completed (with `success` and the `response`).
Context a handler answers (`inject_context`) is handed on, never stored in this session: on spawned/resumed it is
added to the sub-agent's instruction, on completed to the result this session's model reads; a `deny` with a reason
on completed sends the sub-agent back to work with that reason (hook-shell's SubagentStart and SubagentStop hooks
answer so).
The available agents (capability `agents.catalog`, else upstream's `coordinator.config["agents"]`) are
listed in the tool description, read when the tool is offered so it always matches the catalog.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from amplifier_core import ToolResult
from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_support.capability_names import (
    AGENTS_CATALOG,
    OBSERVABILITY_EVENTS,
    SESSION_DEPTH,
    SESSION_RESUME,
    SESSION_SPAWN,
    SESSION_SUBAGENT_OUTPUT,
)

__amplifier_module_type__ = "tool"

logger = logging.getLogger(__name__)

AGENT_SPAWNED = "task:agent_spawned"
AGENT_RESUMED = "task:agent_resumed"
AGENT_COMPLETED = "task:agent_completed"
EVENTS = [AGENT_SPAWNED, AGENT_RESUMED, AGENT_COMPLETED]
DESCRIPTION_CHARS = 300  # per agent, in the tool description
DEFAULT_WAIT_SECONDS = 300.0  # task_output with wait: the longest it waits unless told otherwise
MAX_CONTINUATIONS = 3  # times a handler of task:agent_completed may send a finished sub-agent back to work


class TaskConfig(ModuleConfig):
    max_depth: int = 2
    max_recursion_depth: int | None = None  # upstream's name for max_depth; wins when set
    exclude_tools: list[str] = []
    exclude_hooks: list[str] = []


class TaskTool:
    """`task {agent, instruction}` starts a sub-agent; `task {session_id, instruction}` continues one."""

    name = "task"
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "agent": {"type": "string", "description": "Name of the agent to start (see the list above)."},
            "instruction": {
                "type": "string",
                "description": "The complete task: goal, relevant context, constraints and what to report back. "
                "The sub-agent does not see this conversation.",
            },
            "session_id": {
                "type": "string",
                "description": "Continue an earlier sub-agent (the session_id from its result) instead of "
                "starting a new one; it remembers its own work.",
            },
            "run_in_background": {
                "type": "boolean",
                "description": "Start the sub-agent and return at once with its session_id; you go on working "
                "and read its result later with task_output.",
            },
        },
        "required": ["instruction"],
    }

    def __init__(self, config: TaskConfig, coordinator: Any) -> None:
        self._config = config
        self._coordinator = coordinator

    @property
    def max_depth(self) -> int:
        configured = self._config.max_recursion_depth
        return configured if configured is not None else self._config.max_depth

    def agents(self) -> dict[str, str]:
        """name -> description, from the app's catalog or upstream's `agents:` mount-plan mapping."""
        catalog = self._coordinator.get_capability(AGENTS_CATALOG)
        if catalog is None:
            catalog = (self._coordinator.config or {}).get("agents")
        if not isinstance(catalog, dict):
            return {}
        return {str(name): _description_of(name, value) for name, value in sorted(catalog.items())}

    @property
    def description(self) -> str:
        text = (
            "Delegate a self-contained task to a specialised sub-agent. It works in its own session with its own "
            "tools and returns its final answer plus a session_id. Write complete instructions: it does not see "
            "this conversation. Pass session_id (with a new instruction) to continue the same sub-agent later. "
            "Independent tasks may be delegated in parallel. With run_in_background the call returns at once; "
            "read the result later with task_output."
        )
        agents = self.agents()
        if not agents:
            return text + "\n\nNo agents are configured, so there is nothing to delegate to."
        listing = "\n".join(f"- {name}: {_one_paragraph(text)}" for name, text in agents.items())
        return f"{text}\n\nAvailable agents:\n{listing}"

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        input = input or {}
        instruction = input.get("instruction")
        agent = input.get("agent")
        session_id = input.get("session_id")
        if not isinstance(instruction, str) or not instruction.strip():
            return _error("'instruction' is required: the complete task for the sub-agent")
        if session_id is not None and not isinstance(session_id, str):
            return _error("'session_id' must be the session_id string from an earlier task result")
        if not session_id and (not isinstance(agent, str) or not agent):
            names = ", ".join(self.agents()) or "none configured"
            return _error(f"'agent' is required to start a sub-agent (available: {names}); or pass session_id "
                          "to continue one")
        depth = int(self._coordinator.get_capability(SESSION_DEPTH) or 0)
        if depth + 1 > self.max_depth:
            return _error(
                f"Delegation refused: this session is at depth {depth} and the limit is max_depth={self.max_depth}. "
                "Do this work yourself with your own tools.")
        options = {"max_depth": self.max_depth, "exclude_tools": self._config.exclude_tools,
                   "exclude_hooks": self._config.exclude_hooks}
        parent_id = self._coordinator.session_id
        background = input.get("run_in_background") is True
        if session_id:
            if background:
                return _error("run_in_background starts a new sub-agent; continuing one (session_id) runs in the "
                              "foreground")
            return await self._resume(session_id, instruction, agent, parent_id, options)
        if background:
            return await self._spawn_in_background(agent, instruction, parent_id, options)
        return await self._spawn(agent, instruction, parent_id, options)

    async def _spawn_in_background(self, agent: str, instruction: str, parent_id: str | None,
                                   options: dict[str, Any]) -> ToolResult:
        """Start the child and answer with its id at once (``task:agent_completed`` is not emitted for it)."""
        spawn = self._coordinator.get_capability(SESSION_SPAWN)
        if spawn is None or self._coordinator.get_capability(SESSION_SUBAGENT_OUTPUT) is None:
            return _error("background sub-agents are not available here: the app did not provide capabilities "
                          "session.spawn and session.subagent_output; call task without run_in_background")
        if agent not in self.agents():
            names = ", ".join(self.agents()) or "none configured"
            return _error(f"unknown agent '{agent}' (available: {names})")
        child_id = str(uuid.uuid4())
        answer = await self._emit(AGENT_SPAWNED, {"agent": agent, "sub_session_id": child_id,
                                                  "parent_session_id": parent_id, "instruction": instruction,
                                                  "background": True})
        instruction = _with_context(instruction, answer)
        try:
            started = await spawn(agent, instruction, self._coordinator.session, None, child_id, background=True,
                                  **options)
        except Exception as error:
            return _error(str(error), session_id=getattr(error, "session_id", None))
        session_id = (started or {}).get("session_id") or child_id
        return ToolResult(success=True, output={
            "session_id": session_id, "agent": agent, "status": "running",
            "note": "Running in the background. Call task_output with this session_id for its state and result "
                    "(wait: true to wait for it)."})

    async def _spawn(self, agent: str, instruction: str, parent_id: str | None, options: dict[str, Any]) -> ToolResult:
        spawn = self._coordinator.get_capability(SESSION_SPAWN)
        if spawn is None:
            return _error("sub-agents are not available here: the app did not provide capability session.spawn")
        if agent not in self.agents():
            names = ", ".join(self.agents()) or "none configured"
            return _error(f"unknown agent '{agent}' (available: {names})")
        child_id = str(uuid.uuid4())
        answer = await self._emit(AGENT_SPAWNED, {"agent": agent, "sub_session_id": child_id,
                                                  "parent_session_id": parent_id, "instruction": instruction})
        instruction = _with_context(instruction, answer)
        call = spawn(agent, instruction, self._coordinator.session, None, child_id, **options)
        return await self._finish(call, agent, child_id, parent_id, options)

    async def _resume(self, session_id: str, instruction: str, agent: Any, parent_id: str | None,
                      options: dict[str, Any]) -> ToolResult:
        resume = self._coordinator.get_capability(SESSION_RESUME)
        if resume is None:
            return _error("sub-agents cannot be continued here: the app did not provide capability session.resume")
        answer = await self._emit(AGENT_RESUMED, {"agent": agent if isinstance(agent, str) else None,
                                                  "sub_session_id": session_id, "parent_session_id": parent_id,
                                                  "instruction": instruction})
        instruction = _with_context(instruction, answer)
        return await self._finish(resume(session_id, instruction, **options), agent, session_id, parent_id,
                                  options)

    async def _finish(self, call: Any, agent: Any, session_id: str, parent_id: str | None,
                      options: dict[str, Any]) -> ToolResult:
        """Await the child and report it. A handler denying ``task:agent_completed`` (with a reason) asks that the
        child go on: it is continued with the reason as its next instruction (at most ``MAX_CONTINUATIONS``
        times; the event then says ``stop_hook_active``), as Claude Code does for a blocking SubagentStop hook."""
        completed = {"agent": agent if isinstance(agent, str) else None, "sub_session_id": session_id,
                     "parent_session_id": parent_id}
        continuations = 0
        while True:
            try:
                outcome = await call
            except asyncio.CancelledError:
                await self._emit(AGENT_COMPLETED, {**completed, "success": False, "status": "cancelled"})
                raise
            except Exception as error:
                session_id = getattr(error, "session_id", None) or session_id
                await self._emit(AGENT_COMPLETED, {**completed, "sub_session_id": session_id, "success": False,
                                                   "status": "failed", "error": str(error)})
                return _error(str(error), session_id=getattr(error, "session_id", None))
            outcome = outcome if isinstance(outcome, dict) else {"response": outcome}
            response = outcome.get("response", outcome.get("output"))
            session_id = outcome.get("session_id") or session_id
            status = outcome.get("status", "completed")
            agent = outcome.get("agent") or completed["agent"]
            success = status == "completed"
            answer = await self._emit(AGENT_COMPLETED, {
                **completed, "agent": agent, "sub_session_id": session_id, "success": success, "status": status,
                "response": response if isinstance(response, str) else "", "stop_hook_active": continuations > 0})
            go_on = _continue_reason(answer) if success else None
            resume = self._coordinator.get_capability(SESSION_RESUME)
            if go_on is None or resume is None or continuations >= MAX_CONTINUATIONS:
                break
            continuations += 1
            call = resume(session_id, go_on, **options)
        if not success:
            return _error(f"the sub-agent stopped before finishing (status: {status})", session_id=session_id)
        output = {"response": response or "", "session_id": session_id, "agent": agent}
        if isinstance(outcome.get("worktree"), dict):  # `isolation: worktree`: its branch and changed files
            output["worktree"] = outcome["worktree"]
        feedback = _context_of(answer) or go_on  # a request to go on that could not be met: the model reads it
        if feedback:
            output["hook_feedback"] = feedback
        return ToolResult(success=True, output=output)

    async def _emit(self, event: str, data: dict[str, Any]) -> Any:
        """Emit ``event``; the handlers' answer, or None when emitting failed."""
        try:
            return await self._coordinator.hooks.emit(event, data)
        except Exception as error:  # an observer must not break delegation
            logger.warning("tool-task: a %s handler failed: %s", event, error)
            return None


def _continue_reason(answer: Any) -> str | None:
    """The reason of a ``deny`` answer to ``task:agent_completed``: what the sub-agent should do before stopping."""
    if getattr(answer, "action", None) != "deny":
        return None
    reason = getattr(answer, "reason", None)
    return reason if isinstance(reason, str) and reason.strip() else None


def _context_of(answer: Any) -> str | None:
    """The context a handler answered with (``inject_context``), if any."""
    if getattr(answer, "action", None) != "inject_context":
        return None
    text = getattr(answer, "context_injection", None)
    return text if isinstance(text, str) and text.strip() else None


def _with_context(instruction: str, answer: Any) -> str:
    context = _context_of(answer)
    return f"{instruction}\n\n{context}" if context else instruction


def _description_of(name: Any, value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        meta = value.get("meta") if isinstance(value.get("meta"), dict) else {}
        text = value.get("description") or meta.get("description")
        if isinstance(text, str) and text.strip():
            return text
    return f"Agent: {name}"


def _one_paragraph(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= DESCRIPTION_CHARS else flat[: DESCRIPTION_CHARS - 3] + "..."


def _error(message: str, *, session_id: str | None = None) -> ToolResult:
    if not session_id:
        return ToolResult(success=False, error={"message": message})
    text = f"{message} (sub-agent session_id: {session_id})"
    return ToolResult(success=False, output=text, error={"message": message, "session_id": session_id})


class TaskOutputTool:
    """`task_output {session_id, wait?, timeout?}`: the state of a sub-agent, and its answer once it has finished."""

    name = "task_output"
    description = (
        "Read the state of a sub-agent started with task (run_in_background): running (with its current tool), "
        "completed (with its response), failed or cancelled. With wait: true, wait until it has finished (at most "
        "timeout seconds, default 300)."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "session_id": {"type": "string", "description": "The session_id the task call returned."},
            "wait": {"type": "boolean", "description": "Wait for the sub-agent to finish before answering."},
            "timeout": {"type": "number", "description": "With wait: the most seconds to wait (default 300)."},
        },
        "required": ["session_id"],
    }

    def __init__(self, coordinator: Any) -> None:
        self._coordinator = coordinator

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        input = input or {}
        session_id = input.get("session_id")
        if not isinstance(session_id, str) or not session_id.strip():
            return _error("'session_id' is required: the session_id an earlier task call returned")
        timeout = input.get("timeout", DEFAULT_WAIT_SECONDS)
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
            return _error("'timeout' must be a positive number of seconds")
        read = self._coordinator.get_capability(SESSION_SUBAGENT_OUTPUT)
        if read is None:
            return _error("sub-agent state is not available here: the app did not provide capability "
                          "session.subagent_output")
        try:
            report = await read(session_id.strip(), wait=input.get("wait") is True, timeout=float(timeout))
        except Exception as error:
            return _error(str(error))
        return ToolResult(success=report.get("status") not in ("failed", "cancelled"), output=report,
                          error={"message": report.get("error") or f"the sub-agent {report.get('status')}"}
                          if report.get("status") in ("failed", "cancelled") else None)


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    settings = parse_module_config(TaskConfig, config, "tool-task")
    tool = TaskTool(settings, coordinator)
    await coordinator.mount("tools", tool, name=tool.name)
    output_tool = TaskOutputTool(coordinator)
    await coordinator.mount("tools", output_tool, name=output_tool.name)
    coordinator.register_contributor(OBSERVABILITY_EVENTS, "tool-task", lambda: list(EVENTS))
    return None
