"""Per-type module validators (reference §12.3, §13 item 53): named checks over broken and good modules,
imported in isolation so validation never leaves the module in sys.modules."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from testkit.module_packages import IN_MEMORY_CONTEXT, KEY_GATED_PROVIDER
from testkit.module_packages import write_module_package as write_package

from amplifier_core.validation import (
    ContextValidator,
    HookValidator,
    OrchestratorValidator,
    ProviderValidator,
    ToolValidator,
    ValidationCheck,
    ValidationResult,
    check_on_session_ready,
)

UPSTREAM_STYLE = Path(__file__).resolve().parents[1] / "fixtures" / "upstream_style_module"


def check(result: ValidationResult, name: str) -> ValidationCheck:
    matches = [item for item in result.checks if item.name == name]
    assert matches, f"no check named {name}: {[item.name for item in result.checks]}"
    return matches[0]


GOOD_TOOL = """
    from amplifier_core import ToolResult

    class Echo:
        name = "echo"
        description = "Echoes its input"
        input_schema = {"type": "object", "properties": {"text": {"type": "string"}}}

        async def execute(self, input):
            return ToolResult(output=input.get("text", ""))

    async def mount(coordinator, config):
        await coordinator.mount("tools", Echo())
"""

# -- results ----------------------------------------------------------------------------------------------
def test_validation_result_passes_unless_an_error_check_failed() -> None:
    result = ValidationResult(module_type="tool", module_path="/x")
    result.add(ValidationCheck("a", True, "ok", "info"))
    result.add(ValidationCheck("b", False, "meh", "warning"))
    assert result.passed and [item.name for item in result.warnings] == ["b"]
    assert result.summary() == "PASSED: 1/2 checks passed (0 errors, 1 warnings)"
    result.add(ValidationCheck("c", False, "bad", "error"))
    assert not result.passed and [item.name for item in result.errors] == ["c"]
    assert result.summary() == "FAILED: 1/3 checks passed (1 errors, 1 warnings)"
    assert result.to_dict()["checks"][2] == {"name": "c", "passed": False, "message": "bad", "severity": "error"}


# -- module_importable / mount_exists / mount_signature -----------------------------------------------------
async def test_validator_nonexistent_path_fails_with_import_message(tmp_path: Path) -> None:
    result = await ToolValidator().validate(tmp_path / "missing" / "amplifier_module_tool_x")
    assert not result.passed
    assert [item.name for item in result.checks] == ["module_importable"]
    assert "import" in result.errors[0].message.lower()


async def test_validator_unknown_dotted_name_fails_with_import_message() -> None:
    result = await ToolValidator().validate("amplifier_module_surely_not_installed_anywhere")
    assert "import" in check(result, "module_importable").message.lower()
    assert not result.passed


async def test_validator_import_error_inside_module_fails_module_importable(tmp_path: Path) -> None:
    package = write_package(tmp_path, "amplifier_module_tool_broken", "import a_dependency_that_is_not_installed\n")
    result = await ToolValidator().validate(package)
    importable = check(result, "module_importable")
    assert not importable.passed and "Failed to import module" in importable.message
    assert "a_dependency_that_is_not_installed" in importable.message


async def test_validator_exception_while_importing_reports_error_loading(tmp_path: Path) -> None:
    package = write_package(tmp_path, "amplifier_module_tool_boom", "raise RuntimeError('boom at import')\n")
    result = await ToolValidator().validate(package)
    assert check(result, "module_importable").message == "Error loading module: RuntimeError: boom at import"


async def test_validator_file_without_mount_fails_with_mount_message(tmp_path: Path) -> None:
    module_file = tmp_path / "no_mount.py"
    module_file.write_text("VALUE = 1\n")
    result = await ToolValidator().validate(module_file)
    assert check(result, "module_importable").passed
    mount = check(result, "mount_exists")
    assert not mount.passed and "mount" in mount.message
    assert [item.name for item in result.checks] == ["module_importable", "mount_exists"]


async def test_validator_non_callable_mount_fails(tmp_path: Path) -> None:
    package = write_package(tmp_path, "amplifier_module_tool_x", "mount = 'not a function'\n")
    assert "not callable" in check(await ToolValidator().validate(package), "mount_exists").message


async def test_validator_sync_mount_fails_signature_with_async_message(tmp_path: Path) -> None:
    package = write_package(tmp_path, "amplifier_module_tool_sync", "def mount(coordinator, config):\n    pass\n")
    result = await ToolValidator().validate(package)
    signature = check(result, "mount_signature")
    assert not signature.passed and "async" in signature.message
    assert not any(item.name == "protocol_compliance" for item in result.checks)


async def test_validator_one_parameter_mount_fails_with_two_parameters_message(tmp_path: Path) -> None:
    package = write_package(tmp_path, "amplifier_module_tool_one", "async def mount(coordinator):\n    pass\n")
    signature = check(await ToolValidator().validate(package), "mount_signature")
    assert not signature.passed
    assert "2 parameters" in signature.message and "found 1" in signature.message


async def test_validator_directory_without_init_fails(tmp_path: Path) -> None:
    (tmp_path / "not_a_package").mkdir()
    (tmp_path / "not_a_package" / "mount.py").write_text("async def mount(c, config):\n    pass\n")
    result = await ToolValidator().validate(tmp_path / "not_a_package")
    importable = check(result, "module_importable")
    assert not importable.passed and "No __init__.py found" in importable.message


async def test_validator_accepts_a_module_root_directory_holding_one_package(tmp_path: Path) -> None:
    root = tmp_path / "tool-echo"
    write_package(root, "amplifier_module_tool_echo", GOOD_TOOL)
    result = await ToolValidator().validate(root)
    assert result.passed, result.errors


# -- protocol_compliance --------------------------------------------------------------------------------------
async def test_validator_provider_mounting_only_with_api_key_fails_without_config_passes_with_it(
    tmp_path: Path,
) -> None:
    package = write_package(tmp_path, "amplifier_module_provider_gated", KEY_GATED_PROVIDER)
    without = await ProviderValidator().validate(package)
    compliance = check(without, "protocol_compliance")
    assert not without.passed and not compliance.passed
    assert "No provider was mounted" in compliance.message and "config" in compliance.message

    with_key = await ProviderValidator().validate(package, config={"api_key": "test-key"})
    assert with_key.passed, with_key.errors
    names = {item.name for item in with_key.checks}
    assert {"provider_name", "provider_get_info", "provider_list_models", "provider_complete",
            "provider_parse_tool_calls"} <= names



async def test_passing_checks_use_the_words_of_2_0_2_that_upstream_tests_look_for(tmp_path: Path) -> None:
    provider = await ProviderValidator().validate(
        write_package(tmp_path / "p", "amplifier_module_provider_worded", KEY_GATED_PROVIDER),
        config={"api_key": "test-key"})
    messages = {item.name: item.message for item in provider.checks}
    assert "implements Provider interface" in messages["protocol_compliance"]
    assert messages["mount_signature"] == "mount() is async with correct signature"
    assert messages["provider_list_models"] == "Provider.list_models() is async"
    assert messages["provider_complete"] == "Provider.complete() has correct async signature"
    assert messages["provider_parse_tool_calls"] == "Provider.parse_tool_calls() exists and is callable"
    assert messages["provider_name"].startswith("Provider has name: '")

    tool = await ToolValidator().validate(write_package(tmp_path / "t", "amplifier_module_tool_worded", GOOD_TOOL),
                                          config={"unused": True})
    messages = {item.name: item.message for item in tool.checks}
    assert messages["protocol_compliance"] == "Tool 'echo' implements Tool interface"
    assert (messages["tool_name"], messages["tool_description"], messages["tool_execute"]) == (
        "Tool has name: 'echo'", "Tool has description", "Tool.execute() has correct async signature")
    assert messages["tool_input_schema"] == "Tool.input_schema returns dict with 2 properties"

    context = await ContextValidator().validate(
        write_package(tmp_path / "c", "amplifier_module_context_worded", IN_MEMORY_CONTEXT))
    assert check(context, "protocol_compliance").message == "Context implements ContextManager interface"
    loop = await OrchestratorValidator().validate(
        write_package(tmp_path / "o", "amplifier_module_loop_worded", ORCHESTRATOR.format(extra=", **kwargs")))
    assert check(loop, "protocol_compliance").message == "Orchestrator implements Orchestrator interface"
    assert check(loop, "orchestrator_execute").message.startswith("Orchestrator.execute() has correct async signature")

async def test_validator_nothing_mounted_and_none_returned_is_an_error(tmp_path: Path) -> None:
    package = write_package(tmp_path, "amplifier_module_tool_idle", "async def mount(coordinator, config):\n    pass\n")
    result = await ToolValidator().validate(package)
    assert check(result, "protocol_compliance").message.startswith("No tool was mounted")
    assert not result.passed


async def test_validator_nothing_mounted_but_cleanup_returned_is_a_warning(tmp_path: Path) -> None:
    source = "async def mount(coordinator, config):\n    return lambda: None\n"
    result = await ToolValidator().validate(write_package(tmp_path, "amplifier_module_tool_later", source))
    compliance = check(result, "protocol_compliance")
    assert compliance.severity == "warning" and "cleanup callable" in compliance.message
    assert result.passed


async def test_validator_returned_instance_satisfying_protocol_passes(tmp_path: Path) -> None:
    source = GOOD_TOOL.replace('await coordinator.mount("tools", Echo())', "return Echo()")
    result = await ToolValidator().validate(write_package(tmp_path, "amplifier_module_tool_ret", source))
    assert result.passed and check(result, "protocol_compliance").passed


async def test_validator_exception_in_mount_is_reported(tmp_path: Path) -> None:
    source = "async def mount(coordinator, config):\n    raise ValueError('no endpoint configured')\n"
    result = await ToolValidator().validate(write_package(tmp_path, "amplifier_module_tool_raise", source))
    message = check(result, "protocol_compliance").message
    assert message == "Error during protocol compliance check: ValueError: no endpoint configured"


async def test_validator_runs_returned_and_registered_cleanups(tmp_path: Path) -> None:
    marker = tmp_path / "cleanups.txt"
    source = textwrap.dedent(GOOD_TOOL) + textwrap.dedent("""
        async def mount(coordinator, config):
            await coordinator.mount("tools", Echo())
            path = config["marker"]
            coordinator.register_cleanup(lambda: open(path, "a").write("registered\\n"))

            async def cleanup():
                open(path, "a").write("returned\\n")
            return cleanup
    """)
    package = write_package(tmp_path, "amplifier_module_tool_clean", source)
    result = await ToolValidator().validate(package, config={"marker": str(marker)})
    assert result.passed
    assert marker.read_text().splitlines() == ["returned", "registered"]


async def test_validator_tool_missing_members_fails_protocol_compliance(tmp_path: Path) -> None:
    source = """
        class Half:
            name = "half"

        async def mount(coordinator, config):
            await coordinator.mount("tools", Half())
    """
    result = await ToolValidator().validate(write_package(tmp_path, "amplifier_module_tool_half", source))
    compliance = check(result, "protocol_compliance")
    assert not compliance.passed and "description" in compliance.message and "execute" in compliance.message


async def test_validator_tool_without_description_only_warns_and_sync_execute_fails(tmp_path: Path) -> None:
    source = """
        class Plain:
            name = "plain"
            description = ""

            def execute(self, input):
                return None

        async def mount(coordinator, config):
            await coordinator.mount("tools", Plain())
    """
    result = await ToolValidator().validate(write_package(tmp_path, "amplifier_module_tool_plain", source))
    assert check(result, "tool_description").severity == "warning"
    execute = check(result, "tool_execute")
    assert not execute.passed and "async" in execute.message
    assert [item.name for item in result.errors] == ["tool_execute"]


async def test_validator_tool_non_dict_input_schema_fails(tmp_path: Path) -> None:
    source = GOOD_TOOL.replace('input_schema = {"type": "object", "properties": {"text": {"type": "string"}}}',
                               'input_schema = "text"')
    result = await ToolValidator().validate(write_package(tmp_path, "amplifier_module_tool_schema", source))
    assert not check(result, "tool_input_schema").passed


async def test_validator_provider_get_info_problems(tmp_path: Path) -> None:
    raising = KEY_GATED_PROVIDER.replace('return ProviderInfo(id="gated", display_name="Gated")',
                                            'raise RuntimeError("no key")')
    result = await ProviderValidator().validate(
        write_package(tmp_path / "a", "amplifier_module_provider_raising", raising), config={"api_key": "k"})
    assert check(result, "provider_get_info").severity == "warning" and result.passed

    wrong = KEY_GATED_PROVIDER.replace('return ProviderInfo(id="gated", display_name="Gated")',
                                          'return {"id": "gated"}')
    result = await ProviderValidator().validate(
        write_package(tmp_path / "b", "amplifier_module_provider_dict", wrong), config={"api_key": "k"})
    assert "ProviderInfo" in check(result, "provider_get_info").message and not result.passed


async def test_validator_provider_empty_name_and_sync_complete_fail(tmp_path: Path) -> None:
    source = (KEY_GATED_PROVIDER.replace('name = "gated"', 'name = ""')
              .replace("async def complete", "def complete")
              .replace('mount("providers", Gated())', 'mount("providers", Gated(), name="gated")'))
    result = await ProviderValidator().validate(
        write_package(tmp_path, "amplifier_module_provider_bad", source), config={"api_key": "k"})
    assert {item.name for item in result.errors} >= {"provider_name", "provider_complete"}


ORCHESTRATOR = """
    class Loop:
        async def execute(self, prompt, context, providers, tools, hooks{extra}):
            return "done"

    async def mount(coordinator, config):
        await coordinator.mount("orchestrator", Loop())
"""


async def test_validator_orchestrator_must_accept_coordinator_keyword(tmp_path: Path) -> None:
    good = await OrchestratorValidator().validate(
        write_package(tmp_path / "a", "amplifier_module_loop_good", ORCHESTRATOR.format(extra=", **kwargs")))
    assert good.passed and check(good, "orchestrator_accepts_coordinator").passed

    strict = await OrchestratorValidator().validate(
        write_package(tmp_path / "b", "amplifier_module_loop_strict", ORCHESTRATOR.format(extra="")))
    assert [item.name for item in strict.errors] == ["orchestrator_accepts_coordinator"]
    assert "coordinator=" in strict.errors[0].message


async def test_validator_orchestrator_execute_with_too_few_parameters_fails(tmp_path: Path) -> None:
    source = ORCHESTRATOR.replace("prompt, context, providers, tools, hooks{extra}", "prompt")
    result = await OrchestratorValidator().validate(write_package(tmp_path, "amplifier_module_loop_tiny", source))
    assert not check(result, "orchestrator_execute").passed


async def test_validator_context_checks_each_method(tmp_path: Path) -> None:
    good = await ContextValidator().validate(
        write_package(tmp_path / "a", "amplifier_module_context_mem", IN_MEMORY_CONTEXT))
    assert good.passed
    assert {item.name for item in good.checks} >= {
        "context_add_message", "context_get_messages_for_request", "context_get_messages",
        "context_set_messages", "context_clear"}

    without_set = IN_MEMORY_CONTEXT.replace("async def set_messages(self, messages):\n            self.messages = "
                                  "list(messages)\n", "")
    result = await ContextValidator().validate(
        write_package(tmp_path / "b", "amplifier_module_context_old", without_set))
    assert [item.name for item in result.errors] == ["context_set_messages"]


HOOK = """
    from amplifier_core import HookResult

    async def on_tool(event, data):
        return HookResult()

    {extra}

    async def mount(coordinator, config):
        coordinator.hooks.register("tool:pre", on_tool, name="on-tool")
        {register}
        return lambda: None
"""


async def test_validator_hook_checks_registered_handlers(tmp_path: Path) -> None:
    good = await HookValidator().validate(
        write_package(tmp_path / "a", "amplifier_module_hooks_ok", HOOK.format(extra="", register="")))
    assert good.passed and check(good, "hook_call").passed
    assert "tool:pre" in check(good, "protocol_compliance").message

    sync_handler = HOOK.format(extra="def sync_handler(event, data):\n        return None",
                               register='coordinator.hooks.on("tool:post", sync_handler)')
    bad = await HookValidator().validate(write_package(tmp_path / "b", "amplifier_module_hooks_sync", sync_handler))
    assert [item.message for item in bad.errors] == [
        "handler 'sync_handler' for 'tool:post' must be async: `async def handler(event, data) -> HookResult`"]


async def test_validator_hook_registering_nothing_only_warns(tmp_path: Path) -> None:
    source = "async def mount(coordinator, config):\n    return None\n"
    result = await HookValidator().validate(write_package(tmp_path, "amplifier_module_hooks_quiet", source))
    assert result.passed and check(result, "protocol_compliance").severity == "warning"


# -- extra checks ---------------------------------------------------------------------------------------------
def test_check_on_session_ready_requires_async_with_a_coordinator_parameter() -> None:
    class Plain:
        pass

    class Sync:
        def on_session_ready(self, coordinator):
            pass

    class NoArgs:
        async def on_session_ready(self):
            pass

    class Good:
        async def on_session_ready(self, coordinator):
            pass

    assert check_on_session_ready(Plain()) is None
    assert not check_on_session_ready(Sync()).passed
    assert not check_on_session_ready(NoArgs()).passed
    assert check_on_session_ready(Good()) is None  # 2.0.2 reports only problems


async def test_validator_reports_sync_on_session_ready(tmp_path: Path) -> None:
    source = textwrap.dedent(GOOD_TOOL) + "\ndef on_session_ready(coordinator):\n    pass\n"
    result = await ToolValidator().validate(write_package(tmp_path, "amplifier_module_tool_ready", source))
    assert [item.name for item in result.errors] == ["on_session_ready_async"]


async def test_validator_warns_when_declared_type_differs(tmp_path: Path) -> None:
    source = '__amplifier_module_type__ = "provider"\n' + textwrap.dedent(GOOD_TOOL)
    result = await ToolValidator().validate(write_package(tmp_path, "amplifier_module_tool_confused", source))
    assert check(result, "module_type_declared").severity == "warning" and result.passed


# -- the canonical module -------------------------------------------------------------------------------------
async def test_validation_imports_the_module_under_its_real_name_and_restores_sys_path(tmp_path: Path) -> None:
    """What is validated is the object the loader will mount: imported once, under its real name."""
    package = write_package(
        tmp_path, "amplifier_module_tool_layered",
        """
        from .impl import Echo
        from amplifier_module_tool_layered.names import TOOL_NAME

        MOUNTS = []

        async def mount(coordinator, config):
            MOUNTS.append(config)
            await coordinator.mount("tools", Echo(TOOL_NAME))
        """,
        {
            "impl.py": """
                from amplifier_core import ToolResult

                class Echo:
                    description = "echo"

                    def __init__(self, name):
                        self.name = name

                    async def execute(self, input):
                        return ToolResult(output=input)
            """,
            "names.py": "TOOL_NAME = 'layered'\n",
        },
    )
    path_before = list(sys.path)
    result = await ToolValidator().validate(package)
    assert result.passed, result.errors
    assert check(result, "tool_name").message == "Tool has name: 'layered'"
    assert sys.path == path_before
    canonical = sys.modules["amplifier_module_tool_layered"]
    assert Path(canonical.__file__).parent == package
    assert (await ToolValidator().validate(package)).passed
    assert sys.modules["amplifier_module_tool_layered"] is canonical  # validated again, not imported again


async def test_real_import_after_validation_gets_fresh_module_state(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    source = textwrap.dedent(GOOD_TOOL) + (
        "\nMOUNTS = []\n_original = mount\n\nasync def mount(coordinator, config):\n"
        "    MOUNTS.append(1)\n    await _original(coordinator, config)\n"
    )
    write_package(tmp_path, "amplifier_module_tool_fresh", source)
    assert (await ToolValidator().validate(tmp_path / "amplifier_module_tool_fresh")).passed
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "amplifier_module_tool_fresh", raising=False)
    import amplifier_module_tool_fresh  # type: ignore[import-not-found]

    try:
        assert amplifier_module_tool_fresh.MOUNTS == []
    finally:
        sys.modules.pop("amplifier_module_tool_fresh", None)


async def test_validator_imports_an_installed_package_by_dotted_name(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    write_package(tmp_path, "amplifier_module_tool_dotted", GOOD_TOOL)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        result = await ToolValidator().validate("amplifier_module_tool_dotted")
    finally:
        sys.modules.pop("amplifier_module_tool_dotted", None)
    assert result.passed, result.errors


async def test_validator_accepts_an_upstream_style_module() -> None:
    result = await ToolValidator().validate(UPSTREAM_STYLE)
    assert result.passed, result.errors
    assert check(result, "tool_name").message == "Tool has name: 'upstream_echo'"


async def test_validation_refuses_a_path_whose_package_name_is_already_imported_from_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replacing a live module object under another importer's feet is worse than a clear failure."""
    installed = write_package(tmp_path / "installed", "amplifier_module_tool_twin",
                              "from amplifier_module_tool_twin.names import NAME\n", {"names.py": "NAME = 'old'\n"})
    monkeypatch.syspath_prepend(str(installed.parent))
    import amplifier_module_tool_twin  # type: ignore[import-not-found]

    workspace = write_package(
        tmp_path / "workspace", "amplifier_module_tool_twin",
        "from amplifier_module_tool_twin.names import NAME\n"
        + textwrap.dedent(GOOD_TOOL).replace('name = "echo"', "name = NAME"),
        {"names.py": "NAME = 'new'\n"},
    )
    result = await ToolValidator().validate(workspace)
    assert not result.passed
    assert "Refusing to import" in check(result, "module_importable").message
    assert sys.modules["amplifier_module_tool_twin"] is amplifier_module_tool_twin
    assert sys.modules["amplifier_module_tool_twin.names"].NAME == "old"


def test_hook_validator_reads_registrations_from_a_plain_registry_too() -> None:
    """A coordinator that does not record registrations (not the kernel's MockCoordinator) still shows every
    handler the module registered."""
    from types import SimpleNamespace

    from amplifier_core.hooks import HookRegistry
    from amplifier_core.validation.hook import _registrations

    async def handler(event, data):
        return None

    registry = HookRegistry()
    registry.register("tool:pre", handler, priority=3, name="guard")
    [registration] = _registrations(SimpleNamespace(hooks=registry))
    assert (registration.event, registration.handler, registration.priority, registration.name) == (
        "tool:pre", handler, 3, "guard")
