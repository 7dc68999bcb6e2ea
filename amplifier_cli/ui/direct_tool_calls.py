"""`amplifier tool list|info|invoke`: a session's tools listed, and one tool called directly, through the
session's approval hooks and sandbox, with approval asked and progress shown on stderr."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from amplifier_support.capability_names import UI_OUTPUT

from ..errors import UsageError


def _request(profile: str | None) -> Any:
    from ..sessions.request import SessionRequest

    return SessionRequest(profile=profile)


def tool_modules(profile: str | None) -> list[dict[str, Any]]:
    """The profile's tool modules, from its plan only (nothing is imported or mounted)."""
    from ..plans.plan import build_plan

    built = build_plan(None, profile)
    return [{"module": entry["module"], "source": entry.get("source") or "", "profile": built.profile_name}
            for entry in built.plan.get("tools") or []]


def list_tools(profile: str | None) -> list[dict[str, Any]]:
    from ..sessions.direct_tools import tool_descriptions, tools_session

    quiet = {UI_OUTPUT: {"stream": sys.stderr, "show_answer_text": False, "mode": "oneshot", "color": None}}

    async def work() -> list[dict[str, Any]]:
        async with tools_session(_request(profile), capabilities=quiet) as live:
            return tool_descriptions(live)

    return asyncio.run(work())


def tool_info(name: str, profile: str | None) -> dict[str, Any]:
    rows = list_tools(profile)
    for row in rows:
        if row["name"] == name:
            return row
    available = ", ".join(row["name"] for row in rows) or "none"
    raise UsageError.single(f"no tool '{name}' in this profile (available: {available})",
                            fix="pick one of those, or choose the profile that mounts it with --profile/--bundle")


def invoke_tool(name: str, arguments: dict[str, Any], *, profile: str | None, approval: str) -> dict[str, Any]:
    """Call the tool through the session's approval hooks and sandbox; {status, tool, output|error}."""
    from ..sessions.direct_tools import call_tool, tools_session
    from ..sessions.factory import interactive_stdin
    from .approval_systems import approval_for

    approval_system = approval_for(approval, interactive=interactive_stdin() and sys.stderr.isatty())  # type: ignore[arg-type]

    from .display_system import StderrDisplay

    progress = {UI_OUTPUT: {"stream": sys.stderr, "show_answer_text": False, "mode": "oneshot", "color": None}}

    async def work() -> dict[str, Any]:
        async with tools_session(_request(profile), approval_system=approval_system, display_system=StderrDisplay(),
                                 capabilities=progress, keep=True) as live:
            result = await call_tool(live, name, arguments)
            outcome = {"status": "success" if result.success else "error", "tool": name,
                       "session_id": live.session_id}
            if result.output is not None:
                outcome["output"] = result.output
            if result.error:
                outcome["error"] = result.error
            return outcome

    return asyncio.run(work())


def output_text(output: Any) -> str:
    """A tool's output as a person reads it: text as is, a dict's text-like field, else JSON."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict):
        for key in ("content", "stdout", "output", "text"):
            if isinstance(output.get(key), str):
                extra = output.get("stderr")
                return output[key] + (f"\n{extra}" if isinstance(extra, str) and extra else "")
    return json.dumps(output, indent=2, default=str)
