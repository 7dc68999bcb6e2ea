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
import os
import signal
import sys
import threading
from typing import Any, TextIO, cast

from .handshake import AcpOptions, ParamsProblem, initialize_result

__all__ = ["AcpOptions", "run_acp"]

EXIT_OK, EXIT_INTERRUPTED = 0, 130


def _preload() -> concurrent.futures.Future[None]:
    """Import the SDK, the kernel and the sessions layer in a thread while the first messages are answered."""
    done: concurrent.futures.Future[None] = concurrent.futures.Future()

    def work() -> None:
        try:
            import acp
            import acp.schema  # noqa: F401

            from ...sessions import factory  # noqa: F401
            from . import agent  # noqa: F401  (the session, the kernel and the sessions layer with it)
        except BaseException as error:
            done.set_exception(error)
        else:
            done.set_result(None)

    threading.Thread(target=work, name="acp-preload", daemon=True).start()
    return done


async def _answer_early(wire: Any, options: AcpOptions, preload: concurrent.futures.Future[None],
                        client: dict[str, Any]) -> bool:
    """Until the SDK is imported: answer `initialize`, keep everything else for the SDK. False when stdin ended."""
    from .wire import error_response

    loaded = asyncio.wrap_future(preload)
    while not loaded.done():
        reading = wire.read_ahead()
        await asyncio.wait({reading, loaded}, return_when=asyncio.FIRST_COMPLETED)
        if not reading.done():
            break  # the SDK is in: it takes the read in progress
        wire.take_read_ahead()
        message = reading.result()
        if message is None:
            return False
        if message.get("method") == "initialize" and "id" in message:
            try:
                result = initialize_result(message.get("params"))
            except ParamsProblem as problem:
                await wire.send(error_response(message["id"], -32602, "Invalid params", {"details": str(problem)}))
                continue
            client.update(message.get("params") or {})
            await wire.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            continue
        wire.keep(message)
    await loaded  # an import that failed raises here
    return True


async def _serve(options: AcpOptions, out: TextIO) -> int:
    from .wire import StdioWire

    preload = _preload()
    wire = await StdioWire.open(os.dup(out.fileno()))  # the wire closes its own copy
    client: dict[str, Any] = {}
    if not await _answer_early(wire, options, preload, client):
        await wire.close()
        return EXIT_OK
    from acp.core import AgentSideConnection

    from .agent import AmplifierAgent

    agent = AmplifierAgent(options, wire)
    if client:
        agent.remember_client(client)
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
