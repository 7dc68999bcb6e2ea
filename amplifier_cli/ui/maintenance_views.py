"""Settings-only commands from upstream's CLI: `module add|remove|current|check-updates`, `allowed-dirs`,
`denied-dirs`, `notify`, and what `update` says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config.paths import AmplifierPaths
from ..config.settings import SCOPES, Scope, load_settings, update_scope, writable_scope_path
from ..errors import UsageError

# the kind an id names (amplifier_core.module_ids) -> the `modules:` section a module added in settings goes to
MODULE_SECTIONS = {"tool": "tools", "hook": "hooks", "provider": "providers", "agent": "agents",
                   "orchestrator": "orchestrators", "context": "contexts"}


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def cached_checkouts(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    """Git checkouts in the cache (modules and bundles): what `update` would re-fetch (branches) or keep."""
    from ..plans.sources.git_cache import GitCache

    cache = GitCache(_paths(paths).git_cache_dir)
    return [{"module": entry.module_id, "url": entry.url, "ref": entry.ref, "commit": entry.commit[:12],
             "mutable": entry.mutable, "label": f"{entry.module_id or entry.url}@{entry.ref or '(default branch)'}"}
            for entry in cache.entries()]


def module_section(module_id: str) -> str:
    from amplifier_core.module_ids import ID_PREFIXES, type_from_id

    section = MODULE_SECTIONS.get(type_from_id(module_id) or "")
    if section is not None:
        return section
    raise UsageError.single(
        f"cannot tell the type of module '{module_id}' from its id",
        fix="module ids start with " + ", ".join(sorted(ID_PREFIXES)) + " (e.g. tool-jupyter)")


def add_module(module_id: str, source: str | None, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    """Append `{module, source?}` to `modules.<section>` at the scope (replacing an entry of the same id)."""
    from ..config.source_uri import normalize_source_uri

    paths = _paths(paths)
    writable_scope_path(paths, scope)
    section = module_section(module_id)
    settings = load_settings(paths)
    entries = [entry for entry in (settings.scopes[scope].data.get("modules") or {}).get(section) or []
               if entry.get("module") != module_id]
    entry: dict[str, Any] = {"module": module_id}
    if source:
        entry["source"] = normalize_source_uri(source, paths.cwd)
    return update_scope(paths, scope, ("modules", section), [*entries, entry])


def remove_module(module_id: str, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    paths = _paths(paths)
    settings = load_settings(paths)
    modules = settings.scopes[scope].data.get("modules") or {}
    for section, entries in modules.items():
        kept = [entry for entry in entries or [] if entry.get("module") != module_id]
        if len(kept) != len(entries or []):
            return update_scope(paths, scope, ("modules", section), kept or None)
    raise UsageError.single(f"module '{module_id}' is not added in the {scope} settings",
                            fix="see `amplifier module current` for where each added module is")


def current_modules(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    settings = load_settings(_paths(paths))
    rows = []
    for scope in SCOPES:
        for section, entries in (settings.scopes[scope].data.get("modules") or {}).items():
            for entry in entries or []:
                rows.append({"module": entry["module"], "type": section, "source": entry.get("source") or "",
                             "scope": scope})
    return rows


# -- allowed-dirs / denied-dirs ----------------------------------------------------------------------------
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


# -- notify ------------------------------------------------------------------------------------------------
def notify_status(paths: AmplifierPaths | None = None) -> dict[str, Any]:
    settings = load_settings(_paths(paths))
    enabled, origin = False, None
    for scope in SCOPES:
        desktop = (settings.scopes[scope].data.get("notify") or {}).get("desktop") or {}
        if "enabled" in desktop:
            enabled, origin = bool(desktop["enabled"]), scope
    return {"desktop": {"enabled": enabled, "scope": origin}}


def set_desktop(enabled: bool, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    return update_scope(_paths(paths), scope, ("notify", "desktop", "enabled"), enabled)


def reset_notify(scope: Scope | None, paths: AmplifierPaths | None = None) -> list[Path]:
    paths = _paths(paths)
    settings = load_settings(paths)
    return [update_scope(paths, candidate, ("notify",), None) for candidate in ([scope] if scope else list(SCOPES))
            if settings.scopes[candidate].data.get("notify")]


# -- update ------------------------------------------------------------------------------------------------
def install_kind() -> dict[str, str]:
    """How this copy was installed, from its distribution's `direct_url.json`: editable checkout, a local
    directory or VCS URL, or an index package."""
    import json
    from importlib import metadata

    from .. import __version__

    try:
        distribution = metadata.distribution("amplifier")
        direct = distribution.read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        direct = None
    info: dict[str, str] = {"version": __version__, "kind": "package", "location": ""}
    if direct:
        data = json.loads(direct)
        url = data.get("url", "")
        if (data.get("dir_info") or {}).get("editable"):
            info.update(kind="editable", location=url.removeprefix("file://"))
        elif "vcs_info" in data:
            info.update(kind="git", location=url)
        elif url.startswith("file://"):
            info.update(kind="directory", location=url.removeprefix("file://"))
    return info


def update_advice(info: dict[str, str]) -> str:
    import sys

    python = sys.executable
    if info["kind"] == "editable":
        return (f"This is an editable install of the checkout at {info['location']}: update it with\n"
                f"  git -C {info['location']} pull && {python} -m pip install -e '{info['location']}[dev]'")
    if info["kind"] == "git":
        url = info["location"].removeprefix("git+")
        return f"Installed from {url}: update with\n  {python} -m pip install --upgrade 'git+{url}'"
    if info["kind"] == "directory":
        return (f"Installed from the directory {info['location']}: update that checkout, then\n"
                f"  {python} -m pip install --upgrade '{info['location']}'")
    return f"Installed as a package: update with\n  {python} -m pip install --upgrade amplifier"
