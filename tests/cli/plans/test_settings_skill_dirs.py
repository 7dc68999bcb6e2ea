"""Settings `skills: {dirs: [...]}` add skill directories to tool-skills (user settings always; a project's only
once the project is trusted), and git skill sources (`git+URL@ref#subdirectory=...`, in settings or in
tool-skills' own config) are fetched into the git cache like module sources, from a local git repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from testkit.agent_profiles import write_profile
from testkit.trust import trust_project_now

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.sessions.factory import SessionRequest, open_session


def skill(directory: Path, name: str) -> None:
    (directory / name).mkdir(parents=True, exist_ok=True)
    (directory / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\nBODY\n",
                                               encoding="utf-8")


def user_settings(text: str) -> None:
    target = AmplifierPaths.discover().user_settings
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


async def catalog() -> dict[str, str]:
    """skill name -> origin, as the opened session's tool-skills found them."""
    live = await open_session(SessionRequest(profile="agents-test"), paths=AmplifierPaths.discover())
    try:
        summary = live.coordinator.get_capability("skills.catalog")()
    finally:
        await live.close()
    return {row["name"]: row["origin"] for row in summary["skills"]}


@pytest.fixture
def skills_project(project_dir: Path, anthropic_env: Any) -> Path:
    write_profile(project_dir, tools=[{"module": "tool-skills", "config": {"include_defaults": False}}])
    return project_dir


async def test_user_settings_skill_dirs_are_read_relative_to_the_config_dir(skills_project: Path) -> None:
    paths = AmplifierPaths.discover()
    skill(paths.config_dir / "team-skills", "review")
    user_settings("skills: {dirs: [team-skills]}\n")
    assert await catalog() == {"review": "settings"}


@pytest.mark.untrusted
async def test_project_settings_skill_dirs_wait_for_trust(skills_project: Path) -> None:
    mine = AmplifierPaths.discover().config_dir / "profiles" / "agents-test.yaml"  # the user's own profile
    mine.parent.mkdir(parents=True, exist_ok=True)
    (skills_project / ".amplifier" / "profiles" / "agents-test.yaml").rename(mine)
    skill(skills_project / "docs" / "skills", "deploy")
    (skills_project / ".amplifier" / "settings.yaml").write_text("skills: {dirs: [docs/skills]}\n", encoding="utf-8")
    assert await catalog() == {}
    trust_project_now(skills_project)
    assert await catalog() == {"deploy": "settings"}


async def test_git_skill_sources_are_fetched_into_the_git_cache(skills_project: Path, git_repos) -> None:
    remote = git_repos.make("team-skills")
    remote.commit({"skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint.\n---\nLINT\n",
                   "more/format/SKILL.md": "---\nname: format\ndescription: Format.\n---\nFMT\n"})
    remote.push()
    paths = AmplifierPaths.discover()
    user_settings(f"skills: {{dirs: ['git+{remote.url}@main#subdirectory=skills']}}\n")
    write_profile(skills_project, tools=[{"module": "tool-skills", "config": {
        "include_defaults": False, "skills": [f"git+{remote.url}@main#subdirectory=more"]}}])
    assert await catalog() == {"lint": "settings", "format": "profile"}
    assert any(paths.git_cache_dir.iterdir())


async def test_a_git_skill_source_that_cannot_be_fetched_names_the_source_and_key(skills_project: Path,
                                                                                 tmp_path: Path) -> None:
    from amplifier_cli.errors import ConfigError

    user_settings(f"skills: {{dirs: ['git+file://{tmp_path}/missing.git@main']}}\n")
    with pytest.raises(ConfigError) as raised:
        await catalog()
    rendered = raised.value.render()
    assert "missing.git" in rendered and "skills.dirs" in rendered
