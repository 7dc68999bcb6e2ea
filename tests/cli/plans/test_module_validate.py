"""`amplifier module validate`: every bundled module passes; broken modules fail naming the right check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
BUNDLED_MODULE_DIRS = sorted(path for path in (REPO / "modules").iterdir() if (path / "README.md").is_file())
# Bundled modules that mount only with something an app or user supplies, or that would send data to a service
# by default (hooks-otel: a collector on localhost:4318): validate hands them stand-ins.
NEEDS_STAND_INS = ["context-persistent", "hooks-otel", "provider-anthropic", "provider-openai", "tool-mcp"]


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validation must need no secret: no key or endpoint variable is visible to it."""
    for name in list(os.environ):
        if name.endswith(("API_KEY", "BASE_URL", "AUTH_TOKEN")):
            monkeypatch.delenv(name)


def test_every_module_directory_is_a_registered_bundled_module() -> None:
    from importlib.metadata import entry_points

    registered = sorted(e.name for e in entry_points(group="amplifier.modules"))
    assert [path.name for path in BUNDLED_MODULE_DIRS] == registered and len(registered) >= 16


@pytest.mark.parametrize("module_dir", BUNDLED_MODULE_DIRS, ids=lambda path: path.name)
def test_every_bundled_module_passes_validation_with_no_config_and_no_keys(module_dir: Path, cli, project_dir,
                                                                        no_credentials) -> None:
    result = cli("module", "validate", str(module_dir), "--output", "json")
    report = json.loads(result.stdout)
    failed = [c for c in report["checks"] if not c["passed"] and c["severity"] == "error"]
    assert result.exit_code == 0 and report["passed"], failed
    assert bool(report.get("stand_ins")) == (module_dir.name in NEEDS_STAND_INS)


@pytest.mark.parametrize("module_id", NEEDS_STAND_INS)
def test_modules_needing_a_key_or_a_file_pass_the_behavioural_suite_offline(module_id: str, cli, project_dir,
                                                                           no_credentials) -> None:
    result = cli("module", "validate", str(REPO / "modules" / module_id), "--behavioral", "--output", "json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and report["behavioral"]["passed"], report["behavioral"]["output"]


def test_provider_stand_ins_are_a_placeholder_key_and_a_loopback_port_nothing_serves(tmp_path: Path) -> None:
    from amplifier_cli.plans.validation_stand_ins import stand_in_config

    config = stand_in_config("provider-anthropic", tmp_path)
    assert "placeholder" in config["api_key"] and config["base_url"].startswith("http://127.0.0.1:")
    persistent = stand_in_config("context-persistent", tmp_path)
    assert Path(persistent["transcript_path"]).parent == tmp_path
    assert stand_in_config("hooks-otel", tmp_path)["endpoint"] == config["base_url"]  # never a real collector
    echo = stand_in_config("tool-mcp", tmp_path)["servers"]["echo"]  # {module}: the package dir, a file it ships
    assert echo["command"] == sys.executable and Path(echo["args"][-1]).is_file()
    assert Path(echo["args"][-1]).parent == REPO / "modules" / "tool-mcp" / "amplifier_module_tool_mcp"


def test_a_given_config_replaces_the_stand_ins(cli, project_dir, no_credentials, tmp_path) -> None:
    transcript = tmp_path / "mine.jsonl"
    result = cli("module", "validate", str(REPO / "modules" / "context-persistent"), "--output", "json",
                 "--config", f"{{path: '{transcript}'}}")
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and "stand_ins" not in report
    assert transcript.exists()  # mount() got exactly the user's config
    without_key = cli("module", "validate", str(REPO / "modules" / "provider-openai"), "--output", "json",
                      "--config", "{default_model: gpt-x}")
    assert without_key.exit_code == 1  # the user's config has no key, so nothing is mounted


def test_human_output_says_which_stand_ins_were_used(cli, project_dir, no_credentials) -> None:
    result = cli("module", "validate", str(REPO / "modules" / "provider-openai"))
    assert result.exit_code == 0
    assert "stand-ins for: api_key, base_url" in " ".join(result.stdout.split())


def _module(root: Path, module_id: str, body: str) -> Path:
    package = root / module_id / ("amplifier_module_" + module_id.replace("-", "_"))
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(body)
    return package.parent


BROKEN = [
    ("missing-mount", "X = 1\n", "mount_exists"),
    ("sync-mount", "def mount(coordinator, config):\n    return None\n", "mount_signature"),
    ("wrong-signature", "async def mount(coordinator):\n    return None\n", "mount_signature"),
    ("import-error", "import surely_not_an_installed_module_xyz\nasync def mount(c, config):\n    pass\n",
     "module_importable"),
    ("nothing-mounted", "async def mount(coordinator, config):\n    return None\n", "protocol_compliance"),
]


@pytest.mark.parametrize(("body", "check"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_module_fails_with_the_right_check_named(body, check, cli, tmp_path, project_dir) -> None:
    module_dir = _module(tmp_path, "tool-broken", body)
    result = cli("module", "validate", str(module_dir), "--output", "json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["passed"] is False and report["module_type"] == "tool"
    failed = [c["name"] for c in report["checks"] if not c["passed"] and c["severity"] == "error"]
    assert failed[0] == check, report["checks"]


def test_human_output_shows_a_table_with_the_failed_check(cli, tmp_path, project_dir) -> None:
    module_dir = _module(tmp_path, "tool-broken", "def mount(coordinator, config):\n    return None\n")
    result = cli("module", "validate", str(module_dir))
    assert result.exit_code == 1
    assert "FAILED" in result.stdout and "mount_signature" in result.stdout and "FAIL" in result.stdout


GOOD_TOOL = """
from amplifier_core.models import ToolResult

class Echo:
    name = "echo"
    description = "Echo the input back"
    input_schema = {"type": "object", "properties": {"text": {"type": "string"}}}

    async def execute(self, input):
        return ToolResult(success=True, output=str(input.get("text", "")))

async def mount(coordinator, config):
    await coordinator.mount("tools", Echo(), name="echo")
"""


def test_an_upstream_style_module_repository_validates(cli, tmp_path, project_dir) -> None:
    repo = _module(tmp_path, "amplifier-module-tool-echo", "")
    (repo / "amplifier_module_amplifier_module_tool_echo").rename(repo / "amplifier_module_tool_echo")
    (repo / "amplifier_module_tool_echo" / "__init__.py").write_text(GOOD_TOOL)
    result = cli("module", "validate", str(repo), "--output", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["module_type"] == "tool"


def test_behavioral_runs_the_kernel_suite_and_passes_a_good_tool(cli, tmp_path, project_dir) -> None:
    module_dir = _module(tmp_path, "tool-echo", GOOD_TOOL)
    result = cli("module", "validate", str(module_dir), "--behavioral", "--output", "json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, report
    assert report["behavioral"]["ran"] and report["behavioral"]["passed"]


def test_behavioral_ignores_pytest_plugins_installed_for_something_else(cli, tmp_path, project_dir,
                                                                       monkeypatch) -> None:
    """A pytest plugin another package installed (an entry point in group pytest11) is not loaded into the
    kernel suite: here one that breaks every run it is loaded into."""
    site = tmp_path / "other-site"
    (site / "broken_plugin.py").parent.mkdir(parents=True)
    (site / "broken_plugin.py").write_text("raise RuntimeError('a plugin installed for something else')\n")
    dist = site / "broken_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pytest11]\nbroken = broken_plugin\n")
    monkeypatch.setenv("PYTHONPATH", str(site))
    empty = tmp_path / "empty"
    empty.mkdir()
    probe = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(empty)], cwd=empty,
                           capture_output=True, text=True, check=False)
    assert "a plugin installed for something else" in probe.stdout + probe.stderr  # it breaks a plain pytest run
    module_dir = _module(tmp_path, "tool-echo", GOOD_TOOL)
    result = cli("module", "validate", str(module_dir), "--behavioral", "--output", "json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, report
    assert report["behavioral"]["ran"] and report["behavioral"]["passed"]


def test_behavioral_failure_makes_validation_fail(cli, tmp_path, project_dir) -> None:
    crashing = GOOD_TOOL.replace('str(input.get("text", ""))', 'input["text"]')
    module_dir = _module(tmp_path, "tool-echo", crashing)
    result = cli("module", "validate", str(module_dir), "--behavioral", "--output", "json")
    report = json.loads(result.stdout)
    assert result.exit_code == 1
    assert report["behavioral"]["passed"] is False and "KeyError" in report["behavioral"]["output"]


def test_undetectable_type_is_a_usage_error_suggesting_type(cli, tmp_path, project_dir) -> None:
    module_dir = _module(tmp_path, "mystery", "async def mount(c, config):\n    pass\n")
    result = cli("module", "validate", str(module_dir))
    assert result.exit_code == 2 and "--type" in result.stderr


def test_type_flag_overrides_detection_and_declared_type_is_read_without_import(cli, tmp_path, project_dir):
    module_dir = _module(tmp_path, "mystery", '__amplifier_module_type__ = "tool"\n' + GOOD_TOOL)
    assert cli("module", "validate", str(module_dir), "--output", "json").exit_code == 0
    result = cli("module", "validate", str(module_dir), "--type", "hook", "--output", "json")
    assert json.loads(result.stdout)["module_type"] == "hook"


def test_config_option_is_passed_to_mount(cli, tmp_path, project_dir) -> None:
    body = GOOD_TOOL.replace("async def mount(coordinator, config):\n",
                             "async def mount(coordinator, config):\n    if not config.get('enabled'):\n"
                             "        return None\n")
    module_dir = _module(tmp_path, "tool-echo", body)
    assert cli("module", "validate", str(module_dir), "--output", "json").exit_code == 1
    assert cli("module", "validate", str(module_dir), "--config", "{enabled: true}", "--output", "json").exit_code == 0


def test_missing_path_is_a_usage_error(cli, tmp_path, project_dir) -> None:
    result = cli("module", "validate", str(tmp_path / "nope"))
    assert result.exit_code == 2 and "does not exist" in result.stderr
