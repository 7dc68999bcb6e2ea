"""Hook type http, from Claude Code-format hooks files: the event JSON POSTed to a loopback server that records
requests, the response read like a command's stdout, failures as warnings, bad entries named, and nothing sent for
an untrusted project."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hook_lab import HookLab, messages
from http_recorder import HookServer


@pytest.fixture
def server() -> Iterator[HookServer]:
    recorder = HookServer().start()
    yield recorder
    recorder.close()


def http_hook(url: str, matcher: str | None = None, **extra: Any) -> list[dict[str, Any]]:
    group: dict[str, Any] = {"hooks": [{"type": "http", "url": url, **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    return [group]


async def pre(coordinator: Any, command: str) -> Any:
    return await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": command},
                                                     "tool_call_id": "call-1"})


async def test_the_event_is_posted_and_a_json_answer_blocks_like_a_command_hooks_stdout(
        lab: HookLab, server: HookServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOK_SERVICE_TOKEN", "tok-123")  # credential-like: only sent because the entry lists it
    monkeypatch.setenv("OTHER_SECRET", "never-sent")
    server.answer = json.dumps({"decision": "block", "reason": "the policy server says no"})
    lab.write_hooks({"PreToolUse": http_hook(server.url, matcher="Bash", headers={
        "Authorization": "Bearer ${HOOK_SERVICE_TOKEN}", "X-Other": "[$OTHER_SECRET]"},
        allowedEnvVars=["HOOK_SERVICE_TOKEN"])})
    coordinator = await lab.mount()
    result = await pre(coordinator, "rm -rf build")
    assert result.action == "deny" and result.reason == "the policy server says no"
    (request,) = server.requests
    assert request.path == "/hook" and request.headers["Content-Type"] == "application/json"
    assert request.headers["Authorization"] == "Bearer tok-123" and request.headers["X-Other"] == "[]"
    assert request.body["hook_event_name"] == "PreToolUse" and request.body["tool_name"] == "bash"
    assert request.body["tool_input"] == {"command": "rm -rf build"} and request.body["cwd"] == str(lab.project)


async def test_a_plain_text_answer_is_context_where_stdout_would_be(lab: HookLab, server: HookServer) -> None:
    server.answer = "ticket PROJ-7 is in progress"
    lab.write_hooks({"UserPromptSubmit": http_hook(server.url)})
    result = await (await lab.mount()).hooks.emit("prompt:submit", {"prompt": "go on"})
    assert result.action == "inject_context" and result.context_injection == "ticket PROJ-7 is in progress"
    assert server.requests[0].body["prompt"] == "go on"


def closed_port_url() -> str:
    with socket.socket() as probe:  # bound then closed: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


async def test_an_error_status_an_unreachable_url_and_a_timeout_are_warnings_and_the_session_goes_on(
        lab: HookLab, server: HookServer) -> None:
    server.status, server.answer = 503, '{"decision": "block", "reason": "ignored: not a 2xx"}'
    held = HookServer(hold=threading.Event()).start()
    try:
        lab.write_hooks({"PreToolUse": [*http_hook(server.url), *http_hook(closed_port_url()),
                                        *http_hook(held.url, timeout=0.3)]})
        coordinator = await lab.mount()
        assert (await pre(coordinator, "ls")).action == "continue"
    finally:
        held.close()
    (shown,) = messages(coordinator)
    warnings = shown.splitlines()
    assert f"PreToolUse hook `POST {server.url}`" in warnings[0] and "answered HTTP 503 Service Unavailable" in shown
    assert "could not be reached" in warnings[1]
    assert "timed out after 0.3s" in warnings[2]
    assert len(held.requests) == 1


@pytest.mark.parametrize(("entry", "key", "says"), [
    ({"type": "http"}, "url", "is missing or not a non-empty string"),
    ({"type": "http", "url": "ftp://example.test/hook"}, "url", "is not an http:// or https:// URL with a host"),
    ({"type": "http", "url": "http:///no-host"}, "url", "is not an http:// or https:// URL with a host"),
    ({"type": "http", "url": "http://127.0.0.1:9/h", "headers": ["X-A: b"]}, "headers", "must be an object"),
    ({"type": "http", "url": "http://127.0.0.1:9/h", "allowedEnvVars": "TOKEN"}, "allowedEnvVars",
     "must be a list of variable names"),
])
async def test_a_bad_http_entry_is_one_warning_naming_file_key_path_and_fix(lab: HookLab, entry: dict[str, Any],
                                                                            key: str, says: str) -> None:
    path = lab.write_hooks({"Stop": [{"hooks": [entry]}]})
    coordinator = await lab.mount()
    (message,) = messages(coordinator)
    assert message.startswith("hooks file skipped: ") and str(path) in message
    assert f": hooks.Stop[0].hooks[0].{key}: " in message and says in message
    assert "; write " in message.split(says, 1)[1]  # followed by how to fix it
    assert coordinator.hook_registrations == []


async def test_an_untrusted_projects_http_hooks_are_never_called(lab: HookLab, server: HookServer) -> None:
    lab.write_hooks({"PreToolUse": http_hook(server.url), "SessionStart": http_hook(server.url)})
    untrusted = await lab.mount(trusted=False)
    await untrusted.hooks.emit("session:start", {"session_id": "s1"})
    assert (await pre(untrusted, "ls")).action == "continue"
    assert server.requests == [] and untrusted.hook_registrations == []
    trusted = await lab.mount(trusted=True)
    await pre(trusted, "ls")
    assert [request.body["hook_event_name"] for request in server.requests] == ["PreToolUse"]


async def test_with_network_false_in_the_hooks_sandbox_http_hooks_are_not_called(lab: HookLab,
                                                                                  server: HookServer) -> None:
    lab.write_hooks({"PreToolUse": http_hook(server.url)})
    coordinator = await lab.mount({"sandbox": {"mode": "workspace-write", "network": False}})
    assert (await pre(coordinator, "ls")).action == "continue"
    assert server.requests == []
    assert any(f"PreToolUse hook `POST {server.url}`" in message and "was not called" in message
               and "network: false" in message for message in messages(coordinator))


async def test_secret_values_in_the_event_are_masked_before_they_leave(
        lab: HookLab, server: HookServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "tok-secret-98765")  # a credential the model happened to put in a command
    server.answer = ""
    lab.write_hooks({"PreToolUse": http_hook(server.url, matcher="Bash")})
    coordinator = await lab.mount()
    await pre(coordinator, "curl -H 'auth: tok-secret-98765' https://deploy.example")
    (request,) = server.requests
    assert "tok-secret-98765" not in json.dumps(request.body)
    assert "[REDACTED:DEPLOY_TOKEN]" in request.body["tool_input"]["command"]
