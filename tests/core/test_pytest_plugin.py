"""The ``amplifier_module`` pytest plugin, exercised by running small module test suites through pytester
(in strict asyncio mode and without any ini file, as in a module author's fresh repository)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from testkit.module_packages import IN_MEMORY_CONTEXT, KEY_GATED_PROVIDER, write_module_package

import amplifier_core.pytest_plugin as plugin

pytest_plugins = ["pytester"]

CORE_VALIDATION = Path(plugin.__file__).parent / "validation"

TINY_TOOL = """
    from amplifier_core import ToolResult

    class Tiny:
        name = "tiny"
        description = "Returns what it was given"
        input_schema = {"type": "object", "properties": {}}

        async def execute(self, input):
            return ToolResult(output=dict(input))

    async def mount(coordinator, config):
        await coordinator.mount("tools", Tiny())
"""

LOOP = """
    from amplifier_core import ChatRequest, Message
    from amplifier_core.message_models import response_text

    class Loop:
        async def execute(self, prompt, context, providers, tools, hooks, **kwargs):
            await context.add_message({"role": "user", "content": prompt or "(empty)"})
            request = ChatRequest(messages=[Message(**m) for m in await context.get_messages_for_request()])
            response = await next(iter(providers.values())).complete(request)
            await context.add_message({"role": "assistant", "content": response_text(response)})
            await hooks.emit("orchestrator:complete", {"response": response_text(response)})
            return response_text(response)

    async def mount(coordinator, config):
        await coordinator.mount("orchestrator", Loop())
"""

HOOK = """
    from amplifier_core import HookResult

    async def guard(event, data):
        if isinstance(data.get("tool_input"), dict) and data["tool_input"].get("danger"):
            return HookResult(action="deny", reason="dangerous")
        return HookResult()

    async def mount(coordinator, config):
        return coordinator.hooks.register("tool:pre", guard, name="guard")
"""


def make_module(root: Path, directory: str, package: str, source: str) -> Path:
    """Write the module package ``root/directory/package``; return ``root/directory``."""
    return write_module_package(root / directory, package, source).parent


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # strict asyncio mode (pytest-asyncio's default); the loop scope option only silences its deprecation notice
    return pytester.runpytest("-p", "no:cacheprovider", "-o", "asyncio_default_fixture_loop_scope=function", *args)


def test_module_repository_suite_subclassing_behavior_tests_runs_in_strict_mode(pytester: pytest.Pytester) -> None:
    repo = make_module(pytester.path, "amplifier-module-tool-tiny", "amplifier_module_tool_tiny", TINY_TOOL)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_behavior.py").write_text(textwrap.dedent("""
        from amplifier_core.validation.behavioral import ToolBehaviorTests

        class TestTiny(ToolBehaviorTests):
            pass

        def test_detected(module_path, module_type, is_module_context):
            assert module_path.name == "amplifier_module_tool_tiny"
            assert module_type == "tool"
            assert is_module_context is True  # found from the argument path
    """))
    result = run(pytester, str(repo / "tests"))
    result.assert_outcomes(passed=8)


def test_module_tests_in_our_layout_find_their_module_by_walking_up(pytester: pytest.Pytester) -> None:
    module_root = make_module(pytester.path / "modules", "tool-tiny", "amplifier_module_tool_tiny", TINY_TOOL)
    (module_root / "tests").mkdir()
    (module_root / "tests" / "test_tiny.py").write_text(textwrap.dedent("""
        from amplifier_core.validation.behavioral import ToolBehaviorTests

        class TestTiny(ToolBehaviorTests):
            pass

        def test_not_a_global_module_context(is_module_context):
            assert is_module_context is False  # our layout is recognised per test, never globally
    """))
    run(pytester, str(module_root / "tests")).assert_outcomes(passed=8)


def test_running_from_inside_a_module_repository_sets_module_context(pytester: pytest.Pytester) -> None:
    repo = make_module(pytester.path, "amplifier-module-hooks-guard", "amplifier_module_hooks_guard", HOOK)
    (repo / "test_context.py").write_text(textwrap.dedent("""
        def test_context(is_module_context, module_type):
            assert is_module_context is True
            assert module_type == "hook"
    """))
    result = run(pytester, "--rootdir", str(repo), str(repo / "test_context.py"))
    result.assert_outcomes(passed=1)


def test_a_checkout_under_any_name_is_found_by_the_package_inside_it(pytester: pytest.Pytester) -> None:
    """2.0.2 also looks for an ``amplifier_module_<type>_*`` package directly inside the working directory, the
    rootdir and each test path, so a module repository cloned as ``checkout/`` still runs its inherited suites."""
    repo = make_module(pytester.path, "checkout", "amplifier_module_tool_tiny", TINY_TOOL)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_behavior.py").write_text(textwrap.dedent("""
        from amplifier_core.validation.behavioral import ToolBehaviorTests

        class TestTiny(ToolBehaviorTests):
            pass

        def test_detected(module_path, module_type, is_module_context):
            assert (module_path.name, module_type, is_module_context) == ("amplifier_module_tool_tiny", "tool", True)
    """))
    run(pytester, "--rootdir", str(repo), str(repo / "tests")).assert_outcomes(passed=8)
    run(pytester, str(repo)).assert_outcomes(passed=8)


def test_core_behavioral_suite_runs_against_our_module_layout_via_module_path(pytester: pytest.Pytester) -> None:
    module_root = make_module(pytester.path / "modules", "tool-tiny", "amplifier_module_tool_tiny", TINY_TOOL)
    result = run(pytester, str(CORE_VALIDATION / "behavioral"), f"--module-path={module_root}", "-rs")
    result.assert_outcomes(passed=7, skipped=28)
    result.stdout.fnmatch_lines(["*provider suite does not apply to a tool module*"])


def test_core_suites_are_skipped_without_a_module_under_test(pytester: pytest.Pytester) -> None:
    result = run(pytester, str(CORE_VALIDATION / "behavioral" / "test_tool.py"),
                 str(CORE_VALIDATION / "structural" / "test_tool.py"), "-rs")
    result.assert_outcomes(skipped=8)
    result.stdout.fnmatch_lines(["*needs a module under test (--module-path)*"])


@pytest.mark.parametrize(
    ("module_type", "directory", "package", "source", "expected"),
    [
        ("orchestrator", "loop-tiny", "amplifier_module_loop_tiny", LOOP, 6),
        ("context", "context-tiny", "amplifier_module_context_tiny", IN_MEMORY_CONTEXT, 10),
        ("hook", "hooks-guard", "amplifier_module_hooks_guard", HOOK, 7),
    ],
)
def test_core_behavioral_suite_of_each_type_passes_for_a_good_module(
    pytester: pytest.Pytester, module_type: str, directory: str, package: str, source: str, expected: int
) -> None:
    module_root = make_module(pytester.path, directory, package, source)
    suite = CORE_VALIDATION / "behavioral" / f"test_{module_type}.py"
    result = run(pytester, str(suite), f"--module-path={module_root / package}")
    result.assert_outcomes(passed=expected)


LOOSE_HOOK = """
    from amplifier_core import HookResult

    async def mount(coordinator, config):
        async def note(event, data):
            return HookResult()
        coordinator.hooks.register("tool:pre", note, name="note")
        return "registered"  # not a cleanup: 2.0.2's loader treats it as none
"""

DICT_TOOL = """
    class DictTool:
        name = "dicty"
        description = "Answers with a plain dict"
        input_schema = {"type": "object", "properties": {}}

        async def execute(self, input):
            return {"output": "x"}

    async def mount(coordinator, config):
        await coordinator.mount("tools", DictTool())
"""


def test_inherited_suites_fail_a_module_exactly_where_2_0_2_does(pytester: pytest.Pytester) -> None:
    """A mount() answer that is not callable is no cleanup (hook suite passes), and a tool answering dicts fails
    only the two tests that look at the result, not the bad-input one, which fails on code errors only."""
    hook = make_module(pytester.path, "hooks-loose", "amplifier_module_hooks_loose", LOOSE_HOOK)
    run(pytester, str(CORE_VALIDATION / "behavioral" / "test_hook.py"),
        f"--module-path={hook}").assert_outcomes(passed=7)
    tool = make_module(pytester.path, "tool-dicty", "amplifier_module_tool_dicty", DICT_TOOL)
    result = run(pytester, str(CORE_VALIDATION / "behavioral" / "test_tool.py"), f"--module-path={tool}")
    result.assert_outcomes(passed=5, failed=2)
    result.stdout.fnmatch_lines(["*FAILED*test_execute_returns_tool_result*",
                                 "*FAILED*test_tool_result_has_required_fields*"])


def test_provider_suite_uses_module_config_and_fails_clearly_without_it(pytester: pytest.Pytester) -> None:
    module_root = make_module(pytester.path, "provider-keyed", "amplifier_module_provider_keyed", KEY_GATED_PROVIDER)
    suite = str(CORE_VALIDATION / "behavioral" / "test_provider.py")
    without = run(pytester, suite, f"--module-path={module_root}")
    without.assert_outcomes(errors=5)
    without.stdout.fnmatch_lines(["*mounted nothing at 'providers'*--module-config*"])
    with_key = run(pytester, suite, f"--module-path={module_root}", '--module-config={"api_key": "test-key"}')
    with_key.assert_outcomes(passed=5)


def test_structural_suite_reports_validator_errors(pytester: pytest.Pytester) -> None:
    good = make_module(pytester.path, "tool-tiny", "amplifier_module_tool_tiny", TINY_TOOL)
    bad = make_module(pytester.path, "tool-sync", "amplifier_module_tool_sync",
                      "def mount(coordinator, config):\n    pass\n")
    suite = str(CORE_VALIDATION / "structural" / "test_tool.py")
    run(pytester, suite, f"--module-path={good}").assert_outcomes(passed=1)
    failing = run(pytester, suite, f"--module-path={bad}")
    failing.assert_outcomes(failed=1)
    failing.stdout.fnmatch_lines(["*[[]mount_signature[]] mount() should be async*"])


def test_module_path_that_is_not_a_module_is_a_usage_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "empty").mkdir()
    result = run(pytester, f"--module-path={pytester.path / 'empty'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--module-path*no amplifier module package there*"])


def test_bad_module_config_json_is_a_usage_error(pytester: pytest.Pytester) -> None:
    module_root = make_module(pytester.path, "tool-tiny", "amplifier_module_tool_tiny", TINY_TOOL)
    result = run(pytester, str(CORE_VALIDATION / "behavioral" / "test_tool.py"), f"--module-path={module_root}",
                 "--module-config=[1]")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--module-config must be a JSON object*"])


def test_mock_deps_and_coordinator_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fixtures="""
        from amplifier_core.testing import EventRecorder, MockContextManager, MockCoordinator, MockTool

        def test_mock_deps(mock_deps, coordinator, module_path, module_type):
            context, providers, tools, hooks = mock_deps
            assert isinstance(context, MockContextManager) and isinstance(hooks, EventRecorder)
            assert providers["default"].name == "mock"
            assert isinstance(tools["test_tool"], MockTool) and tools["test_tool"].output == "test result"
            assert isinstance(coordinator, MockCoordinator)
            assert module_path is None and module_type is None
    """)
    run(pytester).assert_outcomes(passed=1)


def test_plugin_registers_marker_and_options(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--markers")
    result.stdout.fnmatch_lines(["*module_validation*"])
    help_text = run(pytester, "--help")
    help_text.stdout.fnmatch_lines(["*--module-path=*", "*--module-config=*"])


@pytest.mark.parametrize(
    ("name", "expected"),
    [("amplifier-module-hooks-logging", "hook"), ("loop-basic", "orchestrator"),
     ("amplifier_module_provider_openai", "provider"), ("context-simple", "context"), ("tool-bash", "tool"),
     ("something-else", None)],
)
def test_module_type_from_name_normalizes_prefixes(name: str, expected: str | None) -> None:
    assert plugin.module_type_from_name(name) == expected


def test_plugin_import_does_not_import_the_rest_of_the_kernel() -> None:
    import subprocess
    import sys

    code = ("import sys, amplifier_core.pytest_plugin; "
            "print(sorted(m for m in ('amplifier_core.testing', 'amplifier_core.validation', 'unittest.mock') "
            "if m in sys.modules))")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "[]"
