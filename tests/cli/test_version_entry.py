"""`amplifier --version` answers from the entry point without importing typer or the command groups."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
sys.argv = ["amplifier", *sys.argv[1:]]
from amplifier_cli.__main__ import main
main()
print("MODULES:" + ",".join(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_imports_neither_typer_nor_the_app(flag: str) -> None:
    from amplifier_cli import __version__

    result = subprocess.run([sys.executable, "-c", PROBE, flag], capture_output=True, text=True, check=True)
    modules = set(result.stderr.rsplit("MODULES:", 1)[1].strip().split(","))
    assert result.stdout == f"amplifier {__version__}\n"
    assert not {name for name in modules if name.split(".")[0] in ("typer", "click", "pydantic")}
    assert "amplifier_cli.main" not in modules


def test_other_arguments_still_reach_the_typer_app() -> None:
    result = subprocess.run([sys.executable, "-m", "amplifier_cli", "--verbose", "--version"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0 and result.stdout.startswith("amplifier ")
    result = subprocess.run([sys.executable, "-m", "amplifier_cli", "--help"], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0 and "Usage: amplifier" in result.stdout


def test_bare_amplifier_without_a_terminal_prints_the_help() -> None:
    """Only a terminal gets the chat from bare `amplifier`; a pipe or a script gets the usage."""
    result = subprocess.run([sys.executable, "-m", "amplifier_cli"], capture_output=True, text=True, check=False,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0 and "Usage: amplifier" in result.stdout and "run" in result.stdout
