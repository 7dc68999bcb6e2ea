"""Several instances of one provider module (``instance_id``), and undoing a provider's failed mount.

A provider mounts itself under its default name (``provider-openai`` -> ``openai``). An entry with an
``instance_id`` is moved to that name after it mounts, and whatever held the default name before is put
back, so two accounts of one provider can coexist. A provider that fails part-way is rolled back to the
mount table as it was, so a broken second account never costs the first one.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

LOAD_FAILURE_CAPABILITY = "provider.load_failure"
BEFORE_LOAD_CAPABILITY = "provider.before_load"


def default_mount_name(module_id: str) -> str:
    return module_id.removeprefix("provider-")


def check_instance_ids(entries: list[Any]) -> None:
    """At most one entry per provider module may omit ``instance_id`` (it keeps the default name)."""
    modules = [entry["module"] for entry in entries if isinstance(entry, dict) and entry.get("module")]
    unnamed = Counter(entry["module"] for entry in entries
                      if isinstance(entry, dict) and entry.get("module") and not entry.get("instance_id"))
    for module_id, count in unnamed.items():
        if count > 1:
            raise ValueError(
                f"Multi-instance providers require explicit 'instance_id' on each additional entry. Found {count} "
                f"entries for module '{module_id}' without instance_id (at most 1 allowed as the default instance; "
                f"{modules.count(module_id)} entries in all)."
            )


def installed_something_new(before: dict[str, Any], after: dict[str, Any]) -> bool:
    return any(name not in before or provider is not before[name] for name, provider in after.items())


async def move_to_instance_name(coordinator: Any, module_id: str, instance_id: str,
                                before: dict[str, Any]) -> None:
    """Move the instance just mounted under the default name to ``instance_id``; restore the old occupant."""
    default_name = default_mount_name(module_id)
    providers = coordinator.get("providers") or {}
    if default_name not in providers or providers[default_name] is before.get(default_name):
        raise ValueError("Named provider mount did not install a new instance at its default mount name")
    if default_name == instance_id:
        return
    new_instance = providers[default_name]
    await coordinator.mount("providers", new_instance, name=instance_id)
    previous = before.get(default_name)
    if previous is not None and previous is not new_instance:
        await coordinator.mount("providers", previous, name=default_name)
    else:
        await coordinator.unmount("providers", name=default_name)


async def restore_providers(coordinator: Any, before: dict[str, Any]) -> None:
    """Put the provider mount table back as ``before`` had it, keeping its order where possible."""
    for name in set(coordinator.get("providers") or {}) - set(before):
        await coordinator.unmount("providers", name=name)
    if list(coordinator.get("providers") or {}) != list(before):
        for name in list(coordinator.get("providers") or {}):
            await coordinator.unmount("providers", name=name)
    for name, previous in before.items():
        if (coordinator.get("providers") or {}).get(name) is not previous:
            await coordinator.mount("providers", previous, name=name)
