"""`amplifier acp`: amplifier driven by an editor over the Agent Client Protocol (JSON-RPC on stdin/stdout), the
third front-end beside the chat and `amplifier run`, on the official SDK (`agent-client-protocol`, import
`acp`).

Start-up is built for editors that start agents eagerly: importing the SDK's models takes about half a second,
so a thread imports them (and the kernel and the sessions layer) while the first messages are read; the
`initialize` answer needs none of it (handshake.py) and leaves at once. Stdout carries protocol messages and
nothing else (protocol_stdout.py: fd 1 points at stderr meanwhile, so no print, log line or child process can
write there).

Parts: `handshake` (initialize, options), `wire` (the bytes), `agent` (the methods), `opening` (a session for
the editor), `session` (its events as updates), `permission` (approvals), `prompt_content`, `commands`,
`replay` (session/load), `tool_calls` (how a call looks)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import os
import signal
import sys
import threading
from typing import Any, TextIO, cast

from .handshake import AcpOptions, ParamsProblem, initialize_result

__all__ = ["AcpOptions", "run_acp"]

EXIT_OK, EXIT_INTERRUPTED = 0, 130
# in this order: what an early session/new needs first (the kernel and the sessions layer), then the SDK's models
PRELOADED = ("amplifier_cli.sessions.factory", "amplifier_cli.ui.acp.agent", "amplifier_cli.ui.acp.opening", "acp",
             "acp.schema")


def _preload() -> concurrent.futures.Future[None]:
    """Import the SDK, the kernel and the sessions layer in a thread while the first messages are answered."""
    done: concurrent.futures.Future[None] = concurrent.futures.Future()

    def work() -> None:
        try:
            for name in PRELOADED:
                importlib.import_module(name)
        except BaseException as error:
            done.set_exception(error)
        else:
            done.set_result(None)

    threading.Thread(target=work, name="acp-preload", daemon=True).start()
    return done


class _Early:
    """Until the SDK is imported: `initialize` is answered from handshake.py, and `session/new` (which editors send
    right after) opens its session at once, answered as the agent answers it. Everything else waits for the
    SDK, in order."""

    def __init__(self, wire: Any, options: AcpOptions) -> None:
        self.wire = wire
        self.options = options
        self.client: dict[str, Any] = {}
        self.agent: Any = None

    def agent_for(self) -> Any:
        if self.agent is None:
            from .agent import AmplifierAgent

            self.agent = AmplifierAgent(self.options, self.wire)
            self.agent.remember_client(self.client)
        return self.agent

    async def serve(self, preload: concurrent.futures.Future[None]) -> bool:
        """False when stdin ended first."""
        loaded = asyncio.wrap_future(preload)
        while not loaded.done():
            reading = self.wire.read_ahead()
            await asyncio.wait({reading, loaded}, return_when=asyncio.FIRST_COMPLETED)
            if not reading.done():
                break  # the SDK is in: it takes the read in progress
            self.wire.take_read_ahead()
            message = reading.result()
            if message is None:
                return False
            if not await self.answer(message):
                self.wire.keep(message)
        await loaded  # an import that failed raises here
        return True

    async def answer(self, message: dict[str, Any]) -> bool:
        from .wire import error_response

        method, params = message.get("method"), message.get("params")
        if "id" not in message:
            return False
        if method == "initialize":
            try:
                result = initialize_result(params)
            except ParamsProblem as problem:
                await self.wire.send(error_response(message["id"], -32602, "Invalid params",
                                                    {"details": str(problem)}))
                return True
            self.client = dict(params) if isinstance(params, dict) else {}
            if self.agent is not None:
                self.agent.remember_client(self.client)
        elif method == "session/new" and isinstance(params, dict) and _plain_new_session(params):
            try:
                result = await self.agent_for().new_session(cwd=params["cwd"], mcp_servers=params.get("mcpServers"))
            except Exception as error:  # the agent's own error (a RequestError once the SDK is in)
                to_error = getattr(error, "to_error_obj", None)
                await self.wire.send({"jsonrpc": "2.0", "id": message["id"], "error": to_error() if callable(
                    to_error) else {"code": -32603, "message": str(error)}})
                return True
        else:
            return False
        await self.wire.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        return True


def _plain_new_session(params: dict[str, Any]) -> bool:
    """Params the early path can take as they are; anything odd waits for the SDK's validation (-32602)."""
    if not isinstance(params.get("cwd"), str):
        return False
    servers = params.get("mcpServers", [])
    return isinstance(servers, list) and all(isinstance(server, dict) for server in servers)


async def _serve(options: AcpOptions, out: TextIO) -> int:
    from .wire import StdioWire

    preload = _preload()
    wire = await StdioWire.open(os.dup(out.fileno()))  # the wire closes its own copy
    early = _Early(wire, options)
    if not await early.serve(preload):
        if early.agent is not None:
            await early.agent.shutdown()
        await wire.close()
        return EXIT_OK
    from acp.core import AgentSideConnection

    agent = early.agent_for()
    connection = AgentSideConnection(cast(Any, agent), wire, listening=False, use_unstable_protocol=True)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(signal_number, stopping.set)
    listening = asyncio.ensure_future(connection.listen())
    stopped = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({listening, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await agent.shutdown()  # every session saved, also when the editor just closed stdin
        for task in (listening, stopped):
            task.cancel()
        await connection.close()
    return EXIT_OK


def run_acp(options: AcpOptions) -> int:
    """Serve one editor on stdin/stdout until it closes stdin (or sends SIGTERM)."""
    from ..protocol_stdout import reserved_stdout

    if sys.stdin is not None and sys.stdin.isatty():
        sys.stderr.write("amplifier acp speaks the Agent Client Protocol on stdin and stdout: an editor starts it "
                         "(see the README, 'Use it from your editor'). Waiting for JSON-RPC messages; Ctrl-D ends.\n")
    with reserved_stdout() as out:
        try:
            return asyncio.run(_serve(options, out))
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
