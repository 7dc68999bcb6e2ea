"""Approval rules: the ones written in settings under `approval.rules` (user settings; project settings only in a
trusted project, see config/trust.py) and the ones the user saved with "Always allow". Every session receives
them as capability `approval.rules` (hooks-approval reads it at mount), whatever way it was started: chat,
one-shot run or sub-agent.

"Always allow" answers are kept in the user's own config dir (`project-approvals.yaml`, per project real path),
never in the project: a project file is something the model (or the repository's author) can write, so an
allow rule there would be a way around asking; and the app writing into the project would change what the
user trusted."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .paths import AmplifierPaths
from .settings import SCOPES, Settings

REMEMBERED_FILE = "project-approvals.yaml"


def remembered_path(paths: AmplifierPaths) -> Path:
    return paths.config_dir / REMEMBERED_FILE


def _project(paths: AmplifierPaths) -> str:
    return os.path.realpath(paths.project_root or paths.cwd)


def _read_remembered(paths: AmplifierPaths) -> dict[str, Any]:
    from .yaml_document import load_yaml_document

    path = remembered_path(paths)
    if not path.is_file():
        return {}
    data = load_yaml_document(path).data
    return data if isinstance(data, dict) else {}


def saved_rules(settings: Settings) -> list[dict[str, Any]]:
    """Every scope's `approval.rules` (user first; lists are concatenated, not replaced), then the rules the user
    saved for this project with "Always allow"."""
    rules: list[dict[str, Any]] = []
    for scope in SCOPES:
        found = (settings.scopes[scope].data.get("approval") or {}).get("rules") or []
        rules.extend(rule for rule in found if isinstance(rule, dict))
    entry = _read_remembered(settings.paths).get(_project(settings.paths)) or {}
    remembered = entry.get("rules") if isinstance(entry, dict) else None
    rules.extend(rule for rule in remembered or [] if isinstance(rule, dict))
    return rules


def save_rule(paths: AmplifierPaths, rule: dict[str, Any]) -> Path:
    """Add ``rule`` to this project's remembered rules in the user's config dir (private file)."""
    return _remember(paths, "rules", rule, "rule")


def _remember(paths: AmplifierPaths, key: str, item: Any, what: str) -> Path:
    """Add ``item`` (once) to the list ``key`` of this project's entry in the user's remembered answers."""
    from ..errors import ConfigError
    from .yaml_document import write_yaml_atomically

    data = _read_remembered(paths)
    project = _project(paths)
    found = data.get(project)
    entry = found if isinstance(found, dict) else {}
    current = [kept for kept in entry.get(key) or [] if isinstance(kept, type(item))]
    if item not in current:
        current.append(item)
    data[project] = {**entry, key: current}
    path = remembered_path(paths)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_yaml_atomically(path, data)
        os.chmod(path, 0o600)
    except OSError as error:
        raise ConfigError.single(f"cannot save the {what}: {error.strerror or error}", file=path,
                                 fix=f"make {path.parent} a writable directory, or set AMPLIFIER_HOME to one") from None
    return path


def network_allow(settings: Settings) -> list[str]:
    """Every scope's `sandbox.network.allow` (user first; a project's only once trusted, as load_settings keeps
    it), then the hosts the user allowed "always" for this project when a sandboxed command asked."""
    hosts: list[str] = []
    for scope in SCOPES:
        section = settings.scopes[scope].data.get("sandbox") or {}
        network = section.get("network") if isinstance(section, dict) else None
        found = network.get("allow") if isinstance(network, dict) else None
        hosts.extend(str(host) for host in found or [] if isinstance(host, str))
    entry = _read_remembered(settings.paths).get(_project(settings.paths)) or {}
    remembered = entry.get("network_allow") if isinstance(entry, dict) else None
    hosts.extend(str(host) for host in remembered or [] if isinstance(host, str))
    return hosts


def save_network_host(paths: AmplifierPaths, host: str) -> Path:
    """Remember ``host`` for this project ("Always allow" at a sandboxed command's network prompt), in the user's
    config dir beside the remembered rules, never in the project."""
    return _remember(paths, "network_allow", host, "host")
