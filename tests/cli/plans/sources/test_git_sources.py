"""Git module sources from local bare repositories: tags, branches, commits, bad refs, concurrent first
fetch, and `amplifier module update` refreshing only moving refs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.git_repos import module_source

from amplifier_cli.config.settings import load_settings
from amplifier_cli.config.source_uri import parse_source
from amplifier_cli.errors import ConfigError, RuntimeFailure
from amplifier_cli.plans.sources import make_resolver
from amplifier_cli.plans.sources.git_cache import GitCache

MARKER_FILE = "amplifier_module_tool_x/__init__.py"


def marker(directory: Path) -> str:
    return (directory / MARKER_FILE).read_text().split('"')[1]


@pytest.fixture
def repo(git_repos):
    """tool-x: v1 tagged 'v1', then main moves to v2; branch 'dev' holds v3."""
    remote = git_repos.module_repo("tool-x", "v1")
    remote.tag("v1")
    remote.commit(module_source("tool-x", "v2"), "v2")
    remote.branch("dev")
    remote.commit(module_source("tool-x", "v3"), "v3")
    remote.checkout("main")
    remote.push()
    return remote


@pytest.fixture
def cache(amplifier_home: Path) -> GitCache:
    return GitCache(amplifier_home / "cache" / "modules")


def test_tag_branch_commit_and_default_branch_each_check_out_their_content(repo, cache) -> None:
    v1_commit = subprocess.run(["git", "-C", str(repo.work), "rev-parse", "v1"], capture_output=True,
                               text=True, check=True).stdout.strip()
    assert marker(cache.ensure(parse_source(f"git+{repo.url}@v1"))) == "v1"
    assert marker(cache.ensure(parse_source(f"git+{repo.url}@main"))) == "v2"
    assert marker(cache.ensure(parse_source(f"git+{repo.url}@dev"))) == "v3"
    assert marker(cache.ensure(parse_source(f"git+{repo.url}@{v1_commit[:10]}"))) == "v1"
    assert marker(cache.ensure(parse_source(f"git+{repo.url}"))) == "v2"
    kinds = {(e.ref, e.ref_kind) for e in cache.entries()}
    assert kinds == {("v1", "tag"), ("main", "branch"), ("dev", "branch"), (v1_commit[:10], "commit"),
                     (None, "default")}


def test_subdirectory_sources_return_that_directory(git_repos, cache) -> None:
    remote = git_repos.make("mono")
    remote.commit({f"packages/tool-y/{k}": v for k, v in module_source("tool-y", "mono").items()})
    remote.push()
    directory = cache.ensure(parse_source(f"git+{remote.url}@main#subdirectory=packages/tool-y"))
    assert directory.name == "tool-y" and (directory / "amplifier_module_tool_y").is_dir()


def test_bad_ref_is_a_config_error_and_leaves_nothing_in_the_cache(repo, cache) -> None:
    with pytest.raises(ConfigError) as caught:
        cache.ensure(parse_source(f"git+{repo.url}@no-such-ref"))
    assert "ref 'no-such-ref' not found" in caught.value.render()
    assert caught.value.exit_code == 2
    assert [p for p in cache.root.iterdir() if not p.name.endswith(".lock")] == []


def test_unreachable_repository_reports_gits_own_message(cache, tmp_path) -> None:
    with pytest.raises(RuntimeFailure) as caught:
        cache.ensure(parse_source(f"git+file://{tmp_path}/missing.git@main"))
    assert "git clone failed" in caught.value.render() and "missing.git" in caught.value.render()


def _git_shim(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """PATH with a `git` wrapper that logs every clone, so tests can count fetches."""
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    log = tmp_path / "clones.log"
    real_git = shutil.which("git")
    shim = shim_dir / "git"
    shim.write_text(f'#!/bin/sh\nif [ "$1" = clone ]; then echo clone >> "{log}"; fi\nexec "{real_git}" "$@"\n')
    shim.chmod(0o755)
    return {**os.environ, "PATH": f"{shim_dir}{os.pathsep}{os.environ['PATH']}"}, log


def test_a_source_is_cloned_once_and_then_served_from_the_cache(repo, cache, tmp_path, monkeypatch) -> None:
    env, log = _git_shim(tmp_path)
    monkeypatch.setenv("PATH", env["PATH"])
    first = cache.ensure(parse_source(f"git+{repo.url}@v1"))
    second = GitCache(cache.root).ensure(parse_source(f"git+{repo.url}@v1"))
    assert first == second
    assert log.read_text().count("clone") == 1


FETCH_SCRIPT = """
import sys
from pathlib import Path
from amplifier_cli.plans.sources.git_cache import GitCache
from amplifier_cli.config.source_uri import parse_source
sys.stdin.readline()  # start together
print(GitCache(Path(sys.argv[1])).ensure(parse_source(sys.argv[2]), "tool-x"))
"""


def test_concurrent_first_fetch_from_two_processes_clones_once_and_both_get_the_checkout(
    repo, cache, tmp_path
) -> None:
    env, log = _git_shim(tmp_path)
    uri = f"git+{repo.url}@main"
    processes = [
        subprocess.Popen([sys.executable, "-c", FETCH_SCRIPT, str(cache.root), uri], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for _ in range(2)
    ]
    for process in processes:
        process.stdin.write("go\n")
        process.stdin.flush()
    outputs = [process.communicate(timeout=60) for process in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    directories = {out.strip() for out, _err in outputs}
    assert len(directories) == 1
    assert marker(Path(directories.pop())) == "v2"
    assert log.read_text().count("clone") == 1
    assert not [p for p in cache.root.iterdir() if p.name.startswith(".") and p.is_dir()]  # no temp dirs left


def test_a_rival_finished_checkout_is_kept_when_the_rename_loses(repo, cache) -> None:
    """Without a lock (no fcntl) the atomic rename is what keeps the cache consistent."""
    source = parse_source(f"git+{repo.url}@main")
    final = cache.ensure(source)
    commit_before = cache.entries()[0].commit
    cache._install(source, final, "tool-x")  # a second, losing fetch
    assert cache.entries()[0].commit == commit_before and marker(final) == "v2"


def test_module_update_refreshes_branches_and_leaves_tags_pinned(repo, cache, cli, project_dir) -> None:
    cache.ensure(parse_source(f"git+{repo.url}@main"), "tool-x")
    cache.ensure(parse_source(f"git+{repo.url}@v1"), "tool-x")
    repo.commit(module_source("tool-x", "v4"), "v4")
    repo.push()
    assert marker(cache.ensure(parse_source(f"git+{repo.url}@main"))) == "v2"  # never refreshed implicitly
    result = cli("module", "update", "tool-x")
    assert result.exit_code == 0, result.output
    assert "tool-x@main: updated" in result.output and "tool-x@v1: pinned" in result.output
    assert marker(cache.ensure(parse_source(f"git+{repo.url}@main"))) == "v4"
    assert marker(cache.ensure(parse_source(f"git+{repo.url}@v1"))) == "v1"
    again = cli("module", "update")
    assert "tool-x@main: already at" in again.output


def test_module_update_with_nothing_cached_says_so(cli, project_dir) -> None:
    result = cli("module", "update", "tool-x")
    assert result.exit_code == 0 and "nothing to update" in result.output


def test_git_source_in_settings_resolves_through_the_cache(repo, paths, write) -> None:
    write(paths.user_settings, f"sources: {{tool-x: 'git+{repo.url}@dev'}}\n")
    source = make_resolver(load_settings(paths)).resolve("tool-x")
    assert source.layer == "settings"
    assert marker(source.resolve()) == "v3"


def test_bad_ref_through_the_resolver_is_a_load_error_naming_module_and_layer(repo, paths) -> None:
    from amplifier_core.module_sources import ModuleLoadError

    source = make_resolver(load_settings(paths)).resolve("tool-x", source_hint=f"git+{repo.url}@nope")
    with pytest.raises(ModuleLoadError, match=r"module 'tool-x' \(plan: git\+file.*ref 'nope' not found"):
        source.resolve()
