"""The validation package's 2.0.2 names beyond the validators: importing a module the way the loader will
(import_module_from_path), the proto-derived result checks, and the helpers each validator module re-exports."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from amplifier_core.validation.base import import_module_from_path
from amplifier_core.validation.proto_schema import validate_hook_result, validate_tool_result


@pytest.fixture
def forget_modules():
    """Drop modules a test imported under their real names, so tests stay independent."""
    names: list[str] = []
    yield names.append
    for name in names:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


def test_import_module_from_path_imports_the_package_under_its_real_name_once(tmp_path: Path,
                                                                                forget_modules) -> None:
    package = tmp_path / "pkg_real_name_a"
    package.mkdir()
    (package / "__init__.py").write_text("from .inner import VALUE\n")
    (package / "inner.py").write_text("VALUE = 7\n")
    forget_modules("pkg_real_name_a")
    module = import_module_from_path(package)
    assert module.VALUE == 7 and sys.modules["pkg_real_name_a"] is module
    assert import_module_from_path(package) is module  # the canonical object, not a second copy
    assert str(tmp_path) not in sys.path


def test_import_module_from_path_refuses_a_name_already_loaded_from_elsewhere(tmp_path: Path,
                                                                              forget_modules) -> None:
    for root in ("one", "two"):
        (tmp_path / root / "pkg_real_name_b").mkdir(parents=True)
        (tmp_path / root / "pkg_real_name_b" / "__init__.py").write_text(f"WHERE = {root!r}\n")
    forget_modules("pkg_real_name_b")
    assert import_module_from_path(tmp_path / "one" / "pkg_real_name_b").WHERE == "one"
    with pytest.raises(ImportError, match="already loaded from"):
        import_module_from_path(tmp_path / "two" / "pkg_real_name_b")


def test_import_module_from_path_imports_a_single_file(tmp_path: Path, forget_modules) -> None:
    (tmp_path / "single_file_mod_c.py").write_text("async def mount(coordinator, config):\n    return None\n")
    forget_modules("single_file_mod_c")
    assert callable(import_module_from_path(tmp_path / "single_file_mod_c.py").mount)


def test_import_module_from_path_takes_the_requested_copy_and_puts_sys_path_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forget_modules) -> None:
    """The requested directory is searched first even when it trails another copy on sys.path, and ends up
    where it was; entries the imported code added itself are left alone."""
    for root in ("earlier", "requested"):
        (tmp_path / root / "pkg_real_name_d").mkdir(parents=True)
        (tmp_path / root / "pkg_real_name_d" / "__init__.py").write_text(f"WHERE = {root!r}\n")
    added_by_module = str(tmp_path / "added-by-module")
    init = tmp_path / "requested" / "pkg_real_name_d" / "__init__.py"
    init.write_text(f"import sys\nsys.path.insert(0, {added_by_module!r})\n" + init.read_text())
    monkeypatch.syspath_prepend(str(tmp_path / "earlier"))
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path / "requested")])
    before = list(sys.path)
    forget_modules("pkg_real_name_d")
    assert import_module_from_path(tmp_path / "requested" / "pkg_real_name_d").WHERE == "requested"
    assert sys.path == [added_by_module, *before]


@pytest.mark.parametrize(("data", "problems"), [
    ({"success": True}, []),
    ({}, ["Missing required field: 'success'"]),
    ({"success": "yes"}, ["Field 'success' must be bool, got str"]),
])
def test_validate_tool_result_requires_a_boolean_success(data: dict, problems: list[str]) -> None:
    assert validate_tool_result(data) == problems


def test_validate_hook_result_checks_every_enumerated_field() -> None:
    assert validate_hook_result({}) == []  # action defaults to continue
    assert validate_hook_result({"action": "deny", "user_message_level": "warning"}) == []
    problems = validate_hook_result({"action": "explode", "context_injection_role": "robot",
                                     "user_message_level": "loud", "approval_default": "maybe"})
    assert [problem.split("'")[0] for problem in problems] == [
        "Invalid action ", "Invalid context_injection_role ", "Invalid user_message_level ",
        "Invalid approval_default "]


@pytest.mark.parametrize("kind", ["context", "hook", "orchestrator", "provider", "tool"])
def test_each_validator_module_exposes_the_helpers_2_0_2_does(kind: str) -> None:
    module = importlib.import_module(f"amplifier_core.validation.{kind}")
    for name in ("ValidationCheck", "ValidationResult", "check_on_session_ready", "import_module_from_path"):
        assert hasattr(module, name), f"amplifier_core.validation.{kind} lacks {name}"


def test_validators_import_without_pytest() -> None:
    """The validators are used at runtime by the app; only the test base classes may need pytest."""
    script = textwrap.dedent("""
        import sys
        sys.modules["pytest"] = None
        from amplifier_core.validation import ContextValidator, HookValidator, MountPlanValidator
        from amplifier_core.validation.base import check_on_session_ready
        print("OK")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "OK" in result.stdout, result.stderr
