"""The one rule for what a module id says: its type, its package name, where its package sits."""

from __future__ import annotations

from pathlib import Path

import pytest

from amplifier_core import loader
from amplifier_core.module_ids import find_package_dir, guess_module_type, id_from_name, package_name, type_from_id
from amplifier_core.pytest_plugin import module_type_from_name
from amplifier_core.validation import base as validation_base


@pytest.mark.parametrize(("module_id", "kind"), [
    ("hook-shell", "hook"), ("hooks-logging", "hook"), ("loop-basic", "orchestrator"),
    ("orchestrator-fancy", "orchestrator"), ("context-simple", "context"), ("provider-openai", "provider"),
    ("tool-bash", "tool"), ("agent-reviewer", "agent"), ("mystery", None), ("hookshell", None),
])
def test_type_from_id_knows_every_prefix(module_id: str, kind: str | None) -> None:
    assert type_from_id(module_id) == kind


def test_every_kernel_caller_reads_hook_prefix_as_a_hook() -> None:
    assert guess_module_type("hook-shell") == "hook"
    assert module_type_from_name("amplifier_module_hook_shell") == "hook"
    assert module_type_from_name("agent-reviewer") is None  # not a mount type: no suite runs for it
    assert loader.package_name is package_name and loader.find_package_dir is find_package_dir


def test_names_and_ids_round_trip() -> None:
    assert package_name("hooks-logging") == "amplifier_module_hooks_logging"
    assert id_from_name("amplifier_module_hooks_logging") == "hooks-logging"
    assert id_from_name("amplifier-module-tool-bash") == "tool-bash"


def test_find_package_dir_refuses_to_guess_between_several_packages(tmp_path: Path) -> None:
    for name in ("amplifier_module_tool_a", "amplifier_module_tool_b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    assert find_package_dir(None, tmp_path) is None
    assert validation_base.find_package_dir(tmp_path) is None
    assert find_package_dir("tool-b", tmp_path) == tmp_path / "amplifier_module_tool_b"
    repository = tmp_path / "amplifier-module-tool-a"
    (repository / "amplifier_module_tool_a").mkdir(parents=True)
    (repository / "amplifier_module_tool_a" / "__init__.py").write_text("")
    (repository / "amplifier_module_tool_a_extra").mkdir()
    (repository / "amplifier_module_tool_a_extra" / "__init__.py").write_text("")
    assert validation_base.find_package_dir(repository) == repository / "amplifier_module_tool_a"
