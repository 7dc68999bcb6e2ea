"""Several accounts of one provider module (instance_id), and a failing provider never costs another one."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core import ModuleFailure

ACCOUNT_PROVIDER = '''
class Account:
    def __init__(self, config):
        self.config = config

async def mount(coordinator, config):
    if config.get("fail_after_mount"):
        await coordinator.mount("providers", Account(config), name="{name}")
        await coordinator.mount("providers", Account(config), name="leaked")
        raise ValueError("account rejected")
    if config.get("decline"):
        return None
    await coordinator.mount("providers", Account(config), name="{name}")
'''


def account_module(workshop: Any) -> str:
    module_id = workshop.unique("provider-acct")
    default_name = module_id.removeprefix("provider-")
    workshop.write(module_id, ACCOUNT_PROVIDER.replace("{name}", default_name))
    return module_id


async def test_instance_ids_give_each_account_its_own_name_and_keep_the_default(session_factory, workshop) -> None:
    module_id = account_module(workshop)
    plan = workshop.standard_plan()
    plan["providers"] = [{"module": module_id, "config": {"key": "default"}},
                         {"module": module_id, "instance_id": "second", "config": {"key": "second"}}]
    session = session_factory(plan)
    await session.initialize()
    providers = session.coordinator.get("providers")
    default_name = module_id.removeprefix("provider-")
    assert list(providers) == [default_name, "second"]
    assert providers[default_name].config == {"key": "default"} and providers["second"].config == {"key": "second"}
    await session.cleanup()


async def test_two_entries_of_one_module_without_instance_id_are_refused(session_factory, workshop) -> None:
    module_id = account_module(workshop)
    plan = workshop.standard_plan()
    plan["providers"] = [{"module": module_id}, {"module": module_id}]
    session = session_factory(plan)
    with pytest.raises(ValueError, match="instance_id"):
        await session.initialize()
    await session.cleanup()


async def test_failed_account_is_rolled_back_reported_and_handed_to_the_app_policy(session_factory, workshop) -> None:
    module_id = account_module(workshop)
    plan = workshop.standard_plan()
    plan["providers"] = [{"module": module_id},
                         {"module": module_id, "instance_id": "broken", "config": {"fail_after_mount": True}}]
    session = session_factory(plan)
    handed: list[tuple[dict[str, Any], str]] = []

    async def policy(coordinator: Any, spec: dict[str, Any], error: BaseException) -> None:
        handed.append((spec, str(error)))
        spec["config"]["mutated"] = True  # the policy gets a copy; the plan is untouched

    session.coordinator.register_capability("provider.load_failure", policy)
    await session.initialize()
    default_name = module_id.removeprefix("provider-")
    assert list(session.coordinator.get("providers")) == [default_name]
    assert session.failed_modules == [ModuleFailure(module_id, "providers", "account rejected")]
    assert handed == [({"module": module_id, "instance_id": "broken",
                        "config": {"fail_after_mount": True, "mutated": True}}, "account rejected")]
    assert plan["providers"][1]["config"] == {"fail_after_mount": True}
    await session.cleanup()


async def test_app_policy_can_abort_initialization(session_factory, workshop) -> None:
    module_id = account_module(workshop)
    plan = workshop.standard_plan()
    plan["providers"] = [{"module": module_id, "config": {"fail_after_mount": True}}]
    session = session_factory(plan)

    async def stop(*_: Any) -> None:
        raise LookupError("host chose to stop")

    session.coordinator.register_capability("provider.load_failure", stop)
    with pytest.raises(LookupError, match="host chose to stop"):
        await session.initialize()
    await session.cleanup()


async def test_provider_that_declines_to_mount_is_not_a_failure_nor_renamed(session_factory, workshop) -> None:
    module_id = account_module(workshop)
    plan = workshop.standard_plan()
    plan["providers"].append({"module": module_id, "instance_id": "spare", "config": {"decline": True}})
    session = session_factory(plan)
    await session.initialize()
    assert session.failed_modules == [] and "spare" not in session.coordinator.get("providers")
    await session.cleanup()
