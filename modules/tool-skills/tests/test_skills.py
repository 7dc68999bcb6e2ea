"""tool-skills with real skill folders: discovery and precedence, upstream's config keys, the four operations and
their result shapes, the names-only system prompt part, project skills only when trusted, and skill files
readable by tool-filesystem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from amplifier_module_tool_skills import mount

from amplifier_core import ModuleCoordinator
from amplifier_core.module_config import ModuleConfigError


class _Session:
    session_id = "s-1"
    parent_id = None

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        self.config = config or {}


def make_skill(root: Path, folder: str, name: str | None = None, description: str = "Use for tests.",
               body: str = "BODY-MARKER: do the thing.", files: dict[str, str] | None = None) -> Path:
    directory = root / folder
    directory.mkdir(parents=True, exist_ok=True)
    header = (f"name: {name}\n" if name else "") + f"description: {description}\n"
    (directory / "SKILL.md").write_text(f"---\n{header}version: 1.2.0\nlicense: MIT\n---\n\n{body}\n",
                                        encoding="utf-8")
    for relative, text in (files or {}).items():
        (directory / relative).parent.mkdir(parents=True, exist_ok=True)
        (directory / relative).write_text(text, encoding="utf-8")
    return directory


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("AMPLIFIER_SKILLS_DIR", raising=False)
    project = tmp_path / "project"
    project.mkdir()
    return {"home": home, "config": tmp_path / "config", "project": project}


async def mounted(places: dict[str, Path], config: dict[str, Any] | None = None, *, trusted: bool | None = True,
                  plan: dict[str, Any] | None = None) -> ModuleCoordinator:
    coordinator = ModuleCoordinator(_Session(plan))
    coordinator.register_capability("session.project_dir", str(places["project"]))
    coordinator.register_capability("session.working_dir", str(places["project"]))
    coordinator.register_capability("app.user_config_dir", str(places["config"]))
    if trusted is not None:
        coordinator.register_capability("session.project_trusted", trusted)
    await mount(coordinator, config or {})
    return coordinator


def tool_of(coordinator: ModuleCoordinator) -> Any:
    return coordinator.get("tools", "load_skill")


async def test_the_four_operations_return_upstreams_shapes(places):
    make_skill(places["config"] / "skills", "pdf-forms", "pdf-forms", "Fill PDF forms. Use for any PDF form.",
               files={"reference/fields.md": "FIELDS-MARKER"})
    make_skill(places["config"] / "skills", "commit-style", "commit-style", "How commit messages are written.")
    tool = tool_of(await mounted(places))

    listed = await tool.execute({"list": True})
    assert listed.success
    assert listed.output["skills"] == [
        {"name": "commit-style", "description": "How commit messages are written."},
        {"name": "pdf-forms", "description": "Fill PDF forms. Use for any PDF form."}]
    assert "**pdf-forms**: Fill PDF forms." in listed.output["message"]

    searched = await tool.execute({"search": "PDF"})
    assert [row["name"] for row in searched.output["matches"]] == ["pdf-forms"]
    assert "No skills matching 'nothing'" in (await tool.execute({"search": "nothing"})).output["message"]

    info = await tool.execute({"info": "pdf-forms"})
    assert info.output["version"] == "1.2.0" and info.output["license"] == "MIT"
    assert info.output["path"] == str(places["config"] / "skills" / "pdf-forms" / "SKILL.md")
    assert "BODY-MARKER" not in str(info.output)

    loaded = await tool.execute({"skill_name": "pdf-forms"})
    assert loaded.output["content"] == "# pdf-forms\n\nBODY-MARKER: do the thing."
    assert loaded.output["skill_name"] == "pdf-forms"
    assert loaded.output["skill_directory"] == str(places["config"] / "skills" / "pdf-forms")
    assert loaded.output["loaded_from"] == str(places["config"] / "skills")
    assert loaded.output["files"] == ["reference/fields.md"]

    missing = await tool.execute({"skill_name": "nope"})
    assert not missing.success and "Available: commit-style, pdf-forms" in missing.error["message"]
    assert not (await tool.execute({})).success


async def test_the_request_carries_names_and_descriptions_only(places):
    make_skill(places["config"] / "skills", "pdf-forms", "pdf-forms", "Fill PDF forms.")
    coordinator = await mounted(places)
    result = await coordinator.hooks.emit("provider:request", {})
    assert result.action == "inject_context" and result.ephemeral
    assert result.context_injection_role == "system"
    assert "- pdf-forms: Fill PDF forms." in result.context_injection
    assert "BODY-MARKER" not in result.context_injection


async def test_upstream_config_keys_work_unchanged(places, tmp_path):
    one, two, three = tmp_path / "one", tmp_path / "two", tmp_path / "three"
    make_skill(one, "a-skill", "a-skill", "From one.")
    make_skill(two, "b-skill", "b-skill", "From two.")
    make_skill(three, "c-skill", "c-skill", "From three.")
    make_skill(places["config"] / "skills", "user-skill", "user-skill", "The user's.")
    tool = tool_of(await mounted(places, {"skills_dirs": str(one)}))
    assert set(tool.skills) == {"a-skill", "user-skill"}  # defaults are always scanned too, as upstream now does
    tool = tool_of(await mounted(places, {"skills_dir": str(one), "skills_dirs": [str(two)],
                                          "skills": [str(three)], "include_defaults": False,
                                          "cache_dir": str(tmp_path / "cache"),
                                          "visibility": {"enabled": True, "inject_role": "user",
                                                         "max_skills_visible": 1, "ephemeral": True,
                                                         "priority": 5}}))
    assert set(tool.skills) == {"a-skill", "b-skill", "c-skill"}
    coordinator = await mounted(places, {"skills": [str(one), str(two)], "visibility": {"max_skills_visible": 1}})
    text = (await coordinator.hooks.emit("provider:request", {})).context_injection
    assert "a-skill" in text and "b-skill" not in text and "(2 more: load_skill(list=true) lists all)" in text
    coordinator = await mounted(places, {"visibility": {"enabled": False}})
    assert (await coordinator.hooks.emit("provider:request", {})).action == "continue"
    settings_plan = {"skills": {"dirs": [str(two)]}}  # upstream's settings key, when the app puts it in the plan
    assert "b-skill" in tool_of(await mounted(places, plan=settings_plan)).skills


async def test_an_unknown_key_is_refused_with_the_closest_one(places):
    with pytest.raises(ModuleConfigError, match="did you mean 'skills_dirs'"):
        await mounted(places, {"skill_dirs": ["x"]})


async def test_project_skills_load_only_when_the_project_is_trusted(places):
    make_skill(places["project"] / ".amplifier" / "skills", "house-rules", "house-rules", "The project's rules.")
    make_skill(places["project"] / ".claude" / "skills", "deploy", "deploy", "How this project deploys.")
    for trusted in (None, False):
        assert tool_of(await mounted(places, trusted=trusted)).skills == {}
    assert set(tool_of(await mounted(places, trusted=True)).skills) == {"house-rules", "deploy"}


async def test_a_later_directory_wins_by_name_and_the_origin_is_kept(places, tmp_path):
    make_skill(places["config"] / "skills", "review", "review", "User review.")
    make_skill(places["project"] / ".amplifier" / "skills", "review", "review", "Project review.")
    named = tmp_path / "named"
    make_skill(named, "style", "style", "Profile style.")
    make_skill(named, "nested/group/lint", "lint", "Nested lint.")
    summary = (await mounted(places, {"skills_dirs": [str(named)]})).get_capability("skills.catalog")()
    rows = {row["name"]: row for row in summary["skills"]}
    assert rows["review"]["description"] == "Project review." and rows["review"]["origin"] == "project"
    assert rows["style"]["origin"] == "profile" and rows["lint"]["origin"] == "profile"
    assert [row["description"] for row in summary["shadowed"]] == ["User review."]


async def test_a_broken_skill_is_skipped_with_a_problem_naming_the_file(places):
    directory = places["config"] / "skills" / "broken"
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text("---\nname: broken\n---\nno description\n", encoding="utf-8")
    make_skill(places["config"] / "skills", "fine", "fine", "Works.")
    summary = (await mounted(places)).get_capability("skills.catalog")()
    assert [row["name"] for row in summary["skills"]] == ["fine"]
    problem = summary["problems"][0]
    assert str(directory / "SKILL.md") in problem and "'description' is missing" in problem


async def test_a_yaml_bomb_in_front_matter_is_a_problem_and_the_other_skills_load(places):
    directory = places["config"] / "skills" / "bomb"
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text("---\nname: bomb\ndescription: " + "[" * 5000 + "\n---\nbody\n")
    make_skill(places["config"] / "skills", "fine", "fine", "Works.")
    summary = (await mounted(places)).get_capability("skills.catalog")()
    assert [row["name"] for row in summary["skills"]] == ["fine"]
    [problem] = summary["problems"]
    assert str(directory / "SKILL.md") in problem and "nested deeper than 64 levels" in problem


async def test_a_skill_file_outside_the_project_is_readable_with_read_file(places):
    from amplifier_module_tool_filesystem import mount as mount_filesystem

    make_skill(places["config"] / "skills", "pdf-forms", "pdf-forms", "Fill PDF forms.",
               files={"reference/fields.md": "FIELDS-MARKER"})
    (places["config"] / "secret.txt").write_text("not a skill file", encoding="utf-8")
    coordinator = ModuleCoordinator(_Session())
    coordinator.register_capability("session.working_dir", str(places["project"]))
    coordinator.register_capability("app.user_config_dir", str(places["config"]))
    await mount_filesystem(coordinator, {})
    await mount(coordinator, {})
    loaded = await coordinator.get("tools", "load_skill").execute({"skill_name": "pdf-forms"})
    read = await coordinator.get("tools", "read_file").execute(
        {"file_path": loaded.output["skill_directory"] + "/reference/fields.md"})
    assert read.success and "FIELDS-MARKER" in str(read.output)
    refused = await coordinator.get("tools", "read_file").execute({"file_path": str(places["config"] / "secret.txt")})
    assert not refused.success
