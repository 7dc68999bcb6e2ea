"""Behaviour of AmplifierSession (reference section 7, section 13 items 33-41) and the failed-module report."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from amplifier_core import AmplifierSession, ModuleFailure, ModuleLoader

MINIMAL = {"session": {"orchestrator": "loop-basic", "context": "context-simple"}}


def record_events(session: AmplifierSession, *names: str) -> list[tuple[str, dict[str, Any]]]:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def capture(event: str, data: dict[str, Any]) -> None:
        seen.append((event, dict(data)))

    for name in names:
        session.coordinator.hooks.register(name, capture, name=f"record-{name}")
    return seen


# -- construction --------------------------------------------------------------------------------------

def test_session_requires_config_orchestrator_context() -> None:
    with pytest.raises(ValueError, match=r"^Configuration is required$"):
        AmplifierSession({})
    with pytest.raises(ValueError, match=r"^Configuration must specify session.orchestrator$"):
        AmplifierSession({"session": {"context": "context-simple"}})
    with pytest.raises(ValueError, match=r"^Configuration must specify session.orchestrator$"):
        AmplifierSession({"providers": []})
    with pytest.raises(ValueError, match=r"^Configuration must specify session.context$"):
        AmplifierSession({"session": {"orchestrator": "loop-basic"}})


def test_session_id_generated_uuid_or_provided_and_status_matches() -> None:
    generated = AmplifierSession(MINIMAL)
    assert str(uuid.UUID(generated.session_id)) == generated.session_id
    assert generated.status.session_id == generated.session_id and generated.status.status == "running"
    given = AmplifierSession(MINIMAL, session_id="parent-abc-child")
    assert given.session_id == "parent-abc-child" and given.status.session_id == "parent-abc-child"
    assert given.coordinator.session_id == "parent-abc-child"


def test_two_sessions_unique_ids() -> None:
    assert AmplifierSession(MINIMAL).session_id != AmplifierSession(MINIMAL).session_id


def test_session_wires_coordinator_loader_and_config_by_reference() -> None:
    session = AmplifierSession(MINIMAL, parent_id="p1")
    assert session.config is MINIMAL
    assert session.coordinator.session is session and session.coordinator.parent_id == "p1"
    assert isinstance(session.loader, ModuleLoader) and session.loader.coordinator is session.coordinator
    assert session.coordinator.loader is session.loader
    shared = ModuleLoader()
    assert AmplifierSession(MINIMAL, loader=shared).loader is shared


def test_approval_and_display_systems_reach_the_coordinator() -> None:
    approval, display = object(), object()
    session = AmplifierSession(MINIMAL, approval_system=approval, display_system=display)
    assert session.coordinator.approval_system is approval and session.coordinator.display_system is display


async def test_every_event_carries_session_and_parent_ids(session_factory) -> None:
    session = session_factory(parent_id="parent-9")
    seen = record_events(session, "custom:event")
    await session.coordinator.hooks.emit("custom:event", {"x": 1})
    assert seen[0][1]["session_id"] == session.session_id and seen[0][1]["parent_id"] == "parent-9"


def test_merge_configs_deep_merges_dicts_and_replaces_lists() -> None:
    base = {"a": {"b": 1, "c": [1]}, "d": 1}
    merged = AmplifierSession._merge_configs(base, {"a": {"c": [2], "e": 3}, "d": {"x": 1}})
    assert merged == {"a": {"b": 1, "c": [2], "e": 3}, "d": {"x": 1}}
    assert base == {"a": {"b": 1, "c": [1]}, "d": 1}


# -- execute -------------------------------------------------------------------------------------------

async def test_execute_raises_when_no_providers(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    plan["providers"] = []
    session = session_factory(plan)
    with pytest.raises(RuntimeError, match=r"^No providers mounted$"):
        await session.execute("hi")
    await session.cleanup()


async def test_execute_raises_when_orchestrator_or_context_unmounted(session_factory) -> None:
    session = session_factory()
    await session.initialize()
    context = session.coordinator.get("context")
    await session.coordinator.unmount("context")
    with pytest.raises(RuntimeError, match=r"^No context manager mounted$"):
        await session.execute("hi")
    await session.coordinator.mount("context", context)
    await session.coordinator.unmount("orchestrator")
    with pytest.raises(RuntimeError, match=r"^No orchestrator module mounted$"):
        await session.execute("hi")
    await session.cleanup()


async def test_execute_calls_orchestrator_with_coordinator_kwarg(session_factory) -> None:
    session = session_factory()
    assert await session.execute("ping") == "echo: ping"
    orchestrator = session.coordinator.get("orchestrator")
    assert orchestrator.calls[0]["coordinator"] is session.coordinator
    assert session.status.status == "completed"
    messages = await session.coordinator.get("context").get_messages()
    assert messages == [{"role": "user", "content": "ping"}, {"role": "assistant", "content": "echo: ping"}]
    await session.cleanup()


async def test_execute_initializes_lazily_and_only_once(session_factory) -> None:
    session = session_factory()
    await session.execute("a")
    orchestrator = session.coordinator.get("orchestrator")
    await session.execute("b")
    assert session.coordinator.get("orchestrator") is orchestrator and len(orchestrator.calls) == 2
    await session.cleanup()


async def test_execute_emits_session_start_or_resume_with_parent_id(session_factory, workshop) -> None:
    fresh = session_factory(parent_id="p1")
    seen = record_events(fresh, "session:start", "session:resume")
    await fresh.execute("hi")
    assert [event for event, _ in seen] == ["session:start"]
    assert seen[0][1]["session_id"] == fresh.session_id and seen[0][1]["parent_id"] == "p1"
    await fresh.cleanup()
    resumed = session_factory(workshop.standard_plan(), is_resumed=True)
    seen = record_events(resumed, "session:start", "session:resume")
    await resumed.execute("again")
    assert [event for event, _ in seen] == ["session:resume"]
    assert seen[0][1]["parent_id"] is None
    await resumed.cleanup()


async def test_fork_event_when_parent_id(session_factory, workshop) -> None:
    child = session_factory(parent_id="parent-1", session_id="parent-1-child")
    seen = record_events(child, "session:fork")
    await child.initialize()
    assert len(seen) == 1
    assert seen[0][1]["parent"] == "parent-1" and seen[0][1]["session_id"] == "parent-1-child"
    await child.cleanup()
    root = session_factory(workshop.standard_plan())
    root_seen = record_events(root, "session:fork")
    await root.initialize()
    assert root_seen == []
    await root.cleanup()


async def test_session_metadata_passed_through_on_start_and_fork(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    plan["session"]["metadata"] = {"profile": "dev"}
    session = session_factory(plan, parent_id="p")
    seen = record_events(session, "session:start", "session:fork")
    await session.execute("x")
    assert [data["metadata"] for _, data in seen] == [{"profile": "dev"}, {"profile": "dev"}]
    await session.cleanup()


async def test_session_raw_flag_attaches_redacted_config(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    plan["session"]["raw"] = True
    plan["providers"][0]["config"] = {"api_key": "sk-secret"}
    session = session_factory(plan)
    seen = record_events(session, "session:start")
    await session.execute("x")
    raw = seen[0][1]["raw"]
    assert raw["providers"][0]["config"]["api_key"] == "[REDACTED]"
    assert plan["providers"][0]["config"]["api_key"] == "sk-secret"
    await session.cleanup()


async def test_session_start_emitted_once_per_session(session_factory) -> None:
    session = session_factory()
    seen = record_events(session, "session:start")
    for prompt in ("one", "two", "three"):
        await session.execute(prompt)
    assert len(seen) == 1
    await session.cleanup()


async def test_execute_failure_sets_failed_and_last_error(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    plan["session"]["orchestrator"]["config"] = {"fail": "model exploded"}
    session = session_factory(plan)
    with pytest.raises(RuntimeError, match=r"model exploded"):
        await session.execute("hi")
    assert session.status.status == "failed"
    assert session.status.last_error == {"message": "model exploded"}
    await session.cleanup()


async def test_execute_failure_while_cancelled_sets_cancelled_and_emits_completed(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    plan["session"]["orchestrator"]["config"] = {"fail": "interrupted"}
    session = session_factory(plan)
    await session.initialize()
    seen = record_events(session, "cancel:completed")
    await session.coordinator.request_cancel(immediate=True)
    with pytest.raises(RuntimeError):
        await session.execute("hi")
    assert session.status.status == "cancelled"
    assert seen[0][1]["was_immediate"] is True and seen[0][1]["error"] == "interrupted"
    await session.cleanup()


async def test_execute_returning_after_cancel_sets_cancelled_and_emits_completed(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    plan["session"]["orchestrator"]["config"] = {"cancel": "graceful"}
    session = session_factory(plan)
    await session.initialize()
    seen = record_events(session, "cancel:requested", "cancel:completed")
    assert await session.execute("hi") == "echo: hi"
    assert session.status.status == "cancelled"
    assert [event for event, _ in seen] == ["cancel:requested", "cancel:completed"]
    assert seen[1][1]["was_immediate"] is False and "error" not in seen[1][1]
    await session.cleanup()


# -- initialize ----------------------------------------------------------------------------------------

async def test_initialize_orchestrator_failure_is_runtime_error(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    broken = workshop.unique("loop-broken")
    workshop.write(broken, "async def mount(coordinator, config):\n    raise OSError('disk on fire')\n")
    plan["session"]["orchestrator"] = {"module": broken}
    session = session_factory(plan)
    with pytest.raises(RuntimeError, match=r"^Cannot initialize without orchestrator: disk on fire$"):
        await session.initialize()
    await session.cleanup()


async def test_initialize_context_failure_is_runtime_error(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    plan["session"]["context"] = {"module": workshop.unique("context-missing")}
    session = session_factory(plan)
    with pytest.raises(RuntimeError, match=r"^Cannot initialize without context manager: Module 'context-missing"):
        await session.initialize()
    assert session.coordinator.get("orchestrator") is not None
    await session.cleanup()


async def test_provider_load_failure_is_non_fatal(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    broken = workshop.unique("provider-broken")
    workshop.write(broken, "async def mount(coordinator, config):\n    raise ConnectionError('no route')\n")
    plan["providers"].insert(0, {"module": broken})
    session = session_factory(plan)
    await session.initialize()
    assert list(session.coordinator.get("providers")) == ["echo"]
    assert session.failed_modules == [ModuleFailure(broken, "providers", "no route")]
    assert await session.execute("still works") == "echo: still works"
    await session.cleanup()


async def test_unprintable_exception_reported_with_repr(session_factory, workshop) -> None:
    source = '''
class Cp1252Error(Exception):
    def __str__(self):
        raise UnicodeDecodeError("charmap", b"\\x81", 0, 1, "undefined")

async def mount(coordinator, config):
    raise Cp1252Error("caf\\u00e9")
'''
    plan = workshop.standard_plan()
    provider, loop = workshop.unique("provider-cp1252"), workshop.unique("loop-cp1252")
    workshop.write(provider, source)
    workshop.write(loop, source)
    plan["providers"].append({"module": provider})
    session = session_factory(plan)
    await session.initialize()
    assert "Cp1252Error" in session.failed_modules[0].error and "café" in session.failed_modules[0].error
    await session.cleanup()
    plan = workshop.standard_plan()
    plan["session"]["orchestrator"] = {"module": loop}
    failing = session_factory(plan)
    with pytest.raises(RuntimeError, match=r"Cp1252Error"):
        await failing.initialize()
    await failing.cleanup()


async def test_failed_modules_lists_provider_tool_and_hook_with_reasons(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    bad_tool = workshop.unique("tool-nowhere")
    bad_hook = workshop.unique("hooks-bad")
    workshop.write(bad_hook, "def mount(coordinator, config):\n    return None\n")
    bad_provider = workshop.unique("provider-needs-sdk")
    workshop.write(bad_provider, "import surely_not_installed_sdk_xyz\n\nasync def mount(coordinator, config): ...\n")
    plan["providers"].append({"module": bad_provider})
    plan["tools"] = [{"module": bad_tool}, {"config": {"no": "module key"}}]
    plan["hooks"] = [{"module": bad_hook}]
    session = session_factory(plan)
    await session.initialize()
    failures = {failure.module_id: failure for failure in session.failed_modules}
    assert set(failures) == {bad_provider, bad_tool, bad_hook}
    assert failures[bad_provider].section == "providers"
    assert "surely_not_installed_sdk_xyz" in failures[bad_provider].error
    assert "pip install" in failures[bad_provider].error
    assert failures[bad_tool].section == "tools"
    assert failures[bad_tool].error == f"Module '{bad_tool}' not found via entry points or filesystem"
    assert failures[bad_hook].section == "hooks" and "must be async" in failures[bad_hook].error
    await session.cleanup()


async def test_load_order_is_orchestrator_context_providers_tools_hooks(session_factory, workshop) -> None:
    order: list[str] = []
    recorder = '''
async def mount(coordinator, config):
    config["order"].append(config["label"])
'''
    plan = workshop.standard_plan()
    ids = {label: workshop.unique(f"tool-order-{label}") for label in ("p", "t1", "t2", "h")}
    for module_id in ids.values():
        workshop.write(module_id, recorder)
    plan["hooks"] = [{"module": ids["h"], "config": {"order": order, "label": "hook"}}]
    plan["tools"] = [{"module": ids["t1"], "config": {"order": order, "label": "tool1"}},
                     {"module": ids["t2"], "config": {"order": order, "label": "tool2"}}]
    plan["providers"].append({"module": ids["p"], "config": {"order": order, "label": "provider"}})
    plan["agents"] = {"helper": {"description": "never mounted"}}
    session = session_factory(plan)
    await session.initialize()
    assert order == ["provider", "tool1", "tool2", "hook"]
    assert [call[0] for call in workshop.resolver.calls][:2] == [
        plan["session"]["orchestrator"]["module"], plan["session"]["context"]["module"]]
    assert "helper" not in str(workshop.resolver.calls)
    await session.cleanup()


async def test_string_form_specs_use_top_level_config_and_source(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    loop_id = plan["session"]["orchestrator"]["module"]
    context_id = plan["session"]["context"]["module"]
    plan["session"] = {"orchestrator": loop_id, "orchestrator_source": "git+https://example/loop",
                       "context": context_id, "context_source": "./ctx"}
    plan["orchestrator"] = {"config": {"fail": "from top-level config"}}
    session = session_factory(plan)
    with pytest.raises(RuntimeError, match=r"from top-level config"):
        await session.execute("x")
    hints = {module_id: hint for module_id, hint, _ in workshop.resolver.calls}
    assert hints[loop_id] == "git+https://example/loop" and hints[context_id] == "./ctx"
    await session.cleanup()


async def test_entry_source_passed_to_resolver_as_source_and_profile_hint(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    plan["providers"][0]["source"] = "file:///somewhere"
    session = session_factory(plan)
    await session.initialize()
    provider_call = next(call for call in workshop.resolver.calls if call[0] == plan["providers"][0]["module"])
    assert provider_call == (plan["providers"][0]["module"], "file:///somewhere", "file:///somewhere")
    await session.cleanup()


async def test_mount_returning_callable_registers_cleanup_and_instance_is_not_mounted(
    session_factory, workshop
) -> None:
    log: list[str] = []
    plan = workshop.standard_plan()
    returns_cleanup, returns_instance = workshop.unique("tool-cleanup"), workshop.unique("tool-instance")
    workshop.write(returns_cleanup, '''
async def mount(coordinator, config):
    def cleanup():
        config["log"].append("cleaned")
    return cleanup
''')
    workshop.write(returns_instance, '''
class Tool:
    name = "instance-tool"
    description = "never auto-mounted"

async def mount(coordinator, config):
    return Tool()
''')
    plan["tools"] = [{"module": returns_cleanup, "config": {"log": log}}, {"module": returns_instance}]
    session = session_factory(plan)
    await session.initialize()
    assert session.coordinator.get("tools") == {}
    await session.cleanup()
    assert log == ["cleaned"]


async def test_on_session_ready_runs_after_all_modules_mount(session_factory, workshop) -> None:
    seen: list[Any] = []
    plan = workshop.standard_plan()
    early, late = workshop.unique("tool-early"), workshop.unique("hooks-late")
    workshop.write(early, '''
async def mount(coordinator, config):
    config["seen"].append("mounted early")

async def on_session_ready(coordinator):
    coordinator.get_capability("seen").append(sorted(coordinator.get("tools")))
''')
    workshop.write(late, '''
class LateTool:
    name = "late"
    description = "mounted by the last module"

async def mount(coordinator, config):
    coordinator.register_capability("seen", config["seen"])
    await coordinator.mount("tools", LateTool())
''')
    plan["tools"] = [{"module": early, "config": {"seen": seen}}]
    plan["hooks"] = [{"module": late, "config": {"seen": seen}}]
    session = session_factory(plan, parent_id="p")
    order = record_events(session, "session:fork")
    await session.initialize()
    assert seen == ["mounted early", ["late"]]
    assert len(order) == 1
    await session.cleanup()


async def test_on_session_ready_failure_emits_event_and_is_non_fatal(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    flaky, sync_ready = workshop.unique("tool-flaky-ready"), workshop.unique("tool-sync-ready")
    workshop.write(flaky, '''
async def mount(coordinator, config):
    pass

async def on_session_ready(coordinator):
    raise RuntimeError("not ready")
''')
    workshop.write(sync_ready, '''
async def mount(coordinator, config):
    pass

def on_session_ready(coordinator):
    raise AssertionError("a sync on_session_ready must be ignored")
''')
    plan["tools"] = [{"module": flaky}, {"module": sync_ready}]
    session = session_factory(plan)
    seen = record_events(session, "module:on_session_ready_failed")
    await session.initialize()
    assert len(seen) == 1
    assert seen[0][1]["module_id"] == flaky and seen[0][1]["error"] == "not ready"
    assert await session.execute("ok") == "echo: ok"
    await session.cleanup()


async def test_on_session_ready_not_run_when_mount_failed(session_factory, workshop) -> None:
    ran: list[str] = []
    plan = workshop.standard_plan()
    failing = workshop.unique("tool-failing-mount")
    workshop.write(failing, '''
async def mount(coordinator, config):
    coordinator.register_capability("ran", config["ran"])
    raise RuntimeError("mount failed")

async def on_session_ready(coordinator):
    coordinator.get_capability("ran").append("ready")
''')
    plan["tools"] = [{"module": failing, "config": {"ran": ran}}]
    session = session_factory(plan)
    await session.initialize()
    assert ran == [] and session.failed_modules[0].error == "mount failed"
    await session.cleanup()


# -- cleanup and context manager ---------------------------------------------------------------------

async def test_async_context_manager_calls_initialize_and_cleanup(session_factory, workshop) -> None:
    log: list[str] = []
    plan = workshop.standard_plan()
    tool = workshop.unique("tool-ctx")
    workshop.write(tool, 'async def mount(coordinator, config):\n    return lambda: config["log"].append("cleanup")\n')
    plan["tools"] = [{"module": tool, "config": {"log": log}}]
    session = session_factory(plan)
    async with session as entered:
        assert entered is session
        assert session.coordinator.get("orchestrator") is not None
        assert log == []
    assert log == ["cleanup"]


async def test_cleanup_runs_loader_cleanup_even_if_coordinator_cleanup_raises(session_factory) -> None:
    import asyncio

    session = session_factory()
    await session.initialize()
    calls: list[str] = []
    session.loader.cleanup = lambda: calls.append("loader")

    def interrupted() -> None:
        raise asyncio.CancelledError

    session.coordinator.register_cleanup(interrupted)
    with pytest.raises(asyncio.CancelledError):
        await session.cleanup()
    assert calls == ["loader"]


async def test_cleanup_emits_session_end_before_coordinator_cleanup_only_if_initialized(session_factory) -> None:
    order: list[str] = []
    session = session_factory()
    await session.initialize()

    async def on_end(event: str, data: dict[str, Any]) -> None:
        order.append(f"end:{data['status']}:{data['session_id'] == session.session_id}")

    session.coordinator.hooks.register("session:end", on_end)
    session.coordinator.register_cleanup(lambda: order.append("coordinator cleanup"))
    await session.cleanup()
    assert order == ["end:running:True", "coordinator cleanup"]

    never_initialized = session_factory()
    ended: list[str] = []

    async def on_end_again(event: str, data: dict[str, Any]) -> None:
        ended.append(event)

    never_initialized.coordinator.hooks.register("session:end", on_end_again)
    await never_initialized.cleanup()
    assert ended == []


async def test_session_end_handler_failure_does_not_stop_cleanup(session_factory) -> None:
    session = session_factory()
    await session.execute("x")
    ran: list[str] = []

    async def broken(event: str, data: dict[str, Any]) -> None:
        raise RuntimeError("logger crashed")

    session.coordinator.hooks.register("session:end", broken)
    session.coordinator.register_cleanup(lambda: ran.append("cleanup"))
    await session.cleanup()
    assert ran == ["cleanup"]


async def test_session_end_reports_final_status(session_factory) -> None:
    session = session_factory()
    statuses: list[str] = []

    async def on_end(event: str, data: dict[str, Any]) -> None:
        statuses.append(data["status"])

    session.coordinator.hooks.register("session:end", on_end)
    await session.execute("x")
    await session.cleanup()
    assert statuses == ["completed"]


async def test_exception_with_broken_str_still_reported_as_failed_module(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    broken = workshop.unique("tool-broken-str")
    workshop.write(broken, '''
class Weird(Exception):
    def __str__(self):
        raise RuntimeError("str is broken too")

async def mount(coordinator, config):
    raise Weird("details")
''')
    plan["tools"] = [{"module": broken}]
    session = session_factory(plan)
    await session.initialize()
    assert session.failed_modules[0].module_id == broken and "Weird" in session.failed_modules[0].error
    await session.cleanup()


async def test_orchestrator_spec_without_module_id_explains_the_expected_shape(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    plan["session"]["orchestrator"] = {"config": {"max_turns": 3}}
    session = session_factory(plan)
    with pytest.raises(RuntimeError, match=r"^Cannot initialize without orchestrator: session.orchestrator names no "
                                           r"module; write `orchestrator: <module id>`"):
        await session.initialize()
    plan = workshop.standard_plan()
    plan["session"]["context"] = {"source": "./ctx"}
    session = session_factory(plan)
    with pytest.raises(RuntimeError, match=r"^Cannot initialize without context manager: session.context names no"):
        await session.initialize()


async def test_module_load_failed_event_names_type_id_and_bounded_reason(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    bad_tool = workshop.unique("tool-nowhere")
    bad_hook = workshop.unique("hooks-sync")
    workshop.write(bad_hook, "def mount(coordinator, config):\n    return None\n")
    crashing = workshop.unique("provider-crash")
    workshop.write(crashing, "async def mount(coordinator, config):\n    raise ConnectionError('no route')\n")
    plan["providers"].append({"module": crashing, "instance_id": "second"})
    plan["tools"] = [{"module": bad_tool}]
    plan["hooks"] = [{"module": bad_hook}]
    session = session_factory(plan)
    seen = record_events(session, "module:load_failed")
    await session.initialize()
    reported = {data["module_id"]: data for _, data in seen}
    assert reported[bad_tool]["module_type"] == "tool" and reported[bad_tool]["reason_code"] == "missing_source"
    assert reported[bad_hook]["module_type"] == "hook" and reported[bad_hook]["reason_code"] == "invalid_entry_point"
    assert reported[crashing]["reason_code"] == "unknown" and reported[crashing]["error"] == "no route"
    assert reported[crashing]["instance_id"] == "second"
    await session.cleanup()


async def test_initialized_turns_true_once_modules_are_mounted(session_factory, workshop) -> None:
    session = session_factory(workshop.standard_plan())
    assert session.initialized is False
    await session.initialize()
    assert session.initialized is True
    await session.cleanup()


def test_session_identity_is_read_only() -> None:
    session = AmplifierSession(MINIMAL, parent_id="p", is_resumed=True)
    assert (session.parent_id, session.config, session.is_resumed) == ("p", MINIMAL, True)
    with pytest.raises(AttributeError):
        session.session_id = "other"  # type: ignore[misc]


async def test_session_end_is_emitted_once_per_initialized_lifetime(session_factory, workshop) -> None:
    session = session_factory(workshop.standard_plan())
    seen = record_events(session, "session:end")
    await session.initialize()
    await session.cleanup()
    assert session.initialized is False
    await session.cleanup()
    assert [event for event, _ in seen] == ["session:end"]
