"""The app's functions stay short enough to read at once: none is longer than 80 lines (a longer one is split into
named steps, as `launch.start` and `oneshot.run_one_shot` were)."""

from __future__ import annotations

import ast
from pathlib import Path

import amplifier_cli

LIMIT = 80


def test_no_function_of_the_app_is_longer_than_80_lines() -> None:
    root = Path(amplifier_cli.__file__).parent
    long = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LIMIT:
                    long.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({length} lines)")
    assert long == []
