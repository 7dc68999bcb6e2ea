"""Settings keys the upstream commands write: which need trust in a project, how `bundle.active` and
registered bundles choose the profile, and where `allowed_dirs`/`denied_dirs` and `--max-tokens` land."""

from __future__ import annotations

from pathlib import Path

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.config.settings import load_settings
from amplifier_cli.config.trust import gated_settings
from amplifier_cli.plans.plan import build_plan


def test_bundle_active_naming_a_bundle_and_notify_are_harmless_the_rest_waits_for_trust() -> None:
    harmless, gated = gated_settings({"bundle": {"active": "review"}, "notify": {"desktop": {"enabled": True}},
                                      "allowed_dirs": ["/"], "denied_dirs": ["x"], "routing": {"matrix": "m"}})
    assert harmless == {"bundle": {"active": "review"}, "notify": {"desktop": {"enabled": True}}}
    assert set(gated) == {"allowed_dirs", "denied_dirs", "routing"}
    for value in ({"active": "./evil.md"}, {"active": "git+https://x/y"}, {"added": {"a": "/p"}},
                  {"active": "a", "added": {"a": "/p"}}):
        assert gated_settings({"bundle": value})[0] == {}, value


def test_bundle_active_wins_over_profile_active_in_its_scope_and_a_registered_name_means_its_uri(
        project_dir: Path) -> None:
    bundle = project_dir / "mine.md"
    bundle.write_text("---\nbundle: {name: mine}\nincludes: [minimal]\n---\nMINE\n", encoding="utf-8")
    paths = AmplifierPaths.discover()
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    paths.user_settings.write_text(
        f"profile: {{active: demo}}\nbundle: {{active: mine, added: {{mine: {bundle}}}}}\n", encoding="utf-8")
    settings = load_settings(paths)
    assert settings.active_profile() == (str(bundle), "user")
    assert build_plan(settings).instruction.startswith("MINE")


def test_allowed_and_denied_dirs_reach_the_file_tool_and_max_tokens_the_chosen_provider(project_dir: Path) -> None:
    paths = AmplifierPaths.discover()
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    paths.user_settings.write_text("allowed_dirs: [/srv/data]\ndenied_dirs: [/srv/data/secret]\n", encoding="utf-8")
    built = build_plan(load_settings(paths), "default", provider="openai", max_tokens=500)
    config = next(e for e in built.plan["tools"] if e["module"] == "tool-filesystem").get("config") or {}
    assert config["allowed_write_paths"] == [".", "/srv/data"]
    assert config["extra_denied_paths"] == ["/srv/data/secret"]
    assert built.plan["providers"][0]["config"]["max_tokens"] == 500
