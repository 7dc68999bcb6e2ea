"""The app's layers stay visible: each sub-package imports only the layers below it, and no two modules of
the app import each other (directly or round a longer loop), lazily or not."""

from __future__ import annotations

import ast
from pathlib import Path

import amplifier_cli

PACKAGE_DIR = Path(amplifier_cli.__file__).resolve().parent
# Lower rank = lower layer. A module may import its own layer and any lower one.
LAYER_RANK = {"errors": 0, "config": 1, "plans": 2, "sessions": 3, "ui": 4, "commands": 5, "main": 6, "__main__": 7}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, name: str | None = None) -> set[str]:
    """Every amplifier_cli module this file (module `name`) imports, at top level or inside functions."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("amplifier_cli"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            elif node.module and node.module.startswith("amplifier_cli"):
                target = node.module
            else:
                continue
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)  # `from . import module`
    return found


def _all_modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE_DIR.rglob("*.py")}


def _rank(module: str) -> int | None:
    parts = module.split(".")
    return LAYER_RANK.get(parts[1]) if len(parts) > 1 else 0  # the package itself (__version__) is the bottom


def test_no_subpackage_imports_a_layer_above_it() -> None:
    modules = _all_modules()
    upward = []
    for name, path in modules.items():
        own = _rank(name)
        assert own is not None, f"{name} is in no layer: add its package to LAYER_RANK and amplifier_cli's map"
        for target in _imports(path):
            target_rank = _rank(target)
            if target in modules and target_rank is not None and target_rank > own:
                upward.append(f"{name} imports {target}")
    assert upward == []


def test_app_modules_form_no_import_cycle() -> None:
    modules = _all_modules()
    graph = {name: {t for t in _imports(path) if t in modules and t != name} for name, path in modules.items()}
    # a module importing its own package's __init__ re-exports is not a cycle worth reporting
    for name in graph:
        graph[name] = {t for t in graph[name] if not name.startswith(t + ".")}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*trail[trail.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_the_checker_sees_a_lazy_relative_upward_import(tmp_path: Path) -> None:
    """Guard for the checks above: an import inside a function, written relatively, is resolved and ranked."""
    sample = tmp_path / "fake.py"
    sample.write_text("def f():\n    from ..ui.tables import print_json\n", encoding="utf-8")
    found = _imports(sample, "amplifier_cli.sessions.fake")
    assert "amplifier_cli.ui.tables" in found
    assert _rank("amplifier_cli.ui.tables") > _rank("amplifier_cli.sessions.fake")
