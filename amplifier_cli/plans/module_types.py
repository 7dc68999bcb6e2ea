"""The module type a package declares (`__amplifier_module_type__`), read with ast so that nothing is imported.
What an id says by convention lives in the kernel (`amplifier_core.module_ids`)."""

from __future__ import annotations

import ast
from pathlib import Path


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
