"""Trusting a project from the editor: one permission question showing exactly what the project would run (the
list `amplifier trust` shows); only "Trust this project" trusts it, anything else (the default) keeps it off. Then
the session is opened again, in place, so that what was ignored takes effect."""

from __future__ import annotations

from itertools import count
from typing import Any

_QUESTIONS = count(1)


async def ask_to_trust(session: Any, *, asked_by_user: bool = False) -> bool:
    """``session``: the AcpSession asking (its connection, its LiveSession, and reopen())."""
    from acp import start_tool_call, text_block, tool_content, update_tool_call
    from acp.schema import PermissionOption

    from ...config.trust import describe, project_trust, trust_project

    paths = session.live.paths
    state = project_trust(paths)
    if not state.needs_trust:
        if asked_by_user:
            await session.say("This project ships nothing that waits for trust.\n")
        return False
    call_id = f"trust-{session.id[:8]}-{next(_QUESTIONS)}"  # a later /trust is a question of its own
    shown = [tool_content(text_block("\n".join(describe(state))))]
    await session.update(start_tool_call(call_id, "Trust this project?", kind="other", status="pending",
                                         content=shown))
    question = update_tool_call(call_id, title="Trust this project?", content=shown)
    response = await session.conn.request_permission(session_id=session.id, tool_call=question, options=[
        PermissionOption(option_id="trust", name="Trust this project", kind="allow_once"),
        PermissionOption(option_id="keep-off", name="Not now: keep them off", kind="reject_once")])
    outcome = response.outcome
    trusted = outcome.outcome == "selected" and outcome.option_id == "trust"
    await session.update(update_tool_call(call_id, status="completed" if trusted else "failed"))
    if trusted:
        trust_project(paths, state)
        await session.reopen()
    return trusted
