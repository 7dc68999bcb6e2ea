"""`${VAR}` / `${VAR:-default}` references. Plans keep them verbatim (so no secret is ever displayed or
saved); `expand_env_refs` is applied only to the config handed to a module's `mount()`."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

# ${NAME}, ${NAME:-default} (shell style) and ${NAME:default} (upstream style)
_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-?([^}]*))?\}")


def expand_env_refs(value: Any, env: Mapping[str, str] | None = None) -> Any:
    """Return a copy of `value` with every reference in every string replaced; unset without default -> ''."""
    env = os.environ if env is None else env
    if isinstance(value, str):
        return _REF.sub(lambda match: env.get(match.group(1)) or (match.group(2) or ""), value)
    if isinstance(value, dict):
        return {key: expand_env_refs(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [expand_env_refs(item, env) for item in value]
    return value


def env_ref_names(value: Any) -> list[str]:
    """Names referenced anywhere in `value`, in first-seen order (to say which variables would fix a setup)."""
    names: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, str):
            for match in _REF.finditer(item):
                if match.group(1) not in names:
                    names.append(match.group(1))
        elif isinstance(item, dict):
            for child in item.values():
                walk(child)
        elif isinstance(item, list):
            for child in item:
                walk(child)

    walk(value)
    return names


def expand_for_mount(module_id: str, config: dict[str, Any]) -> dict[str, Any]:
    """Signature of the kernel loader's `prepare_config` hook: `session.loader.prepare_config = expand_for_mount`
    makes each module receive expanded values while the session's plan keeps the references."""
    return expand_env_refs(config)
