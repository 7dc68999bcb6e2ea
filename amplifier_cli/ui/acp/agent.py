"""The ACP agent: what an editor can ask of amplifier (the SDK's ``Agent`` protocol). Each method translates
the request into the sessions layer (open, resume, turn, cancel, close) and its answer back; one process
serves any number of sessions, each with its own kernel session and hooks, so they never mix."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ...errors import AmplifierError
from .handshake import MODES, AcpOptions, ParamsProblem, initialize_result
from .session import AcpSession
from .wire import StdioWire

__all__ = ["AcpOptions", "AmplifierAgent", "initialize_result"]

SESSIONS_PER_PAGE = 50


def request_error(error: BaseException) -> Exception:
    from acp import RequestError

    if isinstance(error, AmplifierError):
        return RequestError(-32603, error.render(), {"exit_code": error.exit_code})
    if isinstance(error, ParamsProblem):
        return RequestError.invalid_params({"details": str(error)})
    return RequestError(-32603, f"{type(error).__name__}: {error}")


class AmplifierAgent:
    def __init__(self, options: AcpOptions, wire: StdioWire) -> None:
        self.options = options
        self.wire = wire
        self.conn: Any = None  # the SDK's connection, once its models are imported (sdk_ready)
        self.sdk_ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.sessions: dict[str, AcpSession] = {}
        self.client_files: dict[str, bool] = {"read": False, "write": False}
        self._prompts: dict[str, asyncio.Task[Any]] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn
        if not self.sdk_ready.done():
            self.sdk_ready.set_result(None)

    def remember_client(self, params: Any) -> None:
        """What the editor offers (its `initialize` params): only offered `fs/*` methods are ever called."""
        capabilities = params.get("clientCapabilities") if isinstance(params, dict) else None
        files = (capabilities or {}).get("fs") if isinstance(capabilities, dict) else None
        files = files if isinstance(files, dict) else {}
        self.client_files = {"read": files.get("readTextFile") is True, "write": files.get("writeTextFile") is True}

    # -- connection ---------------------------------------------------------------------------------------
    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **kwargs: Any) -> dict[str, Any]:
        params = {"protocolVersion": protocol_version,
                  "clientCapabilities": client_capabilities.model_dump(by_alias=True) if client_capabilities else {}}
        self.remember_client(params)
        try:
            return initialize_result(params)
        except ParamsProblem as problem:
            raise request_error(problem) from None

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        from acp import RequestError

        raise RequestError.invalid_params({"details": "amplifier offers no authentication methods; provider keys "
                                                      "come from the environment or `amplifier provider use`"})

    # -- sessions -----------------------------------------------------------------------------------------
    async def new_session(self, cwd: str, additional_directories: list[str] | None = None,
                          mcp_servers: list[Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        """Answered as JSON: while the SDK's models are still being imported it is answered early (see
        ``amplifier_cli.ui.acp._Early``), the same way."""
        session = await self._open(cwd, mcp_servers, resume_id=None)
        self.wire.after_reply(lambda: self._announce(session))
        return {"sessionId": session.id, **self._state(session)}

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           additional_directories: list[str] | None = None, **kwargs: Any) -> dict[str, Any]:
        from .replay import replay_updates

        session = await self._open(cwd, mcp_servers, resume_id=session_id)
        messages = await session.live.coordinator.get("context").get_messages()
        for update in replay_updates(messages, session.cwd):  # before the answer, as the protocol says
            await session.update(update)
        self.wire.after_reply(lambda: self._announce(session))
        return self._state(session)

    async def resume_session(self, session_id: str, cwd: str, additional_directories: list[str] | None = None,
                             mcp_servers: list[Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        session = await self._open(cwd, mcp_servers, resume_id=session_id)
        self.wire.after_reply(lambda: self._announce(session))
        return self._state(session)

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any) -> Any:
        from acp.schema import ListSessionsResponse, SessionInfo

        from ...config.paths import AmplifierPaths
        from ...sessions.store.locations import project_key, session_store_for

        paths = AmplifierPaths.discover(cwd=Path(cwd)) if cwd else AmplifierPaths.discover()
        found = session_store_for(paths).list(project=project_key(paths) if cwd else None, include_empty=False)
        start = int(cursor) if cursor and cursor.isdigit() else 0
        page = found[start:start + SESSIONS_PER_PAGE]
        more = start + SESSIONS_PER_PAGE < len(found)
        return ListSessionsResponse(
            sessions=[SessionInfo(session_id=meta.session_id, cwd=meta.cwd, updated_at=meta.updated,
                                  title=" ".join((meta.first_prompt or "").split())[:80] or None) for meta in page],
            next_cursor=str(start + SESSIONS_PER_PAGE) if more else None)

    async def close_session(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.pop(session_id, None)
        if session is None:
            raise self._unknown(session_id)
        await session.close()

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        if mode_id not in (mode for mode, _, _ in MODES):
            raise request_error(ParamsProblem(f"unknown mode '{mode_id}'; modes: "
                                              + ", ".join(mode for mode, _, _ in MODES)))
        await self._session(session_id).set_mode(mode_id)

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool,
                                **kwargs: Any) -> dict[str, Any]:
        session = self._session(session_id)
        if config_id != "model" or not isinstance(value, str) or not value.strip():
            raise request_error(ParamsProblem("the only option is 'model', set to a model name"))
        await session.set_model(value)
        return {"configOptions": session.config_options()}

    # -- turns --------------------------------------------------------------------------------------------
    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> Any:
        from acp import RequestError

        session = self._session(session_id)
        if session_id in self._prompts:
            raise RequestError(-32603, "a prompt is already running in this session; cancel it or wait")
        task = asyncio.current_task()
        assert task is not None
        self._prompts[session_id] = task
        session.cancelled = False
        try:
            return await self._prompt(session, prompt)
        finally:
            self._prompts.pop(session_id, None)

    async def _prompt(self, session: AcpSession, blocks: list[Any]) -> Any:
        from acp.schema import PromptResponse

        from .commands import CommandTurn, run_command
        from .prompt_content import PromptProblem, prompt_content

        try:
            content = prompt_content(blocks, session.cwd)
        except PromptProblem as problem:
            raise request_error(ParamsProblem(str(problem))) from None
        await session.before_first_prompt()
        text = content.text
        if text.lstrip().startswith("/"):
            answer = await run_command(session, text.strip())
            if isinstance(answer, str):
                await session.say(answer + "\n")
                return PromptResponse(stop_reason="end_turn")
            if isinstance(answer, CommandTurn):
                text = answer.prompt
        from ...sessions.mcp_mentions import attach_mcp_resources  # `@server:uri`, as in the chat and `run`

        resources = await attach_mcp_resources(text, session.live.coordinator)
        if resources.problems:
            raise request_error(ParamsProblem("; ".join(resources.problems)))
        outcome = await session.run(resources.prompt(text), [*content.images, *resources.images])
        return session.response_for(outcome)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        from acp import RequestError

        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    # -- helpers ------------------------------------------------------------------------------------------
    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise self._unknown(session_id)
        return session

    @staticmethod
    def _unknown(session_id: str) -> Exception:
        from acp import RequestError

        return RequestError(-32002, f"no open session {session_id} in this process; open it with session/load",
                            {"sessionId": session_id})

    @staticmethod
    def _state(session: AcpSession) -> dict[str, Any]:
        return {"modes": session.mode_state(), "configOptions": session.config_options()}

    async def _open(self, cwd: str, servers: list[Any] | None, *, resume_id: str | None) -> AcpSession:
        from .opening import open_acp_session

        if resume_id is not None and resume_id in self.sessions:  # the editor opens it again: start afresh
            await self.sessions.pop(resume_id).close()
        given = [server.model_dump(mode="json", by_alias=True) if hasattr(server, "model_dump") else server
                 for server in servers or []]  # the SDK's models, or JSON when answered early
        try:
            session = await open_acp_session(self, cwd, given, resume_id)
        except (AmplifierError, ParamsProblem) as error:
            raise request_error(error) from None
        self.sessions[session.id] = session
        return session

    async def _announce(self, session: AcpSession) -> None:
        """After the editor has the session's id: its commands, then the models it may pick (which may take a
        request to the provider)."""
        await self.sdk_ready
        from acp.helpers import update_available_commands

        from .commands import available_commands

        await session.update(update_available_commands(available_commands(session)))
        await session.offer_models()

    async def shutdown(self) -> None:
        """The editor is gone (stdin closed) or asked us to stop: end running turns, save every session."""
        for task in list(self._prompts.values()):
            task.cancel()
        for session_id in list(self.sessions):
            await self.sessions.pop(session_id).close()
