"""What a module id says by convention: its type (`tool-bash` is a tool, `hook-shell` and `hooks-logging`
are hooks), its import name (`amplifier_module_tool_bash`) and where its package sits in a directory.

One file so that the loader, validation, the pytest plugin and the app cannot disagree (they did: `hook-`
was a hook in one place and unknown in another). A type a package declares (`__amplifier_module_type__`)
always wins over what its id suggests; these rules are only the fallback.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_PREFIX = "amplifier_module_"
REPOSITORY_PREFIX = "amplifier-module-"
# the types a module can be mounted as (the kernel's mount points)
MODULE_TYPES = ("provider", "tool", "hook", "orchestrator", "context")
# an id's first word -> its kind; `agent` is a kind of id settings know, not a mount type
_KIND_BY_FIRST_WORD = {
    "provider": "provider",
    "tool": "tool",
    "hook": "hook",
    "hooks": "hook",
    "loop": "orchestrator",
    "orchestrator": "orchestrator",
    "context": "context",
    "agent": "agent",
}
ID_PREFIXES = tuple(f"{word}-" for word in _KIND_BY_FIRST_WORD)


def type_from_id(module_id: str) -> str | None:
    """The kind an id's prefix names (`hook-shell` -> hook, `loop-basic` -> orchestrator), or None."""
    first, dash, _rest = module_id.partition("-")
    return _KIND_BY_FIRST_WORD.get(first) if dash else None


def id_from_name(name: str) -> str:
    """A module id from any of its spellings: `amplifier-module-tool-bash`, `amplifier_module_tool_bash`."""
    return name.removeprefix(REPOSITORY_PREFIX).removeprefix(PACKAGE_PREFIX).replace("_", "-")


def type_from_name(name: str) -> str | None:
    """`type_from_id` for an id, a repository name or a package name."""
    return type_from_id(id_from_name(name))


def guess_module_type(module_id: str) -> str:
    """A mount type for any id: its prefix, else a word inside it, else tool (upstream's loader default)."""
    kind = type_from_id(module_id)
    if kind in MODULE_TYPES:
        return kind
    lowered = module_id.lower()
    for needles, module_type in (
        (("orchestrat", "loop"), "orchestrator"),
        (("provider",), "provider"),
        (("tool",), "tool"),
        (("hook",), "hook"),
        (("context",), "context"),
    ):
        if any(needle in lowered for needle in needles):
            return module_type
    return "tool"


def package_name(module_id: str) -> str:
    """The import name for a module id: `tool-bash` -> `amplifier_module_tool_bash`."""
    return PACKAGE_PREFIX + module_id.replace("-", "_")


def find_package_dir(module_id: str | None, path: Path) -> Path | None:
    """The importable package in a module directory: the directory itself when it is a package, else
    `amplifier_module_<id>` inside it (id from the argument or the directory's name), else the only
    `amplifier_module_*` package inside it. None when there is none, or several and none is named for the id."""
    if (path / "__init__.py").is_file():
        return path
    expected = path / package_name(module_id or id_from_name(path.name))
    if (expected / "__init__.py").is_file():
        return expected
    if not path.is_dir():
        return None
    packages = [child for child in sorted(path.iterdir())
                if child.name.startswith(PACKAGE_PREFIX) and (child / "__init__.py").is_file()]
    return packages[0] if len(packages) == 1 else None
