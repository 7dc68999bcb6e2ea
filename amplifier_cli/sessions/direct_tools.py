"""Tools without a model: `amplifier tool list|info|invoke`.

The session is opened by the same factory as `run` (same profile, settings, module resolution, capabilities,
sandbox and approval system), with one change: its providers are replaced by a silent scripted one, since no
model is asked anything (so no key or network is needed to list or call a tool). A call goes the way an
orchestrator sends the model's calls: `tool:pre` (hooks may deny, rewrite the input or ask for approval through
the session's approval system), then `execute`, then `tool:post` (or `tool:error`)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from amplifier_core import events

from .factory import LiveSession, SessionRequest, open_session

SILENT_PROVIDER = {"module": "provider-scripted", "config": {"script": []}}


def _without_model(built: Any) -> None:
    built.plan["providers"] = [dict(SILENT_PROVIDER)]


@asynccontextmanager
async def tools_session(request: SessionRequest, *, approval_system: Any = None, display_system: Any = None,
                        capabilities: dict[str, Any] | None = None, keep: bool = False) -> AsyncIterator[LiveSession]:
    """A session whose tools can be called directly; unless `keep` (invoke: the call's events stay in the
    store like any session's), its directory is removed when it closes."""
    request.plan_overlay = _without_model
    live = await open_session(request, approval_system=approval_system, display_system=display_system,
                              capabilities=capabilities)
    try:
        yield live
    finally:
        await live.close()
        if not keep:
            shutil.rmtree(live.record.directory, ignore_errors=True)


def tool_descriptions(live: LiveSession) -> list[dict[str, Any]]:
    """Name, description and input schema of every mounted tool, sorted by name."""
    rows = []
    for name, tool in sorted((live.coordinator.get("tools") or {}).items()):
        schema = getattr(tool, "input_schema", None) or getattr(tool, "parameters", None) or {}
        rows.append({"name": name, "description": str(getattr(tool, "description", "") or ""),
                     "input_schema": schema, "module": _module_id(type(tool).__module__)})
    return rows


def _module_id(python_module: str) -> str:
    package = python_module.split(".")[0]
    from amplifier_core.module_ids import PACKAGE_PREFIX, id_from_name

    return id_from_name(package) if package.startswith(PACKAGE_PREFIX) else package


@dataclass
class ToolCallResult:
    success: bool
    output: Any
    error: str | None = None
    denied: bool = False


async def call_tool(live: LiveSession, name: str, arguments: dict[str, Any]) -> ToolCallResult:
    """One call framed as the model's: tool:pre (approval), execute, tool:post / tool:error."""
    coordinator = live.coordinator
    tools = coordinator.get("tools") or {}
    data = {"tool_name": name, "tool_input": arguments, "tool_call_id": f"cli_{uuid.uuid4().hex[:12]}",
            "parallel_group_id": str(uuid.uuid4())}
    pre = await coordinator.hooks.emit(events.TOOL_PRE, data)
    pre = await coordinator.process_hook_result(pre, events.TOOL_PRE, hook_name="tool:pre hook")
    if pre.action == "deny":
        reason = pre.reason or "a hook denied this tool call"
        await _emit_error(coordinator, data, "ToolDenied", reason)
        return ToolCallResult(False, None, f"denied: {reason}", denied=True)
    modified = (pre.data or {}).get("tool_input")
    tool_input = modified if isinstance(modified, dict) else arguments
    data = {**data, "tool_input": tool_input}
    tool = tools.get(name)
    if tool is None:
        message = f"tool '{name}' is not mounted (available: {', '.join(sorted(tools)) or 'none'})"
        await _emit_error(coordinator, data, "ToolNotFound", message)
        return ToolCallResult(False, None, message)
    try:
        result = await tool.execute(tool_input)
    except Exception as error:  # the module's failure is the answer, as the model would get it
        message = f"{type(error).__name__}: {error}"
        await _emit_error(coordinator, data, type(error).__name__, str(error))
        return ToolCallResult(False, None, message)
    success = bool(getattr(result, "success", True))
    output = getattr(result, "output", result)
    error_text = getattr(result, "error", None)
    sent = result.model_dump(mode="json") if hasattr(result, "model_dump") else {"output": output}
    post = await coordinator.hooks.emit(events.TOOL_POST, {**data, "result": sent})
    await coordinator.process_hook_result(post, events.TOOL_POST, hook_name="tool:post hook")
    if isinstance(error_text, dict):
        error_text = error_text.get("message") or str(error_text)
    return ToolCallResult(success, output, str(error_text) if error_text else None)


async def _emit_error(coordinator: Any, data: dict[str, Any], kind: str, message: str) -> None:
    result = await coordinator.hooks.emit(events.TOOL_ERROR, {**data, "error": {"type": kind, "msg": message}})
    await coordinator.process_hook_result(result, events.TOOL_ERROR, hook_name="tool:error hook")
