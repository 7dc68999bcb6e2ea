"""Chat commands from Markdown files: names from paths (`git/commit.md` is `/git:commit`), `$ARGUMENTS` and
`$1..$9` filled, later places winning, the project's only once trusted; plan mode's judgement of shell lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit.trust import trust_project_now

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.config.slash_commands import load_commands, split_command_line
from amplifier_cli.sessions.plan_mode import shell_line_only_reads


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.untrusted
def test_commands_are_named_by_path_filled_and_the_project_wins_once_trusted(project_dir, amplifier_home):
    write(amplifier_home / "config" / "commands" / "fix.md", "USER-FIX $ARGUMENTS\n")
    write(project_dir / ".claude" / "commands" / "fix.md", "---\ndescription: Fix an issue\n---\nFix #$1 in $2.\n")
    write(project_dir / ".amplifier" / "commands" / "git" / "commit.md", "Commit with message: $ARGUMENTS\n")
    before = load_commands(AmplifierPaths.discover(cwd=project_dir))
    assert list(before) == ["fix"] and before["fix"].origin == "user"
    trust_project_now(project_dir)
    commands = load_commands(AmplifierPaths.discover(cwd=project_dir))
    assert sorted(commands) == ["fix", "git:commit"]
    assert commands["fix"].description == "Fix an issue"
    assert commands["fix"].expand("42 'src/app.py'") == "Fix #42 in src/app.py."
    assert commands["git:commit"].expand("add tests") == "Commit with message: add tests"
    assert split_command_line("/git:commit add tests") == ("git:commit", "add tests")
    assert split_command_line("/tmp/x is odd") is None


def test_a_yaml_bomb_in_front_matter_is_a_command_without_front_matter(amplifier_home, project_dir):
    commands_dir = amplifier_home / "config" / "commands"
    write(commands_dir / "deep.md", "---\ndescription: " + "[" * 5000 + "\n---\nDeep body.\n")
    laughs = "\n".join(["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
                       + [f"{chr(97 + n)}: &{chr(97 + n)} [{', '.join(['*' + chr(96 + n)] * 9)}]" for n in range(1, 9)])
    write(commands_dir / "laughs.md", f"---\n{laughs}\n---\nLaughs body.\n")
    commands = load_commands(AmplifierPaths.discover(cwd=project_dir))
    assert commands["deep"].expand("") == "Deep body." and commands["deep"].description == "Deep body."
    assert commands["laughs"].expand("") == "Laughs body."


def test_plan_mode_lets_only_reading_shell_lines_through():
    assert shell_line_only_reads("git status && ls -la")
    assert shell_line_only_reads("grep -rn TODO src")
    for line in ("touch x", "echo hi > out.txt", "rm -rf build", "ls $(whoami)", "sed -i s/a/b/ f"):
        assert not shell_line_only_reads(line), line
