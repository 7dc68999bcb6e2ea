"""Opening a session for the editor: the CLI's own `open_session` (sessions/factory.py) in the directory the
editor names, with what only an editor brings: its MCP servers (capability `mcp.client_servers`, never written
to the saved plan), its files (capability `editor.files`, only the `fs/*` methods it offered), the approval
system that asks it, and a display that tells it what hooks say. The CLI's sessions are these sessions:
`amplifier session list` shows them and `continue` resumes them."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path
from typing import Any

from amplifier_support.capability_names import EDITOR_FILES, MCP_CLIENT_SERVERS, UI_OUTPUT

from .permission import EditorApproval
from .session import AcpSession

_NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9_-]+")


class EditorDisplay:
    """Messages hooks show (`HookResult.user_message`): to the editor as agent text during a turn, kept for the
    first prompt before that."""

    def __init__(self) -> None:
        self.session: AcpSession | None = None
        self.early: list[str] = []  # said while the session was being opened
        self._sending: set[asyncio.Task[Any]] = set()

    def show_message(self, message: str, level: str = "info", source: str = "hook") -> None:
        line = f"{level}: {message}" if level in ("warning", "error") else message
        session = self.session
        if session is None or not session.greeted:
            (session.told if session is not None else self.early).append(line)
            return
        task = asyncio.get_running_loop().create_task(session.say(f"\n{line}\n"))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)


class _Nowhere(io.TextIOBase):
    """Where a mounted streaming UI writes under ACP: the editor hears of everything through the protocol."""

    def write(self, text: str) -> int:
        return len(text)


def _pairs(items: Any) -> dict[str, str]:
    """ACP's `[{name, value}]` env and header lists as a mapping."""
    return {str(item["name"]): str(item.get("value", "")) for item in items or [] if isinstance(item, dict)
            and item.get("name")}


def client_servers(servers: list[dict[str, Any]] | None) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The editor's MCP servers (session/new's `mcpServers`, as JSON) in tool-mcp's form, and a note for each
    that cannot be used."""
    specs: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for server in servers or []:
        name = _NAME_CHARACTERS.sub("-", str(server.get("name") or "server")).strip("-") or "server"
        kind = server.get("type")
        if server.get("command"):
            specs[name] = {"command": str(server["command"]), "args": [str(arg) for arg in server.get("args") or []],
                           "env": _pairs(server.get("env"))}
        elif kind in ("http", "sse") and server.get("url"):
            specs[name] = {"type": kind, "url": str(server["url"]), "headers": _pairs(server.get("headers"))}
        else:
            notes.append(f"the editor's MCP server '{name}' uses a transport amplifier does not speak ({kind})")
    return specs, notes


def _with_tool_mcp(built: Any) -> None:
    """Plan overlay: the editor gave servers but the profile mounts no tool-mcp. It is added for the editor's
    servers alone (the user's mcp.json files stay as the profile chose: not read)."""
    tools = built.plan.setdefault("tools", [])
    if not any(isinstance(entry, dict) and entry.get("module") == "tool-mcp" for entry in tools):
        tools.append({"module": "tool-mcp", "config": {"read_config_files": False}})


def _editor_files(agent: Any, holder: dict[str, str]) -> dict[str, Any]:
    """The `editor.files` capability: only the halves the editor offered."""
    files: dict[str, Any] = {}

    async def read(path: str) -> str:
        response = await agent.conn.read_text_file(session_id=holder["id"], path=path)
        return str(response.content)

    async def write(path: str, text: str) -> None:
        await agent.conn.write_text_file(session_id=holder["id"], path=path, content=text)

    if agent.client_files["read"]:
        files["read"] = read
    if agent.client_files["write"]:
        files["write"] = write
    return files


async def open_acp_session(agent: Any, cwd: str, servers: list[Any] | None,
                           resume_id: str | None) -> AcpSession:
    from .handshake import ParamsProblem

    directory = Path(cwd)
    if not directory.is_absolute() or not directory.is_dir():
        raise ParamsProblem(f"cwd must be the absolute path of a directory, not '{cwd}'")
    specs, notes = client_servers(servers)

    async def open_again(session: AcpSession, kept: bool) -> Any:
        """``kept``: the session had messages, so it is resumed; else it was removed on close and is made anew
        under its id."""
        live = await _open_live(agent, directory, specs, session.id if kept else None,
                                session_id=None if kept else session.id)
        _bind(live, session)
        return live

    live = await _open_live(agent, directory, specs, resume_id)
    session = AcpSession(agent, live, editor_reads=agent.client_files["read"])
    session.opener = open_again
    _bind(live, session)
    session.told.extend(notes)
    session.attach()
    return session


def _bind(live: Any, session: AcpSession) -> None:
    """The session's approval and display systems now know the session they serve; what they and the opening
    had to say waits for the first prompt."""
    approval = live.coordinator.approval_system
    inner = getattr(approval, "_inner", approval)
    if isinstance(inner, EditorApproval):
        inner.session = session
    display = live.coordinator.display_system
    if isinstance(display, EditorDisplay):
        session.told.extend(display.early)
        display.early.clear()
        display.session = session
    session.told.extend(live.warnings)


async def _open_live(agent: Any, directory: Path, specs: dict[str, Any], resume_id: str | None, *,
                     session_id: str | None = None) -> Any:
    from ...config.paths import AmplifierPaths
    from ...config.settings import load_settings
    from ...sessions.factory import open_session
    from ...sessions.request import SessionRequest
    from ..approval_systems import approval_for

    options = agent.options
    paths = AmplifierPaths.discover(cwd=directory)
    request = SessionRequest(profile=options.profile, provider=options.provider, model=options.model,
                             sandbox=options.sandbox, mode=options.mode, resume_id=resume_id, session_id=session_id)
    if specs:
        request.plan_overlay = _with_tool_mcp
    holder = {"id": resume_id or session_id or ""}
    approval: Any = EditorApproval() if options.approval == "ask" else approval_for(
        options.approval, interactive=False)
    live = await open_session(request, paths=paths, settings=load_settings(paths), approval_system=approval,
                              display_system=EditorDisplay(), capabilities={
                                  UI_OUTPUT: {"stream": _Nowhere(), "show_answer_text": False, "mode": "oneshot",
                                              "color": None, "working_stream": None},
                                  EDITOR_FILES: _editor_files(agent, holder),
                                  MCP_CLIENT_SERVERS: specs,
                              })
    holder["id"] = live.session_id
    return live
