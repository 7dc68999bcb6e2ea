"""AGENTS.md / AMPLIFIER.md loading: user then project files, @includes relative to the including file, nested
and deduplicated, code and mentions ignored, and every way out of the root refused and reported."""

from __future__ import annotations

from pathlib import Path

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.sessions.instructions import MESSAGE_SOURCE, instruction_files_in, load_project_instructions


def load(project: Path):
    return load_project_instructions(AmplifierPaths.discover(cwd=project))


def test_no_files_means_no_message(project_dir):
    loaded = load(project_dir)
    assert loaded.message() is None and loaded.files == [] and loaded.notes == []


def test_user_files_come_before_project_files_and_amplifier_md_after_agents_md(project_dir, amplifier_home):
    (amplifier_home / "config").mkdir(parents=True)
    (amplifier_home / "config" / "AGENTS.md").write_text("USER-RULES")
    (project_dir / "AGENTS.md").write_text("PROJECT-RULES")
    (project_dir / "AMPLIFIER.md").write_text("AMPLIFIER-RULES")
    loaded = load(project_dir)
    text = loaded.text
    assert text.index("USER-RULES") < text.index("PROJECT-RULES") < text.index("AMPLIFIER-RULES")
    assert [path.name for path in loaded.files] == ["AGENTS.md", "AGENTS.md", "AMPLIFIER.md"]
    message = loaded.message()
    assert message["role"] == "system" and message["metadata"]["source"] == MESSAGE_SOURCE


def test_the_project_root_is_found_from_a_subdirectory(project_dir):
    (project_dir / "AGENTS.md").write_text("ROOT-RULES")
    sub = project_dir / "src" / "pkg"
    sub.mkdir(parents=True)
    assert "ROOT-RULES" in load(sub).text


def test_includes_resolve_relative_to_the_including_file_nest_and_load_once(project_dir):
    (project_dir / "docs" / "more").mkdir(parents=True)
    (project_dir / "AGENTS.md").write_text("See @docs/style.md, and again @docs/style.md.\n")
    (project_dir / "docs" / "style.md").write_text("STYLE @more/deep.md @../AGENTS.md")
    (project_dir / "docs" / "more" / "deep.md").write_text("DEEP")
    loaded = load(project_dir)
    assert [p.relative_to(project_dir).as_posix() for p in loaded.files] == [
        "AGENTS.md", "docs/style.md", "docs/more/deep.md"]
    assert loaded.text.count("STYLE") == 1 and "DEEP" in loaded.text
    assert f'included_from="{project_dir / "docs" / "style.md"}"' in loaded.text
    assert loaded.notes == []


def test_includes_that_leave_the_project_are_refused_and_noted(project_dir, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    (project_dir / "link.md").symlink_to(secret)
    (project_dir / "AGENTS.md").write_text(f"@../secret.txt\n@{secret}\n@link.md\n@~/x.md\n")
    loaded = load(project_dir)
    assert "TOP-SECRET" not in loaded.text
    assert len(loaded.notes) == 4
    assert all("outside the project" in note and "refused" in note for note in loaded.notes)
    assert loaded.notes[0].startswith(f"{project_dir / 'AGENTS.md'}:1: @../secret.txt")


def test_code_spans_fences_emails_and_plain_mentions_are_not_includes(project_dir):
    (project_dir / "x.md").write_text("X-CONTENT")
    (project_dir / "AGENTS.md").write_text(
        "Ask @alice. Mail me@example.com. Use `@x.md` literally.\n```\n@x.md\n```\n")
    loaded = load(project_dir)
    assert "X-CONTENT" not in loaded.text and loaded.notes == []


def test_a_missing_include_is_noted(project_dir):
    (project_dir / "AGENTS.md").write_text("Read @docs/none.md")
    assert "no such file" in load(project_dir).notes[0]


def test_user_files_may_include_only_inside_the_user_config_dir(project_dir, amplifier_home):
    config = amplifier_home / "config"
    config.mkdir(parents=True)
    (project_dir / "p.md").write_text("PROJECT-FILE")
    (config / "AGENTS.md").write_text(f"@{project_dir / 'p.md'}")
    loaded = load(project_dir)
    assert "PROJECT-FILE" not in loaded.text and "outside the user config dir" in loaded.notes[0]


def test_the_files_are_recovered_from_a_transcript_message():
    message = {"role": "system", "content": "x", "metadata": {"source": MESSAGE_SOURCE, "files": ["/a/AGENTS.md"]}}
    assert instruction_files_in([{"role": "system", "content": "p"}, message]) == [Path("/a/AGENTS.md")]


def test_a_project_agents_md_symlinked_outside_the_project_is_refused_not_sent(project_dir, tmp_path):
    secret = tmp_path / "elsewhere" / "id_rsa"
    secret.parent.mkdir()
    secret.write_text("PRIVATE-KEY")
    (project_dir / "AGENTS.md").symlink_to(secret)
    loaded = load(project_dir)
    assert loaded.text is None or "PRIVATE-KEY" not in loaded.text
    assert any("AGENTS.md" in note and "outside" in note for note in loaded.notes)


def test_a_project_agents_md_symlinked_inside_the_project_is_loaded(project_dir):
    (project_dir / "docs").mkdir()
    (project_dir / "docs" / "rules.md").write_text("LINKED-RULES")
    (project_dir / "AGENTS.md").symlink_to(project_dir / "docs" / "rules.md")
    assert "LINKED-RULES" in load(project_dir).text


def test_an_include_of_a_huge_file_reads_only_the_start(project_dir):
    (project_dir / "AGENTS.md").write_text("see @big.md")
    with open(project_dir / "big.md", "wb") as big:
        big.truncate(2_000_000_000)  # sparse: reading it all would take 2 GB of memory
    loaded = load(project_dir)
    assert any("big.md" in note and "only the start" in note for note in loaded.notes)


def test_claude_md_and_claude_local_md_load_after_agents_md_in_the_readme_order(project_dir, amplifier_home):
    (amplifier_home / "config").mkdir(parents=True)
    (amplifier_home / "config" / "CLAUDE.md").write_text("USER-CLAUDE")
    (amplifier_home / "config" / "CLAUDE.local.md").write_text("NOT-A-USER-FILE")
    (project_dir / "CLAUDE.local.md").write_text("MY-LOCAL-RULES")
    (project_dir / "CLAUDE.md").write_text("CLAUDE-RULES\nSee @docs/style.md.")
    (project_dir / "docs").mkdir()
    (project_dir / "docs" / "style.md").write_text("STYLE-RULES")
    (project_dir / "AGENTS.md").write_text("AGENTS-RULES")
    loaded = load(project_dir)
    text = loaded.text
    assert "NOT-A-USER-FILE" not in text
    assert (text.index("USER-CLAUDE") < text.index("AGENTS-RULES") < text.index("CLAUDE-RULES")
            < text.index("STYLE-RULES") < text.index("MY-LOCAL-RULES"))
    assert [path.name for path in loaded.files] == ["CLAUDE.md", "AGENTS.md", "CLAUDE.md", "style.md",
                                                    "CLAUDE.local.md"]


def test_no_file_is_added_twice_when_one_links_or_imports_another(project_dir):
    (project_dir / "CLAUDE.md").write_text("CLAUDE-RULES\n@AGENTS.md\n")
    (project_dir / "AGENTS.md").write_text("SHARED-RULES\n@CLAUDE.md\n")
    (project_dir / "AMPLIFIER.md").symlink_to(project_dir / "CLAUDE.md")
    loaded = load(project_dir)
    assert loaded.text.count("SHARED-RULES") == 1 and loaded.text.count("CLAUDE-RULES") == 1
    assert [path.name for path in loaded.files] == ["AGENTS.md", "CLAUDE.md"]


def test_a_claude_md_import_outside_the_project_is_refused(project_dir, tmp_path):
    (tmp_path / "outside.md").write_text("OUTSIDE-SECRET")
    (project_dir / "CLAUDE.md").write_text("@../outside.md\n")
    loaded = load(project_dir)
    assert "OUTSIDE-SECRET" not in (loaded.text or "")
    assert any("points outside the project" in note for note in loaded.notes)
