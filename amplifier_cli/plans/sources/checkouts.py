"""The git checkouts in the module cache: what `amplifier update` / `module refresh` would re-fetch (moving
refs) or keep (pinned), and the refresh itself."""

from __future__ import annotations

from typing import Any

from ...config.paths import AmplifierPaths
from ...config.settings import Settings, load_settings


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def cached_checkouts(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    """Git checkouts in the cache (modules and bundles): what `update` would re-fetch (branches) or keep."""
    from .git_cache import GitCache

    cache = GitCache(_paths(paths).git_cache_dir)
    return [{"module": entry.module_id, "url": entry.url, "ref": entry.ref, "commit": entry.commit[:12],
             "mutable": entry.mutable, "label": f"{entry.module_id or entry.url}@{entry.ref or '(default branch)'}"}
            for entry in cache.entries()]


def check_updates(paths: AmplifierPaths | None = None, timeout: float | None = None) -> list[dict[str, Any]]:
    """Each cached checkout with what its remote offers now (`git ls-remote`, asked once per URL)."""
    from .git_cache import GitCache
    from .git_remote import LS_REMOTE_TIMEOUT, check_entry

    rows = []
    for entry in GitCache(_paths(paths).git_cache_dir).entries():
        check = check_entry(entry, timeout or LS_REMOTE_TIMEOUT)
        rows.append({"module": entry.module_id, "url": entry.url, "ref": entry.ref, "ref_kind": entry.ref_kind,
                     "current": entry.commit[:12], "available": check.available, "status": check.status,
                     "detail": check.detail})
    return rows


def _settings(paths: AmplifierPaths | None) -> Settings:
    return load_settings(paths or AmplifierPaths.discover())


def update_modules(module_id: str | None, paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    """Refresh cached checkouts of moving refs (branches); tags and commits are reported as pinned."""
    from .git_cache import GitCache

    settings = _settings(paths)
    cache = GitCache(settings.paths.git_cache_dir)
    entries = cache.entries()
    if module_id is not None:
        entries = [e for e in entries if e.module_id == module_id]
    results = []
    for entry in entries:
        label = f"{entry.module_id or entry.url}@{entry.ref or '(default branch)'}"
        if not entry.mutable:
            results.append(
                {
                    "module": entry.module_id,
                    "ref": entry.ref,
                    "status": "pinned",
                    "label": label,
                    "commit": entry.commit[:12],
                }
            )
            continue
        fresh = cache.refresh(entry)
        status = "updated" if fresh.commit != entry.commit else "unchanged"
        results.append(
            {
                "module": entry.module_id,
                "ref": entry.ref,
                "status": status,
                "label": label,
                "commit": fresh.commit[:12],
                "previous": entry.commit[:12],
            }
        )
    return results
