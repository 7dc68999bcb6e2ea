"""`amplifier module check-updates` asks each cached checkout's remote with the real `git ls-remote` (local bare
repositories as remotes): a branch that moved shows current -> available, a branch that did not is up to date,
a pinned tag names the remote's newer version tag, and a remote that cannot be asked is one clear line, exit 1."""

from __future__ import annotations

import json
import shutil

import pytest
from testkit.git_repos import module_source

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.config.source_uri import parse_source
from amplifier_cli.plans.sources.git_cache import GitCache


@pytest.fixture
def cached(project_dir, git_repos):
    """tool-x cached at main, dev and tag v1; then the remote's main moves and tag v2 appears."""
    remote = git_repos.module_repo("tool-x", "v1")
    remote.tag("v1")
    remote.branch("dev")
    remote.checkout("main")
    remote.push()
    cache = GitCache(AmplifierPaths.discover().git_cache_dir)
    for ref in ("main", "dev", "v1"):
        cache.ensure(parse_source(f"git+{remote.url}@{ref}"), "tool-x")
    old_head = remote.head()
    new_head = remote.commit(module_source("tool-x", "v2"), "v2")
    remote.tag("v2")
    remote.push()
    return remote, old_head, new_head


def test_check_updates_reports_what_each_remote_has_now(cli, cached) -> None:
    _, old_head, new_head = cached
    result = cli("module", "check-updates", "--json")
    assert result.exit_code == 0, result.output
    rows = {row["ref"]: row for row in json.loads(result.output)}
    assert rows["main"]["status"] == "update-available"
    assert (rows["main"]["current"], rows["main"]["available"]) == (old_head[:12], new_head[:12])
    assert rows["dev"]["status"] == "up-to-date" and rows["dev"]["available"] == old_head[:12]
    assert (rows["v1"]["status"], rows["v1"]["available"]) == ("newer-tag", "v2")

    human = cli("module", "check-updates")
    assert human.exit_code == 0
    assert f"{old_head[:12]} -> {new_head[:12]}" in " ".join(human.output.split())


def test_a_remote_that_cannot_be_asked_is_one_clear_line_and_exit_1(cli, cached) -> None:
    remote, _, _ = cached
    shutil.rmtree(remote.bare)
    result = cli("module", "check-updates")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"could not check for updates: cannot ask {remote.url}:")


def test_nothing_cached_says_so(cli, project_dir) -> None:
    result = cli("module", "check-updates")
    assert result.exit_code == 0 and "nothing to update" in result.output
