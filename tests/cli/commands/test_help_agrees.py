"""`--help`, `/help` and the READMEs agree with what exists: every subcommand a group's help lists, every
`amplifier CMD SUB` a help text or README names, and the README's chat-command table against the slash registry."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer.main

from amplifier_cli.main import app
from amplifier_cli.ui.repl.commands import COMMANDS

ROOT = Path(__file__).resolve().parents[3]
ROOT_COMMAND = typer.main.get_command(app)
# `amplifier GROUP SUB`, also `amplifier GROUP SUB \| SUB2 \| ...` as the README's tables write alternatives
REFERENCE = re.compile(r"`amplifier ([a-z][a-z0-9-]*)((?: (?:\\\| )?[a-z][a-z0-9-]*)*)")


def _help_texts(command: Any = ROOT_COMMAND, path: str = "amplifier") -> list[tuple[str, str]]:
    texts = [(path, command.help or "")]
    texts += [(f"{path} {param.name}", param.help) for param in command.params if getattr(param, "help", None)]
    for name, sub in getattr(command, "commands", {}).items():
        texts += _help_texts(sub, f"{path} {name}")
    return texts


def _documents() -> list[tuple[str, str]]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "modules").glob("*/README.md"))]
    return [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in files]


def _groups() -> list[tuple[str, Any]]:
    return [(f"amplifier {name}", command) for name, command in ROOT_COMMAND.commands.items()
            if getattr(command, "commands", None)]


@pytest.mark.parametrize(("where", "group"), _groups(), ids=lambda value: value if isinstance(value, str) else "")
def test_a_group_help_that_lists_its_subcommands_names_only_existing_ones(where: str, group: Any) -> None:
    first = (group.help or "").strip().split(".")[0]
    if ":" not in first or "," not in first.split(":", 1)[1]:
        return  # prose ("List, inspect and choose profiles", "Routing matrices: which provider ..."), not names
    listed = re.split(r",\s*|\s+and\s+", first.split(":", 1)[1].strip())
    words = [item.split()[0] for item in listed if item.strip() and item.split()[0] != "them"]
    missing = [word for word in words if word not in group.commands]
    assert not missing, f"`{where} --help` lists {missing}; its subcommands are {sorted(group.commands)}"


def test_commands_named_in_help_texts_and_readmes_exist() -> None:
    wrong = []
    checked = 0
    for where, text in _help_texts() + _documents():
        for match in REFERENCE.finditer(text):
            checked += 1
            command = ROOT_COMMAND.commands.get(match.group(1))
            if command is None:
                wrong.append(f"{where}: {match.group(0)} (no command '{match.group(1)}')")
                continue
            subcommands = getattr(command, "commands", None)
            # " list \| show" -> list, show; " add time" -> add (then its arguments)
            alternatives = [piece.split()[0] for piece in match.group(2).split("\\|") if piece.split()]
            if subcommands:
                wrong += [f"{where}: {match.group(0)} (no '{match.group(1)} {word}')"
                          for word in alternatives if word not in subcommands]
    assert checked > 30  # the pattern still finds the references
    assert not wrong, "\n".join(wrong)


def test_the_readme_chat_command_table_is_the_slash_registry() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Chat commands", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `(/[a-z]+)` \|", section, flags=re.M)
    assert documented == [name for name, _, _ in COMMANDS]


def test_mcp_help_names_get_not_show() -> None:
    assert "get" in ROOT_COMMAND.commands["mcp"].help and "show" not in ROOT_COMMAND.commands["mcp"].help
