"""``${VAR}`` / ``${VAR:-default}`` expansion, done only when a server is connected so that secrets stay
references in every file and in the mount plan."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class UnsetVariable(ValueError):
    """A ``${VAR}`` without a default names a variable that is not set."""


def expand(value: Any, environ: Mapping[str, str]) -> Any:
    """Expand references in a string, or in every string of a list/dict (keys stay as written)."""
    if isinstance(value, str):
        def replace(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            found = environ.get(name)
            if found:
                return found
            if default is not None:
                return default
            if found is not None:
                return found
            raise UnsetVariable(f"${{{name}}} is not set (write ${{{name}:-default}} to give a default)")

        return _REFERENCE.sub(replace, value)
    if isinstance(value, list):
        return [expand(item, environ) for item in value]
    if isinstance(value, dict):
        return {key: expand(item, environ) for key, item in value.items()}
    return value
