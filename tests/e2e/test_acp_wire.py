"""`amplifier acp` on the raw wire (newline-delimited JSON-RPC, no SDK on the client side): bad lines get JSON-RPC
errors and the agent keeps serving, and stdout carries protocol messages only, whatever a module prints or a
child process writes to the stdout it inherited."""

from __future__ import annotations

import json
import queue
import subprocess
import textwrap
import threading
from typing import Any

from acp import schema
from fakeapi import ToolCall, Turn

from .conftest import TIMEOUT, installed_amplifier

NOISY_MODULE = '''
import os, subprocess, sys
from amplifier_core import ToolResult

__amplifier_module_type__ = "tool"
print("LEAK-AT-MOUNT")


class Noisy:
    name = "noisy"
    description = "prints to stdout"
    input_schema = {"type": "object", "properties": {}}

    async def execute(self, input):
        print("LEAK-FROM-PRINT")
        sys.stdout.flush()
        os.write(1, b"LEAK-FROM-FD-1\\n")
        subprocess.run(["echo", "LEAK-FROM-CHILD"], check=True)
        return ToolResult(output="made some noise")


async def mount(coordinator, config=None):
    await coordinator.mount("tools", Noisy(), name="noisy")
'''


class Wire:
    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.raw: list[bytes] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.raw.append(line)
            self.lines.put(line)

    def send(self, line: str | bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line if isinstance(line, bytes) else line.encode() + b"\n")
        self.process.stdin.flush()

    def request(self, request_id: Any, method: str, params: Any) -> None:
        self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}))

    def answer(self, request_id: Any) -> dict[str, Any]:
        """The response to ``request_id`` (notifications and requests before it are checked and skipped)."""
        while True:
            message = json.loads(self.lines.get(timeout=TIMEOUT))
            assert message["jsonrpc"] == "2.0"
            if "method" in message:
                if "id" in message:  # the agent asks something (not expected here)
                    raise AssertionError(f"unexpected request {message}")
                schema.SessionNotification.model_validate(message["params"])
                continue
            schema.AgentResponse.model_validate(message)
            if message["id"] == request_id:
                return message


def test_bad_lines_get_errors_and_stdout_carries_protocol_messages_only(e2e_api) -> None:
    module = e2e_api.project / ".amplifier" / "modules" / "tool-noisy" / "amplifier_module_tool_noisy"
    module.mkdir(parents=True)
    (module / "__init__.py").write_text(textwrap.dedent(NOISY_MODULE))
    e2e_api.profile("acp", tools=("tool-filesystem", "tool-noisy"), hooks=("hooks-streaming-ui",))
    e2e_api.server.add(Turn(tool_calls=[ToolCall("noisy", {})]), when_last_user_contains="noise")
    e2e_api.server.add(Turn(text="Quiet again."), when_last_tool_result_contains="noise")
    e2e_api.trust_now()
    process = subprocess.Popen([*installed_amplifier(), "acp", "-P", "acp", "--approval", "allow"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=e2e_api.project, env=e2e_api.env)
    wire = Wire(process)
    try:
        wire.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        assert schema.InitializeResponse.model_validate(wire.answer(0)["result"]).protocol_version == 1
        wire.send("this is not json")
        assert wire.answer(None)["error"]["code"] == -32700
        wire.send(b"\xff\xfe{}\n")
        assert wire.answer(None)["error"]["code"] == -32700
        wire.send("[1, 2]")
        assert wire.answer(None)["error"]["code"] == -32600
        wire.send('{"id": 7, "method": "session/list"}')  # no "jsonrpc": "2.0"
        assert wire.answer(7)["error"]["code"] == -32600
        wire.request(1, "no/such/method", {})
        assert wire.answer(1)["error"]["code"] == -32601
        wire.request(2, "session/new", {"cwd": 5})
        assert wire.answer(2)["error"]["code"] == -32602
        wire.request(3, "session/new", {"cwd": "relative/path", "mcpServers": []})
        assert wire.answer(3)["error"]["code"] == -32602
        wire.request(4, "session/new", {"cwd": str(e2e_api.project), "mcpServers": []})
        session_id = schema.NewSessionResponse.model_validate(wire.answer(4)["result"]).session_id
        wire.request(5, "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "noise"}]})
        assert wire.answer(5)["result"]["stopReason"] == "end_turn"
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(TIMEOUT) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
    stdout = b"".join(wire.raw)
    assert b"LEAK" not in stdout
    for line in wire.raw:
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert process.stderr is not None
    stderr = process.stderr.read().decode()
    for leak in ("LEAK-AT-MOUNT", "LEAK-FROM-PRINT", "LEAK-FROM-FD-1", "LEAK-FROM-CHILD"):
        assert leak in stderr
