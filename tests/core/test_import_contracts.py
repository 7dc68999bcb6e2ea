"""The import contracts in pyproject.toml ([tool.importlinter]) hold for the product: the kernel imports nothing of
ours, amplifier_support only the kernel, a bundled module only those two, the app keeps its layers, and no
package of ours has an import cycle (imports inside functions and under TYPE_CHECKING included)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint_imports(cwd: Path, *args: str, pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def _contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]} | {"": config}


def _bundled_module_packages() -> set[str]:
    return {package.name for package in ROOT.glob("modules/*/amplifier_module_*")
            if (package / "__init__.py").is_file()}


def test_the_product_keeps_every_import_contract() -> None:
    run = _lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 kept, 0 broken" in run.stdout


def test_every_bundled_module_is_under_the_contracts() -> None:
    """A module added under modules/ and left out of the config would be checked by nothing."""
    contracts = _contracts()
    modules = _bundled_module_packages()
    assert len(modules) >= 19
    assert modules <= set(contracts[""]["root_packages"])
    module_layer = contracts["product-layers"]["layers"][1]
    assert {name.strip() for name in module_layer.split("|")} == modules  # "|": independent of each other
    assert modules <= set(contracts["no-cycles"]["ancestors"])


def test_the_contracts_catch_a_lazy_import_between_modules_and_a_kernel_cycle(tmp_path: Path) -> None:
    """Guard for the checks above: the same config over a stand-in tree that breaks each rule once."""
    packages = [*_contracts()[""]["root_packages"]]
    for name in packages:
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "amplifier_module_loop_streaming" / "__init__.py").write_text(
        "def mount():\n    from amplifier_module_loop_basic import loop\n", encoding="utf-8")
    (tmp_path / "amplifier_core" / "loader.py").write_text(
        "def load():\n    from . import validation\n", encoding="utf-8")
    (tmp_path / "amplifier_core" / "validation.py").write_text("from . import loader\n", encoding="utf-8")
    (tmp_path / "amplifier_core" / "session.py").write_text("import amplifier_support\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8"),
                                             encoding="utf-8")
    run = _lint_imports(tmp_path, "--contract", "product-layers", "--contract", "no-cycles", pythonpath=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "0 kept, 2 broken" in run.stdout
    assert "amplifier_module_loop_streaming -> amplifier_module_loop_basic" in run.stdout
    assert "amplifier_core.session -> amplifier_support" in run.stdout
    assert "No cycles are allowed in amplifier_core" in run.stdout and ".validation -> .loader" in run.stdout
