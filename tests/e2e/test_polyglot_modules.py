"""Modules in other languages, mounted through a profile and used by `amplifier run`: a gRPC tool and a native
stand-in against the loopback fake API (the real Anthropic SDK path), a gRPC provider (streamed); each bad one
(tampered artifact, escaping name, dead endpoint) is one clear error with exit 2; an untrusted project's
workspace gRPC module is never contacted."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakeapi import ToolCall, Turn
from polyglot.layout import artifact_module, digest, grpc_module
from polyglot.native import native_script
from polyglot.servers import AnthropicForwarder, EchoTool, ScriptedProvider, serving
from polyglot.servers import Turn as ProviderTurn


def write_profile(e2e: Any, name: str, *, tools: list[dict[str, Any]] | None = None,
                  providers: list[dict[str, Any]] | None = None, user: bool = False) -> None:
    document = {
        "profile": {"name": name},
        "session": {"orchestrator": {"module": "loop-streaming"}, "context": {"module": "context-simple"}},
        "providers": providers or [{"module": "provider-anthropic",
                                    "config": {"max_retries": 1, "min_retry_delay": 0.01, "max_retry_delay": 0.02}}],
        "tools": tools or [],
        "hooks": [{"module": "hooks-streaming-ui"}],
    }
    base = e2e.home / "config" if user else e2e.project / ".amplifier"
    path = base / "profiles" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document), encoding="utf-8")


def test_a_grpc_tool_is_used_by_a_run(e2e_api, tmp_path: Path) -> None:
    service = EchoTool()
    e2e_api.server.add(Turn(tool_calls=[ToolCall("grpc_echo", {"text": "hello polyglot"})]))
    e2e_api.server.add(Turn(text="the tool said hello"), when_last_tool_result_contains="hello polyglot")
    with serving(service) as endpoint:
        module = grpc_module(tmp_path / "tool-grpc-echo", endpoint)
        write_profile(e2e_api, "poly", tools=[{"module": "tool-grpc-echo", "source": str(module)}])
        result = e2e_api.run("run", "-P", "poly", "echo something")
    assert result.returncode == 0, result.stderr
    assert service.calls == [{"text": "hello polyglot"}]
    assert "the tool said hello" in result.stdout
    assert "grpc_echo" in e2e_api.server.requests[0].tool_names


def test_a_native_module_is_started_used_and_stopped(e2e_api, tmp_path: Path) -> None:
    e2e_api.server.add(Turn(tool_calls=[ToolCall("native_upper", {"text": "quiet words"})]))
    e2e_api.server.add(Turn(text="it shouted back"), when_last_tool_result_contains="QUIET WORDS")
    module = artifact_module(tmp_path / "tool-native", "rust", "tool", "upper", native_script(), executable=True)
    write_profile(e2e_api, "native", tools=[{"module": "tool-native", "source": str(module)}])
    result = e2e_api.run("run", "-P", "native", "shout please")
    assert result.returncode == 0, result.stderr
    assert "it shouted back" in result.stdout
    assert not [pid for pid in _pids() if f"{module / 'upper'}" in _cmdline(pid)]  # stopped at cleanup


def _pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


def test_a_grpc_provider_answers_a_streamed_run(e2e, tmp_path: Path) -> None:
    service = ScriptedProvider([ProviderTurn(text="hello from another language")])
    with serving(service) as endpoint:
        module = grpc_module(tmp_path / "provider-polyglot", endpoint, "provider")
        write_profile(e2e, "poly-provider", providers=[{"module": "provider-polyglot", "source": str(module)}])
        result = e2e.run("run", "-P", "poly-provider", "-o", "json", "say hello")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["response"] == "hello from another language"
    assert service.requests[0].stream is True
    assert service.requests[0].messages[-1].text_content == "say hello"


def test_a_grpc_provider_backed_by_the_fake_api_streams_a_run(e2e_api, tmp_path: Path) -> None:
    e2e_api.server.add(Turn(text_chunks=["answered ", "through ", "gRPC"]), when_last_user_contains="forward this")
    service = AnthropicForwarder(e2e_api.server.base_url, e2e_api.env["ANTHROPIC_API_KEY"])
    with serving(service) as endpoint:
        module = grpc_module(tmp_path / "provider-forwarder", endpoint, "provider")
        write_profile(e2e_api, "forward", providers=[{"module": "provider-forwarder", "source": str(module)}])
        result = e2e_api.run("run", "-P", "forward", "-o", "stream-json", "forward this")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert [event["text"] for event in events if event["type"] == "text_delta"] == ["answered ", "through ", "gRPC"]
    assert events[-1]["type"] == "result" and events[-1]["response"] == "answered through gRPC"
    assert service.streamed == [True] and e2e_api.server.requests[0].stream is True


def _dead_endpoint() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


@pytest.mark.parametrize("case", ["tampered", "escaping", "dead"])
def test_a_bad_polyglot_module_is_one_clear_error(e2e, tmp_path: Path, case: str) -> None:
    directory = tmp_path / "tool-bad"
    if case == "tampered":
        artifact_module(directory, "rust", "tool", "side", b"#!/bin/sh\necho changed\n", executable=True,
                        sha256=digest(b"#!/bin/sh\necho original\n"))
        expected = ["module.sha256", "does not match its digest"]
    elif case == "escaping":
        directory.mkdir()
        (directory / "amplifier.toml").write_text('[module]\ntransport = "wasm"\ntype = "tool"\n'
                                                  'artifact = "../../elsewhere.wasm"\n', encoding="utf-8")
        expected = ["module.artifact", "not a plain file name"]
    else:
        endpoint = _dead_endpoint()
        grpc_module(directory, endpoint)
        expected = [f"cannot reach its gRPC service at {endpoint}", "grpc.endpoint"]
    write_profile(e2e, "bad", tools=[{"module": "tool-bad", "source": str(directory)}],
                  providers=[{"module": "provider-scripted", "config": {"script": ["never used"]}}])
    result = e2e.run("run", "-P", "bad", "hello")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "Module 'tool-bad'" in result.stderr and str(directory / "amplifier.toml") in result.stderr
    for text in expected:
        assert text in result.stderr
    assert result.stderr.count("Module 'tool-bad'") == 1


@pytest.mark.untrusted
def test_an_untrusted_projects_grpc_module_is_never_contacted(e2e, tmp_path: Path) -> None:
    service = EchoTool()
    e2e.trust_project = False
    with serving(service) as endpoint:
        grpc_module(e2e.project / ".amplifier" / "modules" / "tool-todo", endpoint)  # would replace a bundled tool
        write_profile(e2e, "mine", tools=[{"module": "tool-todo"}],
                      providers=[{"module": "provider-scripted", "config": {"script": ["fine"]}}], user=True)
        result = e2e.run("run", "-P", "mine", "hello")
        listed = e2e.run("module", "list")
    assert result.returncode == 0, result.stderr
    assert "workspace module" in result.stderr and "not trusted" in result.stderr
    assert service.calls == [] and service.spec_requests == 0
    assert "wait until you trust it" in listed.stderr


def test_a_trusted_workspace_grpc_module_is_listed_with_its_transport_and_mounted(e2e, tmp_path: Path) -> None:
    service = EchoTool()
    with serving(service) as endpoint:
        grpc_module(e2e.project / ".amplifier" / "modules" / "tool-grpc-echo", endpoint)
        write_profile(e2e, "ws", tools=[{"module": "tool-grpc-echo"}],
                      providers=[{"module": "provider-scripted", "config": {"script": ["fine"]}}])
        listed = e2e.run("module", "list", "--json")
        shown = e2e.run("module", "show", "tool-grpc-echo")
        result = e2e.run("run", "-P", "ws", "hello")
    assert listed.returncode == 0, listed.stderr
    rows = {row["module"]: row for row in json.loads(listed.stdout)}
    assert rows["tool-grpc-echo"]["transport"] == "grpc" and rows["tool-grpc-echo"]["origin"] == "workspace"
    assert rows["tool-bash"]["transport"] == "python"
    assert "Module: tool-grpc-echo  (type: tool, transport: grpc)" in shown.stdout
    assert result.returncode == 0, result.stderr
    assert service.spec_requests == 1


@pytest.mark.parametrize("kind", ["tool", "provider", "native"])
def test_module_validate_checks_polyglot_modules_with_their_behavioural_suite(e2e, tmp_path: Path,
                                                                              kind: str) -> None:
    with serving(EchoTool(), ScriptedProvider([ProviderTurn(text="hi")] * 10)) as endpoint:
        if kind == "native":
            module = artifact_module(tmp_path / "tool-native", "rust", "tool", "upper", native_script(),
                                     executable=True)
        else:
            module = grpc_module(tmp_path / f"{kind}-poly", endpoint, kind)
        result = e2e.run("module", "validate", str(module), "--behavioral", "-o", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["module_type"] == ("tool" if kind == "native" else kind)
    checks = {check["name"]: check for check in report["checks"]}
    assert checks["module_manifest"]["passed"] and checks["protocol_compliance"]["passed"]
    assert report["behavioral"]["ran"] and report["behavioral"]["passed"]


def test_module_validate_reports_a_dead_endpoint_as_a_failed_check(e2e, tmp_path: Path) -> None:
    endpoint = _dead_endpoint()
    result = e2e.run("module", "validate", str(grpc_module(tmp_path / "tool-dead", endpoint)), "-o", "json")
    assert result.returncode == 1
    failed = [check for check in json.loads(result.stdout)["checks"] if not check["passed"]]
    assert [check["name"] for check in failed] == ["protocol_compliance"]
    assert f"cannot reach its gRPC service at {endpoint}" in failed[0]["message"]


def test_a_wasm_tool_is_used_by_a_run(e2e_api, tmp_path: Path) -> None:
    from polyglot.components import compile_to_file, tool_component

    module = tmp_path / "tool-wasm-echo"
    module.mkdir()
    compile_to_file(tool_component("echo"), module / "echo.wasm")  # a lone component: typed by its exports
    e2e_api.server.add(Turn(tool_calls=[ToolCall("wasm_echo", {"text": "from the sandbox"})]))
    e2e_api.server.add(Turn(text="the component answered"), when_last_tool_result_contains="from the sandbox")
    write_profile(e2e_api, "wasm", tools=[{"module": "tool-wasm-echo", "source": str(module)}])
    result = e2e_api.run("run", "-P", "wasm", "echo in wasm")
    assert result.returncode == 0, result.stderr
    assert "the component answered" in result.stdout
    assert "wasm_echo" in e2e_api.server.requests[0].tool_names


def test_a_wasm_orchestrator_runs_a_session_with_python_modules(e2e_api, tmp_path: Path) -> None:
    from polyglot.components import compile_to_file, orchestrator_component

    module = tmp_path / "loop-wasm"
    module.mkdir()
    request = {"name": "write_file", "input": {"file_path": "from-wasm.txt", "content": "written by a component"}}
    compile_to_file(orchestrator_component(request), module / "loop.wasm")
    e2e_api.server.add(Turn(text="hello from the fake API"), when_last_user_contains="wasm prompt")
    document = {
        "profile": {"name": "wasm-loop"},
        "session": {"orchestrator": {"module": "loop-wasm", "source": str(module)},
                    "context": {"module": "context-simple"}},
        "providers": [{"module": "provider-anthropic", "config": {"max_retries": 1}}],
        "tools": [{"module": "tool-filesystem"}],
    }
    path = e2e_api.project / ".amplifier" / "profiles" / "wasm-loop.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    result = e2e_api.run("run", "-P", "wasm-loop", "wasm prompt")
    assert result.returncode == 0, result.stderr
    assert (e2e_api.project / "from-wasm.txt").read_text() == "written by a component"  # a Python tool
    assert "hello from the fake API" in result.stdout  # a Python provider, through the real SDK


def test_an_upstream_shaped_wasm_orchestrator_answers_a_run(e2e, tmp_path: Path) -> None:
    """Upstream's kernel-service signatures and answer shape (a JSON string) through `amplifier run -o json`."""
    from polyglot.components import compile_to_file, upstream_orchestrator_component

    module = tmp_path / "loop-upstream"
    module.mkdir()
    request = {"name": "write_file", "input": {"file_path": "upstream.txt", "content": "by an upstream component"}}
    compile_to_file(upstream_orchestrator_component(request, "loop.answer", "answered by capability"),
                    module / "loop.wasm")
    document = {
        "profile": {"name": "upstream-loop"},
        "session": {"orchestrator": {"module": "loop-upstream", "source": str(module)},
                    "context": {"module": "context-simple"}},
        "providers": [{"module": "provider-scripted", "config": {"script": ["never used"]}}],
        "tools": [{"module": "tool-filesystem"}],
    }
    path = e2e.project / ".amplifier" / "profiles" / "upstream-loop.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    result = e2e.run("run", "-P", "upstream-loop", "-o", "json", "go")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["response"] == "answered by capability"
    assert (e2e.project / "upstream.txt").read_text() == "by an upstream component"


@pytest.mark.parametrize("kind", ["tool", "orchestrator", "hook"])
def test_module_validate_checks_wasm_components(e2e, tmp_path: Path, kind: str) -> None:
    from polyglot.components import compile_to_file, orchestrator_component, tool_component, upstream_hook_component

    module = tmp_path / f"{kind}-wasm"
    module.mkdir()
    text = {"tool": lambda: tool_component("echo"),
            "orchestrator": lambda: orchestrator_component({"name": "x", "input": {}}),
            "hook": lambda: upstream_hook_component("tool:pre", 0, "upstream-hook", {"action": "continue"})}[kind]()
    compile_to_file(text, module / "module.wasm")
    result = e2e.run("module", "validate", str(module), "--behavioral", "-o", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["module_type"] == kind
    assert {check["name"] for check in report["checks"] if check["passed"]} >= {"module_manifest",
                                                                               "protocol_compliance"}
    assert report["behavioral"]["ran"] and report["behavioral"]["passed"]


def test_a_native_module_runs_under_the_session_sandbox(e2e_api, tmp_path: Path) -> None:
    import shutil
    import tempfile

    outside = Path(tempfile.mkdtemp(prefix="amplifier-e2e-native-", dir="/var/tmp"))  # no write root
    try:
        e2e_api.server.add(Turn(tool_calls=[ToolCall("native_upper", {"touch": str(outside / "escape.txt")})]))
        e2e_api.server.add(Turn(tool_calls=[ToolCall("native_upper", {"touch": str(e2e_api.project / "in.txt")})]))
        e2e_api.server.add(Turn(text="done"))
        module = artifact_module(tmp_path / "tool-native", "rust", "tool", "upper", native_script(), executable=True)
        write_profile(e2e_api, "native", tools=[{"module": "tool-native", "source": str(module)}])
        result = e2e_api.run("run", "-P", "native", "write things")
        assert result.returncode == 0, result.stderr
        assert not (outside / "escape.txt").exists()
        assert "refused: " in e2e_api.server.requests[1].last_tool_result_text
        assert (e2e_api.project / "in.txt").exists()
    finally:
        shutil.rmtree(outside, ignore_errors=True)
