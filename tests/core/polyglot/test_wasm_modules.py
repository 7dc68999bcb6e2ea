"""WASM components (compiled by wasmtime from component text) mounted through the loader: a tool, its memory
and CPU limits, a lone .wasm typed by its exports, an orchestrator whose kernel-service imports reach a Python
tool and a Python provider on the same coordinator, and components shaped exactly as upstream's WIT and guest SDK
make them (JSON payloads, record subscriptions, kernel-service functions of one list<u8>)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from polyglot.components import compile_to_file, orchestrator_component, tool_component, wasi_probe_component

from amplifier_core import ChatResponse, ModuleCoordinator, ToolResult
from amplifier_core.loader import ModuleLoader, ModuleValidationError

from .test_grpc_modules import BareSession, PathResolver


@pytest.fixture(scope="session")
def components(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each test component compiled once per test session."""
    root = tmp_path_factory.mktemp("components")
    built = {}
    for name, text in {"echo": tool_component("echo"), "spin": tool_component("spin"),
                       "grow": tool_component("grow"), "wasi": wasi_probe_component(),
                       "orchestrator": orchestrator_component({"name": "python_note",
                                                               "input": {"note": "from wasm"}})}.items():
        compile_to_file(text, root / f"{name}.wasm")
        built[name] = root / f"{name}.wasm"
    return built


def module_dir(tmp_path: Path, component: Path, manifest: str | None) -> Path:
    directory = tmp_path / component.stem
    directory.mkdir()
    (directory / "module.wasm").write_bytes(component.read_bytes())
    if manifest is not None:
        (directory / "amplifier.toml").write_text(manifest, encoding="utf-8")
    return directory


async def mount(module_id: str, directory: Path, coordinator: Any = None) -> Any:
    coordinator = coordinator or ModuleCoordinator(session=BareSession())
    await coordinator.mount("module-source-resolver", PathResolver({module_id: directory}))
    await (await ModuleLoader(coordinator).load(module_id, {}))(coordinator)
    return coordinator


async def test_a_lone_wasm_tool_is_typed_by_its_exports_and_runs(tmp_path: Path, components: dict[str, Path]) -> None:
    coordinator = await mount("tool-wasm", module_dir(tmp_path, components["echo"], None))
    tool = coordinator.get("tools")["wasm_echo"]
    result = await tool.execute({"text": "hi"})
    assert tool.input_schema == {"type": "object", "properties": {"text": {"type": "string"}}}
    assert (result.success, result.output) == (True, {"text": "hi"})


async def test_the_memory_limit_refuses_growth(tmp_path: Path, components: dict[str, Path]) -> None:
    manifest = '[module]\ntransport = "wasm"\ntype = "tool"\n[wasm]\nmax_memory_mb = 16\n'
    coordinator = await mount("tool-grow", module_dir(tmp_path, components["grow"], manifest))
    result = await coordinator.get("tools")["wasm_echo"].execute({})
    assert not result.success and "the memory limit refused 128 MiB" in result.error["message"]


async def test_a_generous_memory_limit_grants_growth(tmp_path: Path, components: dict[str, Path]) -> None:
    manifest = '[module]\ntransport = "wasm"\ntype = "tool"\n[wasm]\nmax_memory_mb = 256\n'
    coordinator = await mount("tool-grow", module_dir(tmp_path, components["grow"], manifest))
    result = await coordinator.get("tools")["wasm_echo"].execute({})
    assert (result.success, result.output) == (True, "granted")


async def test_the_cpu_limit_stops_a_spinning_component(tmp_path: Path, components: dict[str, Path]) -> None:
    manifest = '[module]\ntransport = "wasm"\ntype = "tool"\n[wasm]\nmax_cpu_seconds = 0.2\n'
    coordinator = await mount("tool-spin", module_dir(tmp_path, components["spin"], manifest))
    result = await coordinator.get("tools")["wasm_echo"].execute({})
    assert not result.success
    assert result.error["message"] == "WASM module 'tool-spin': execute ran past its CPU limit (0.2 s) and was stopped"


async def test_wasi_gives_a_component_no_environment_and_no_directories(tmp_path: Path,
                                                                       components: dict[str, Path],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMPLIFIER_TEST_SECRET", "not for components")
    coordinator = await mount("tool-wasi", module_dir(tmp_path, components["wasi"], None))
    result = await coordinator.get("tools")["wasi_probe"].execute({})
    assert (result.success, result.output) == (True, "env=0 dirs=0")


async def test_a_type_that_contradicts_the_exports_is_refused(tmp_path: Path, components: dict[str, Path]) -> None:
    manifest = '[module]\ntransport = "wasm"\ntype = "provider"\n'
    with pytest.raises(ModuleValidationError, match=r"module\.type.*says 'provider' but .* exports the tool"):
        await mount("provider-w", module_dir(tmp_path, components["echo"], manifest))


async def test_a_file_that_is_not_a_component_is_one_clear_error(tmp_path: Path) -> None:
    directory = tmp_path / "bad"
    directory.mkdir()
    (directory / "junk.wasm").write_bytes(b"not wasm at all")
    with pytest.raises(ModuleValidationError, match="is not a WebAssembly component wasmtime can compile"):
        await mount("tool-junk", directory)


class PythonNote:
    """A Python tool the WASM orchestrator calls through the kernel service."""

    name = "python_note"
    description = "records notes"
    input_schema: dict[str, Any] = {"type": "object"}

    def __init__(self) -> None:
        self.notes: list[dict[str, Any]] = []

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        self.notes.append(input)
        return ToolResult(output="noted")


class PythonProvider:
    name = "python"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def complete(self, request: Any, **kwargs: Any) -> ChatResponse:
        self.prompts.append(request.messages[-1].content)
        return ChatResponse(content=[{"type": "text", "text": "answered by Python"}])


async def test_a_wasm_orchestrator_reaches_python_tools_and_providers(tmp_path: Path,
                                                                      components: dict[str, Path]) -> None:
    coordinator = ModuleCoordinator(session=BareSession())
    note, provider = PythonNote(), PythonProvider()
    await coordinator.mount("tools", note, name=note.name)
    await coordinator.mount("providers", provider, name=provider.name)
    await mount("loop-wasm", module_dir(tmp_path, components["orchestrator"], None), coordinator)
    answer = await coordinator.get("orchestrator").execute("what now", None, coordinator.get("providers"),
                                                           coordinator.get("tools"), coordinator.hooks)
    assert note.notes == [{"note": "from wasm"}]
    assert provider.prompts == ["what now"]
    assert '"answered by Python"' in answer


async def test_without_wasmtime_one_message_names_the_extra(tmp_path: Path, components: dict[str, Path],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "wasmtime", None)  # as if wasmtime were not installed
    with pytest.raises(ModuleValidationError) as raised:
        await mount("tool-noextra", module_dir(tmp_path, components["echo"], None))
    assert "WASM modules need the optional packages" in str(raised.value)
    assert "pip install 'amplifier[polyglot]'" in str(raised.value)


def build(tmp_path: Path, name: str, text: str) -> Path:
    directory = tmp_path / name
    directory.mkdir()
    compile_to_file(text, directory / f"{name}.wasm")
    return directory


async def test_a_wasm_hook_subscribes_and_answers(tmp_path: Path) -> None:
    from polyglot.components import static_component

    text = static_component("hook-handler", {
        "get-subscriptions": (1, "list", [{"event": "tool:pre", "priority": 3, "name": "wasm-guard"}]),
        "handle": (1, "result", {"action": "deny", "reason": "the component says no"}),
    })
    coordinator = await mount("hooks-wasm", build(tmp_path, "hooks-wasm", text))
    result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash"})
    assert (result.action, result.reason) == ("deny", "the component says no")
    assert [entry for entry in coordinator.hooks.list_handlers("tool:pre")["tool:pre"]] == ["wasm-guard"]


async def test_a_wasm_provider_completes(tmp_path: Path) -> None:
    from polyglot.components import static_component

    from amplifier_core import ChatRequest, Message

    text = static_component("provider", {
        "get-info": (0, "list", {"id": "wasmy", "display_name": "Wasmy"}),
        "list-models": (0, "result", [{"id": "w-1", "display_name": "W", "context_window": 8,
                                       "max_output_tokens": 4}]),
        "complete": (1, "result", {"content": [{"type": "text", "text": "from a component"}]}),
        "parse-tool-calls": (1, "result", []),
    })
    coordinator = await mount("provider-wasmy", build(tmp_path, "provider-wasmy", text))
    provider = coordinator.get("providers")["wasmy"]
    response = await provider.complete(ChatRequest(messages=[Message(role="user", content="hi")]))
    assert response.content[0].text == "from a component"
    assert [model.id for model in await provider.list_models()] == ["w-1"]


async def test_a_wasm_context_and_approval_mount(tmp_path: Path) -> None:
    from polyglot.components import static_component

    context_text = static_component("context-manager", {
        "add-message": (1, "unit", None), "get-messages": (0, "result", [{"role": "user", "content": "kept"}]),
        "get-messages-for-request": (1, "result", []), "set-messages": (1, "unit", None), "clear": (0, "unit", None),
    })
    approval_text = static_component("approval-provider", {"request-approval": (1, "result", {"approved": True})})
    coordinator = await mount("context-wasm", build(tmp_path, "context-wasm", context_text))
    await mount("approval-wasm", build(tmp_path, "approval-wasm", approval_text), coordinator)
    context = coordinator.get("context")
    await context.add_message({"role": "user", "content": "hi"})
    assert await context.get_messages() == [{"role": "user", "content": "kept"}]
    assert await coordinator.approval_system.request_approval("Run it?", ["Allow", "Deny"], 5.0, "deny") == "allow"


async def test_bytes_that_do_not_decode_are_one_error_naming_the_module_and_function(tmp_path: Path) -> None:
    from polyglot.components import static_component

    spec = static_component("tool", {"get-spec": (0, "list", b"\x0a\x04echo"), "execute": (1, "result", {})})
    with pytest.raises(ModuleValidationError) as raised:
        await mount("tool-proto", build(tmp_path, "tool-proto", spec))
    assert "WASM module 'tool-proto': get-spec returned bytes that are not UTF-8 JSON" in str(raised.value)
    answer = static_component("tool", {"get-spec": (0, "list", {"name": "garbled"}),
                                       "execute": (1, "result", b"\xff\xfe")})
    coordinator = await mount("tool-garbled", build(tmp_path, "tool-garbled", answer))
    result = await coordinator.get("tools")["garbled"].execute({})
    assert not result.success
    assert result.error["message"].startswith("WASM module 'tool-garbled': execute returned bytes that are not")


# Upstream's wit/amplifier-modules.wit (microsoft/amplifier-core), function by function: what a component built
# for amplifier-core 2.0.2's engine or with upstream's guest SDK exports and imports.
UPSTREAM = {
    "tool": {"get-spec": "func() -> list<u8>",
             "execute": "func(input: list<u8>) -> result<list<u8>, string>"},
    "hook-handler": {"handle": "func(event: list<u8>) -> result<list<u8>, string>",
                     "get-subscriptions": "func(config: list<u8>) -> "
                                          "list<record{event: string, priority: s32, name: string}>"},
    "context-manager": {"add-message": "func(message: list<u8>) -> result<_, string>",
                        "get-messages": "func() -> result<list<u8>, string>",
                        "get-messages-for-request": "func(params: list<u8>) -> result<list<u8>, string>",
                        "set-messages": "func(messages: list<u8>) -> result<_, string>",
                        "clear": "func() -> result<_, string>"},
    "approval-provider": {"request-approval": "func(request: list<u8>) -> result<list<u8>, string>"},
    "provider": {"get-info": "func() -> list<u8>", "list-models": "func() -> result<list<u8>, string>",
                 "complete": "func(request: list<u8>) -> result<list<u8>, string>",
                 "parse-tool-calls": "func(response: list<u8>) -> result<list<u8>, string>"},
    "orchestrator": {"execute": "func(request: list<u8>) -> result<list<u8>, string>"},
    "kernel-service": {name: f"func(request: list<u8>) -> result<{ok}, string>" for name, ok in [
        ("execute-tool", "list<u8>"), ("complete-with-provider", "list<u8>"), ("emit-hook", "list<u8>"),
        ("get-messages", "list<u8>"), ("add-message", "_"), ("get-capability", "list<u8>"),
        ("register-capability", "_")]},
}


def wit_signatures() -> dict[str, dict[str, str]]:
    """The functions of polyglot/wit/amplifier-modules.wit in the spelling of ``interface_signatures``."""
    import re

    from amplifier_core.polyglot.wasm_runtime import WIT_FILE

    text = re.sub(r"//[^\n]*", "", WIT_FILE.read_text(encoding="utf-8"))
    found: dict[str, dict[str, str]] = {}
    for interface, body in re.findall(r"interface ([a-z-]+) \{(.*?)\n\}", text, re.S):
        records = {name: "record{" + ", ".join(" ".join(field.split()) for field in fields.strip(", \n").split(","))
                          + "}"
                   for name, fields in re.findall(r"record ([a-z-]+) \{(.*?)\}", body, re.S)}
        functions = {}
        for name, signature in re.findall(r"([a-z-]+): (func\(.*?\)(?: -> [^;]+)?);", body):
            for record, spelled in records.items():
                signature = signature.replace(f"<{record}>", f"<{spelled}>")
            functions[name] = " ".join(signature.split())
        found[interface] = functions
    return found


def test_the_wit_file_declares_upstreams_functions_and_types() -> None:
    assert wit_signatures() == UPSTREAM


def test_upstream_shaped_components_have_upstreams_signatures() -> None:
    from polyglot.components import interface_signatures, upstream_hook_component, upstream_orchestrator_component
    from wasmtime import wat2wasm

    hook = bytes(wat2wasm(upstream_hook_component("tool:pre", 1, "x", {})))
    loop = bytes(wat2wasm(upstream_orchestrator_component({"name": "x"}, "c", "v")))
    assert interface_signatures(hook, "amplifier:modules/hook-handler@1.0.0") == UPSTREAM["hook-handler"]
    assert interface_signatures(loop, "amplifier:modules/orchestrator@1.0.0") == UPSTREAM["orchestrator"]
    assert interface_signatures(loop, "amplifier:modules/kernel-service@1.0.0", imported=True) == \
        UPSTREAM["kernel-service"]


async def test_an_upstream_hook_component_subscribes_with_records_and_answers(tmp_path: Path) -> None:
    from polyglot.components import upstream_hook_component

    answer = {"action": "inject_context", "context_injection": "mind the sandbox", "context_injection_role": "User",
              "user_message_level": "Warning", "approval_timeout": 300.0, "append_to_last_tool_result": None}
    text = upstream_hook_component("tool:pre", 7, "upstream-guard", answer)  # as the guest SDK serialises it
    coordinator = await mount("hooks-upstream", build(tmp_path, "hooks-upstream", text))
    result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash"})
    assert (result.action, result.context_injection, result.context_injection_role, result.user_message_level) == \
        ("inject_context", "mind the sandbox", "user", "warning")
    assert coordinator.hooks.list_handlers("tool:pre")["tool:pre"] == ["upstream-guard"]


@pytest.mark.parametrize("first_wit", [False, True], ids=["upstream", "first-wit"])
async def test_an_upstream_orchestrator_uses_every_kernel_service_signature(tmp_path: Path, first_wit: bool) -> None:
    """Upstream's kernel-service signatures, and this project's first ones (still served)."""
    from polyglot.components import upstream_orchestrator_component

    coordinator = ModuleCoordinator(session=BareSession())
    note = PythonNote()
    await coordinator.mount("tools", note, name=note.name)
    text = upstream_orchestrator_component({"name": "python_note", "input": {"note": "upstream"}},
                                           "wasm.answer", "from a capability", first_wit)
    await mount("loop-upstream", build(tmp_path, "loop-upstream", text), coordinator)
    answer = await coordinator.get("orchestrator").execute("go", None, {}, coordinator.get("tools"),
                                                           coordinator.hooks)
    assert answer == "from a capability"  # register-capability, then get-capability's JSON string, unwrapped
    assert note.notes == [{"note": "upstream"}]
    assert coordinator.get_capability("wasm.answer") == "from a capability"


async def test_a_hook_whose_answer_does_not_decode_is_one_warning_and_the_event_passes(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from polyglot.components import static_component

    text = static_component("hook-handler", {"get-subscriptions": (1, "list", [{"event": "tool:pre"}]),
                                             "handle": (1, "result", b"\x08\x03")})  # a proto HookResult
    coordinator = await mount("hooks-proto", build(tmp_path, "hooks-proto", text))
    result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash"})
    assert result.action == "continue"
    warnings = [record for record in caplog.records if record.levelname == "WARNING"]
    assert [record.getMessage() for record in warnings] == [
        "WASM module 'hooks-proto': handle returned bytes that are not UTF-8 JSON "
        "(Expecting value: line 1 column 1 (char 0)) (event tool:pre)"]
    assert all(record.exc_info is None for record in caplog.records)
