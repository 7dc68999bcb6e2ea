"""amplifier-module.toml: what a module says about itself, read without importing it and checked by validate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amplifier_cli.config.module_facts import ModuleFactsError, facts_of, parse_facts

TOOL = """
from amplifier_core import ToolResult

class Echo:
    name = "echo"
    description = "echo"
    input_schema = {"type": "object", "properties": {}}

    async def execute(self, input):
        return ToolResult(success=True, output="ok")

async def mount(coordinator, config):
    await coordinator.mount("tools", Echo(), name="echo")
"""


def _module(root: Path, facts: str) -> Path:
    package = root / "tool-echo" / "amplifier_module_tool_echo"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(TOOL)
    (package / "amplifier-module.toml").write_text(facts)
    return package.parent


def test_bundled_modules_describe_themselves() -> None:
    assert facts_of("provider-openai").key_env == "OPENAI_API_KEY"
    assert set(facts_of("provider-openai").mount_env) == {"OPENAI_API_KEY", "OPENAI_BASE_URL"}
    assert facts_of("provider-anthropic").sdk == "anthropic"
    assert facts_of("tool-bash").confined and facts_of("hook-shell").confined
    assert not facts_of("tool-filesystem").confined and facts_of("tool-filesystem").key_env is None


def test_a_wrong_key_is_named_with_its_file(tmp_path: Path) -> None:
    path = tmp_path / "amplifier-module.toml"
    path.write_text('[provider]\nkey_env = 3\n')
    with pytest.raises(ModuleFactsError, match=r"amplifier-module.toml: provider.key_env: must be a string"):
        parse_facts(path)
    path.write_text('[sandbox]\nconfined = true\nmode = "off"\n')
    with pytest.raises(ModuleFactsError, match=r"sandbox.mode: unknown key"):
        parse_facts(path)


def test_module_validate_checks_the_facts_file(cli, project_dir, tmp_path: Path) -> None:
    good = cli("module", "validate", str(_module(tmp_path / "good", "[sandbox]\nconfined = false\n")),
               "--output", "json")
    bad = cli("module", "validate", str(_module(tmp_path / "bad", "[provider]\nmodels = 'gpt-*'\n")),
              "--output", "json")
    assert good.exit_code == 0, good.stdout
    assert {"name": "module_facts", "passed": True}.items() <= next(
        c for c in json.loads(good.stdout)["checks"] if c["name"] == "module_facts").items()
    assert bad.exit_code == 1
    [check] = [c for c in json.loads(bad.stdout)["checks"] if c["name"] == "module_facts"]
    assert not check["passed"] and "provider.models: must be a list of strings" in check["message"]
