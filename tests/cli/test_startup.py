"""`amplifier --help`/`--version` import no provider SDK, no prompt-toolkit and no OpenTelemetry (hooks-otel imports
it when mounted); the installed command works."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from warmstart import real_amplifier_command  # startup is about the installed command itself, never warm

HEAVY = ("anthropic", "openai", "prompt_toolkit", "httpx", "opentelemetry", "grpc", "google", "wasmtime", "acp")

PROBE = """
import sys
sys.argv = ["amplifier", *sys.argv[1:]]
from amplifier_cli.main import main
try:
    main()
except SystemExit:
    pass
print("MODULES:" + ",".join(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["profile", "--help"]])
def test_help_and_version_import_no_provider_sdk_or_prompt_toolkit(argv: list[str]) -> None:
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True,
                            env=os.environ.copy())
    modules = set(result.stderr.rsplit("MODULES:", 1)[1].strip().split(","))
    loaded = sorted(name for name in modules if name.split(".")[0] in HEAVY)
    assert loaded == [], f"{argv} imported {loaded}"
    assert "amplifier_core.session" not in modules  # the kernel runtime is not needed to print help


def test_help_imports_no_opentelemetry_even_with_an_otlp_endpoint_set() -> None:
    env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}
    result = subprocess.run([sys.executable, "-c", PROBE, "--help"], capture_output=True, text=True, check=True,
                            env=env)
    modules = set(result.stderr.rsplit("MODULES:", 1)[1].strip().split(","))
    assert sorted(name for name in modules if name.startswith("opentelemetry")) == []


def test_what_the_chat_reads_before_its_prompt_leaves_the_kernel_to_the_warm_up_thread() -> None:
    # the chat imports its warm-up (and through it the module facts) on the main thread before the prompt is
    # drawn; the kernel package costs about 150 ms and is imported by the warm-up thread behind the prompt
    probe = ("import sys, amplifier_cli.ui.repl.warmup, amplifier_cli.config.module_facts; "
             "print(sorted(name for name in sys.modules if name.split('.')[0] == 'amplifier_core'))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_what_acp_needs_to_answer_initialize_leaves_the_sdk_and_the_kernel_to_its_preload_thread() -> None:
    # `amplifier acp` answers `initialize` from these modules while a thread imports the ACP SDK's models (half a
    # second) and the kernel: editors start agents eagerly and wait for that answer
    probe = ("import sys, amplifier_cli.__main__, amplifier_cli.commands.run_argv, amplifier_cli.commands.launch, "
             "amplifier_cli.ui.acp, amplifier_cli.ui.acp.wire, amplifier_cli.ui.protocol_stdout; "
             "print(sorted({name.split('.')[0] for name in sys.modules} & {'acp', 'amplifier_core', 'pydantic', "
             "'typer'}))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_installed_command_prints_its_version() -> None:
    from amplifier_cli import __version__

    result = subprocess.run([*real_amplifier_command(), "--version"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and result.stdout.strip() == f"amplifier {__version__}"


def test_installed_command_lists_bundled_profiles_as_json(tmp_path: Path) -> None:
    result = subprocess.run([*real_amplifier_command(), "profile", "list", "--json"], capture_output=True,
                            text=True, check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert {"default", "minimal", "demo"} <= {row["name"] for row in json.loads(result.stdout)}


def test_installed_command_exits_2_with_a_one_line_error_for_a_bad_profile(tmp_path: Path) -> None:
    profile = tmp_path / ".amplifier" / "profiles" / "bad.yaml"
    profile.parent.mkdir(parents=True)
    profile.write_text("session: {orchestrator: loop-basic, context: context-simple}\ntoolz: []\n")
    from testkit.trust import trust_project_now

    trust_project_now(tmp_path)
    result = subprocess.run([*real_amplifier_command(), "profile", "show", "bad"], capture_output=True, text=True,
                            check=False, cwd=tmp_path)
    assert result.returncode == 2
    assert "bad.yaml:2: toolz: unknown key 'toolz' (fix: did you mean 'tools'?)" in result.stderr
    assert "Traceback" not in result.stderr


def test_shell_completion_script_is_available() -> None:
    # Typer finds the shell from the parent process (shellingham): start it from bash, as a user would, so the
    # test does not depend on what started pytest ("; exit" keeps bash from exec-ing the command in its place)
    command = " ".join(shlex.quote(part) for part in [*real_amplifier_command(), "--show-completion"])
    result = subprocess.run(["bash", "-c", f"{command}; exit $?"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "_amplifier_completion" in result.stdout
