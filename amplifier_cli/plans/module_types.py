"""Module type from an id or directory name (`tool-`, `hooks-`, `provider-`, `loop-`, `context-`) or from the
package's declared `__amplifier_module_type__` (read with ast, never imported)."""

from __future__ import annotations

import ast
from pathlib import Path

MODULE_TYPES = ("provider", "tool", "hook", "orchestrator", "context")
_PREFIXES = (
    ("provider", "provider"),
    ("tool", "tool"),
    ("hooks", "hook"),
    ("loop", "orchestrator"),
    ("context", "context"),
)


def type_from_id(module_id: str) -> str | None:
    for prefix, kind in _PREFIXES:
        if module_id.startswith(prefix + "-"):
            return kind
    return None


def type_from_name(name: str) -> str | None:
    """Works for `tool-bash`, `amplifier-module-tool-bash` and `amplifier_module_tool_bash`."""
    normalized = name.replace("_", "-")
    normalized = normalized.removeprefix("amplifier-module-")
    return type_from_id(normalized)


def declared_type(package_dir: Path) -> str | None:
    init = package_dir / "__init__.py"
    try:
        tree = ast.parse(init.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == "__amplifier_module_type__":
                    value = node.value
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        return value.value
    return None
