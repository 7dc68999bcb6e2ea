"""The protected places of a project: what counts, however the path is spelled."""

from __future__ import annotations

import os
import subprocess

from amplifier_support.protected_paths import protected_place_of, protected_places


def test_project_config_mcp_file_and_git_hooks_and_config_are_protected(tmp_path):
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    for name in (".amplifier/settings.yaml", ".amplifier", ".mcp.json", ".git/hooks/pre-commit", ".git/config"):
        assert protected_place_of(name, tmp_path) is not None, name
    for name in ("README.md", ".git/objects/ab", ".amplifier-notes", "src/.mcp.json.bak", ".git/HEAD"):
        assert protected_place_of(name, tmp_path) is None, name


def test_spellings_that_fold_to_a_protected_place_are_caught(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / ".amplifier", target_is_directory=True)
    for name in ("src/../.amplifier/x", ".//.mcp.json", "./.amplifier/../.amplifier/hooks/h.json", "link/x",
                 str(tmp_path / ".git" / "config")):
        assert protected_place_of(name, tmp_path) is not None, name
    assert protected_place_of("../.mcp.json", tmp_path, cwd=tmp_path / "src") is not None


def test_a_directory_holding_a_protected_place_counts_inside_the_project_only(tmp_path):
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    assert protected_place_of(".git", tmp_path) is not None
    assert protected_place_of(".", tmp_path) is not None
    assert protected_place_of(tmp_path.parent / "elsewhere", tmp_path) is None


def test_a_worktree_protects_the_common_git_dir(tmp_path):
    main = tmp_path / "main"
    subprocess.run(["git", "init", "-q", str(main)], check=True)
    subprocess.run(["git", "-C", str(main), "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(tmp_path / "wt")], check=True)
    paths = {place.path for place in protected_places(tmp_path / "wt")}
    assert os.path.realpath(main / ".git" / "hooks") in paths
    assert os.path.realpath(main / ".git" / "config") in paths
    assert protected_place_of(main / ".git" / "hooks" / "post-checkout", tmp_path / "wt") is not None
