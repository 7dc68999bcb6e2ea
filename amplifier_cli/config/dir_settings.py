"""`allowed_dirs` / `denied_dirs` in settings (`amplifier allowed-dirs|denied-dirs list|add|remove`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UsageError
from .paths import AmplifierPaths
from .settings import SCOPES, Scope, load_settings, update_scope, writable_scope_path


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def dir_listing(key: str, paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    """Every scope's entries; `applies` is False for a project or local entry of a project not trusted yet (it
    is read from the file as written, and takes effect once the user trusts the project)."""
    from .settings import scope_path
    from .trust import project_trusted, read_project_settings

    paths = _paths(paths)
    settings = load_settings(paths)
    rows: list[dict[str, Any]] = [{"path": item, "scope": scope, "applies": True} for scope in SCOPES
                                  for item in settings.scopes[scope].data.get(key) or []]
    if not project_trusted(paths):
        for scope in ("project", "local"):
            path = scope_path(paths, scope)
            data = read_project_settings(path) if path is not None and path.is_file() else None
            entries = data.get(key) if isinstance(data, dict) else None
            for item in entries if isinstance(entries, list) else [entries] if entries else []:
                rows.append({"path": str(item), "scope": scope, "applies": False})
    return rows


def change_dir(key: str, directory: str, scope: Scope, *, add: bool, paths: AmplifierPaths | None = None) -> Path:
    """Add or remove one directory (made absolute, `~` expanded) in the scope's `allowed_dirs`/`denied_dirs`."""
    paths = _paths(paths)
    writable_scope_path(paths, scope)
    absolute = str((paths.cwd / Path(directory).expanduser()).resolve())
    current = list(load_settings(paths).scopes[scope].data.get(key) or [])
    if add:
        if absolute not in current:
            current.append(absolute)
    else:
        if absolute not in current and directory not in current:
            raise UsageError.single(f"{absolute} is not in the {scope} scope's {key}",
                                    fix=f"see `amplifier {key.replace('_', '-')} list`")
        current = [item for item in current if item not in (absolute, directory)]
    return update_scope(paths, scope, (key,), current or None)
