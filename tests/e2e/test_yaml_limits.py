"""Every YAML file the app reads has limits on size, nesting and alias expansion: a nesting bomb, a cyclic alias
and a billion-laughs expansion are refused with exit 2, naming the file and the limit (instead of a
RecursionError or MemoryError after seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from amplifier_cli.config.yaml_document import MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_VALUES

from .conftest import E2E

BILLION_LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{chr(ord('a') + level)}: &{chr(ord('a') + level)} [{', '.join(['*' + chr(ord('a') + level - 1)] * 9)}]"
       for level in range(1, 9)]
) + "\n"

BOMBS = {
    "nesting": ("profile: {name: bomb}\nsession: " + "[" * 5000 + "]" * 5000 + "\n",
                f"nested deeper than {MAX_YAML_DEPTH} levels"),
    "cyclic-alias": ("profile: {name: bomb}\nsession: &loop\n  orchestrator: *loop\n",
                     "refers to the node that contains it"),
    "billion-laughs": (BILLION_LAUGHS, f"expand to more than {MAX_YAML_VALUES:,} values"),
    "size": ("profile: {name: bomb}\n" + "#" * (MAX_YAML_BYTES + 10) + "\n", f"limited to {MAX_YAML_BYTES:,} bytes"),
}


@pytest.mark.parametrize("kind", sorted(BOMBS))
def test_a_yaml_bomb_in_a_profile_is_refused_with_exit_2_naming_the_file_and_the_limit(e2e: E2E, kind: str) -> None:
    text, limit = BOMBS[kind]
    profile = e2e.project / ".amplifier" / "profiles" / "bomb.yaml"
    profile.parent.mkdir(parents=True, exist_ok=True)
    profile.write_text(text)
    for command in (("run", "-P", "bomb", "hi"), ("profile", "show", "bomb"), ("profile", "use", "bomb")):
        result = e2e.run(*command)
        assert result.returncode == 2, (command, result.stderr)
        assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr
        assert str(profile) in result.stderr and limit in result.stderr, (command, result.stderr)


@pytest.mark.parametrize("kind", ["nesting", "billion-laughs", "cyclic-alias"])
def test_a_yaml_bomb_in_the_project_settings_is_refused_the_same_way(e2e: E2E, kind: str) -> None:
    text, limit = BOMBS[kind]
    settings = e2e.project / ".amplifier" / "settings.yaml"
    settings.write_text(text.replace("profile: {name: bomb}", "x: 1"))
    result = e2e.run("profile", "current")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and str(settings) in result.stderr and limit in result.stderr


def test_aliases_within_the_limits_still_load(tmp_path: Path) -> None:
    from amplifier_cli.config.yaml_document import load_yaml_document

    path = tmp_path / "anchors.yaml"
    path.write_text("base: &base {module: tool-bash}\ntools: [*base, *base]\n")
    assert load_yaml_document(path).data["tools"] == [{"module": "tool-bash"}] * 2
