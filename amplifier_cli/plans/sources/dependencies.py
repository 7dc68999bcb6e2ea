"""Check that a module's own third-party dependencies are installed before it is imported, so the user is
told what to install instead of seeing an ImportError from deep inside the module."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from amplifier_core.module_sources import ModuleLoadError

# The kernel and the app are peers of every module, never something to install for it.
_PEERS = {"amplifier-core", "amplifier", "amplifier-app-cli"}


def declared_dependencies(module_dir: Path) -> list[str]:
    """`[project].dependencies` of the pyproject.toml in the module dir (empty when there is none)."""
    pyproject = module_dir / "pyproject.toml"
    if not pyproject.is_file():
        return []
    import tomllib

    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []
    deps = (data.get("project") or {}).get("dependencies") or []
    return [dep for dep in deps if isinstance(dep, str)]


def missing_dependencies(module_dir: Path) -> list[str]:
    from importlib.metadata import PackageNotFoundError, distribution

    missing = []
    for requirement in declared_dependencies(module_dir):
        if ";" in requirement:  # environment markers: skip rather than guess
            continue
        name = re.split(r"[\s<>=!~\[(]", requirement.strip(), maxsplit=1)[0]
        if not name or _canonical(name) in _PEERS:
            continue
        try:
            distribution(name)
        except PackageNotFoundError:
            missing.append(requirement.strip())
    return missing


def check_module_dependencies(module_id: str, module_dir: Path) -> None:
    missing = missing_dependencies(module_dir)
    if missing:
        quoted = " ".join(f"'{req}'" for req in missing)
        raise ModuleLoadError(
            f"module '{module_id}' at {module_dir} needs packages that are not installed: {', '.join(missing)}. "
            f"Install them with: {sys.executable} -m pip install {quoted}"
        )


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
