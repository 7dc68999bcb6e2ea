"""`allowed_dirs` / `denied_dirs` in settings (`amplifier allowed-dirs|denied-dirs list|add|remove`)."""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from .paths import AmplifierPaths
from .settings import SCOPES, Scope, load_settings, update_scope, writable_scope_path


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def dir_listing(key: str, paths: AmplifierPaths | None = None) -> list[dict[str, str]]:
    settings = load_settings(_paths(paths))
    return [{"path": item, "scope": scope} for scope in SCOPES
            for item in settings.scopes[scope].data.get(key) or []]


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
