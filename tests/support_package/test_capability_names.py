"""Capability names live in one file: product code passes the constants of amplifier_support.capability_names
(never a string literal) to the coordinator, and docs/CAPABILITIES.md has exactly one row per constant."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import amplifier_support.capability_names as capability_names

REPO = Path(__file__).resolve().parents[2]
PRODUCT_DIRS = ("amplifier_cli", "amplifier_core", "amplifier_support", "modules")
# the homes of the strings: the support file, and the kernel's file for the two names the kernel reads
HOMES = {REPO / "amplifier_support" / "capability_names.py", REPO / "amplifier_core" / "provider_instances.py"}
# the coordinator's two methods, and the private `_capability(...)` readers several modules wrap them in
CAPABILITY_CALLS = {"get_capability", "register_capability", "_capability"}
TABLE_ROW = re.compile(r"^\| `([a-z_]+(?:\.[a-z_]+)?)` \|", re.MULTILINE)  # upstream names have a dot, but not all


def _constants() -> dict[str, str]:
    return {name: getattr(capability_names, name) for name in capability_names.__all__}


def _product_files() -> list[Path]:
    return [path for top in PRODUCT_DIRS for path in sorted((REPO / top).rglob("*.py"))
            if "tests" not in path.relative_to(REPO).parts and path not in HOMES]


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _name_argument(call: ast.Call) -> ast.expr | None:
    """The argument that names the capability: the first, or the second of a `_capability(coordinator, name)`."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in CAPABILITY_CALLS or not call.args:
        return None
    if name == "_capability" and isinstance(func, ast.Name) and len(call.args) > 1:
        return call.args[1]
    return call.args[0]


def literal_capability_uses(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, what) for each capability named by a string literal: as the name argument of a capability call,
    as a key of a `capabilities={...}` argument, or anywhere else as a string equal to a known name."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            argument = _name_argument(node)
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.append((node.lineno, f"capability call with the literal {argument.value!r}"))
            for keyword in node.keywords:
                if keyword.arg == "capabilities" and isinstance(keyword.value, ast.Dict):
                    found.extend((key.lineno, f"capabilities={{...}} key {key.value!r}") for key in keyword.value.keys
                                 if isinstance(key, ast.Constant) and isinstance(key.value, str))
        elif (isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings):
            found.append((node.lineno, f"the string {node.value!r}"))
    return sorted(set(found))


def test_product_code_names_capabilities_only_through_the_constants() -> None:
    names = set(_constants().values())
    offenders = [f"{path.relative_to(REPO)}:{line}: {what}" for path in _product_files()
                 for line, what in literal_capability_uses(path.read_text(encoding="utf-8"), names)]
    assert offenders == [], "use amplifier_support.capability_names instead:\n" + "\n".join(offenders)


@pytest.mark.parametrize("source", [
    'coordinator.get_capability("session.working_dir")',
    'self.coordinator.register_capability("anything.new", 1)',
    'value = _capability(coordinator, "session.dir")',
    'self._capability("approval.rules")',
    'open_session(request, capabilities={"ui.output": {}})',
    'PLACES = (("app.user_config_dir", "settings"),)',
])
def test_the_scan_catches_each_way_of_spelling_a_name_as_a_literal(source: str) -> None:
    assert literal_capability_uses(source, set(_constants().values())) != []


def test_the_scan_accepts_constants_and_text_that_mentions_a_name() -> None:
    source = ('"""Reads `session.dir`."""\n'
              "coordinator.get_capability(SESSION_DIR)\n"
              'message = "register the session.dir capability"\n')
    assert literal_capability_uses(source, set(_constants().values())) == []


def test_every_constant_is_named_for_its_string_and_strings_are_unique() -> None:
    constants = _constants()
    assert {name: name for name in constants} == {
        name: value.upper().replace(".", "_") for name, value in constants.items()}
    assert len(set(constants.values())) == len(constants)


def test_docs_table_lists_exactly_the_constants() -> None:
    rows = TABLE_ROW.findall((REPO / "docs" / "CAPABILITIES.md").read_text(encoding="utf-8"))
    assert len(rows) == len(set(rows)), "a capability has two rows in docs/CAPABILITIES.md"
    constants = set(_constants().values())
    assert sorted(set(rows) - constants) == [], "rows without a constant in amplifier_support/capability_names.py"
    assert sorted(constants - set(rows)) == [], "constants without a row in docs/CAPABILITIES.md"


def test_kernel_owned_names_are_the_kernels_own_strings() -> None:
    from amplifier_core import provider_instances

    assert capability_names.PROVIDER_LOAD_FAILURE is provider_instances.LOAD_FAILURE_CAPABILITY
    assert capability_names.PROVIDER_BEFORE_LOAD is provider_instances.BEFORE_LOAD_CAPABILITY
