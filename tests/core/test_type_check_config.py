"""CI type-checks the product: `mypy` with no arguments checks what [tool.mypy] names, and .ci/run runs it."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_without_arguments_checks_the_kernel_support_and_app_with_the_kernel_fully_annotated() -> None:
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert set(mypy["files"]) == {"amplifier_core", "amplifier_support", "amplifier_cli"}
    assert "ignore_errors" not in mypy
    kernel = [item for item in mypy["overrides"] if "amplifier_core.*" in item["module"]]
    assert kernel and kernel[0]["disallow_untyped_defs"] is True
    assert not any(item.get("ignore_errors") for item in mypy["overrides"])


def test_ci_runs_mypy_after_installing_the_dev_extra() -> None:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    install = next(index for index, line in enumerate(lines) if "pip install -e '.[dev]'" in line)
    assert "mypy" in lines[install + 1:]
