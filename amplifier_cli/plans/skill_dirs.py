"""Settings `skills: {dirs: [...]}` applied to a plan (the plan's `skills.dirs`, which tool-skills reads as its
"settings" sources), and git skill sources fetched into the git cache like module sources.

The user's settings always apply; the project's and local ones only once the project is trusted (settings
`skills` is not a harmless key, so config/trust.py keeps it from an untrusted project's files). A relative
directory is taken relative to the file that names it: the user config dir, or the project root."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from ..config.settings import SCOPES, Settings

SKILLS_MODULE = "tool-skills"
SKILL_SOURCE_KEYS = ("skills", "skills_dirs", "skills_dir")  # tool-skills config keys that name sources
GIT_PREFIX = "git+"


def apply_skill_dirs(plan: dict[str, Any], settings: Settings) -> None:
    dirs: list[str] = []
    for scope in SCOPES:
        base = settings.paths.config_dir if scope == "user" else settings.paths.project_root or settings.paths.cwd
        for raw in ((settings.scopes[scope].data.get("skills") or {}).get("dirs") or []):
            text = str(raw)
            if not text.startswith(GIT_PREFIX):
                path = Path(text).expanduser()
                text = str(path if path.is_absolute() else base / path)
            if text not in dirs:
                dirs.append(text)
    if dirs:
        section = dict(plan.get("skills") or {})
        section["dirs"] = [*(section.get("dirs") or []), *(item for item in dirs if item not in
                                                           (section.get("dirs") or []))]
        plan["skills"] = section


def has_git_skill_sources(plan: dict[str, Any]) -> bool:
    return any(_is_git(item) for _, holder, key in _source_lists(plan) for item in _items(holder[key]))


def fetch_skill_sources(plan: dict[str, Any], cache_root: Path) -> dict[str, Any]:
    """A copy of `plan` for mounting in which every git skill source (`git+URL[@ref][#subdirectory=...]`) is the
    directory of its checkout in the git cache (fetched on first use, as module sources are)."""
    if not has_git_skill_sources(plan):
        return plan
    from ..config.source_uri import parse_source
    from ..errors import AmplifierError, ConfigError
    from .sources.git_cache import GitCache

    cache = GitCache(cache_root)
    mounted = copy.deepcopy(plan)
    for where, holder, key in _source_lists(mounted):
        fetched = []
        for item in _items(holder[key]):
            if not _is_git(item):
                fetched.append(item)
                continue
            try:
                fetched.append(str(cache.ensure(parse_source(item))))  # type: ignore[arg-type]
            except AmplifierError as error:
                raise ConfigError.single(f"skill source {item} could not be fetched: {error}", key_path=where,
                                         fix="check the URL and @ref, and that git can reach it") from None
        holder[key] = fetched if isinstance(holder[key], list) else fetched[0]
    return mounted


def _is_git(item: Any) -> bool:
    return isinstance(item, str) and item.startswith(GIT_PREFIX)


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _source_lists(plan: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(key path, the mapping holding it, its key) for each place a skill source is named."""
    found = []
    skills = plan.get("skills")
    if isinstance(skills, dict) and skills.get("dirs"):
        found.append(("skills.dirs", skills, "dirs"))
    for index, entry in enumerate(plan.get("tools") or []):
        if isinstance(entry, dict) and entry.get("module") == SKILLS_MODULE and isinstance(entry.get("config"), dict):
            found += [(f"tools[{index}].config.{key}", entry["config"], key)
                      for key in SKILL_SOURCE_KEYS if entry["config"].get(key)]
    return found
