"""`sandbox.network.allow`: the user's hosts always count, a project's only once the project is trusted, and the
hosts the user allowed "always" for a project are kept in the user's config dir, for that project alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit.trust import trust_project_now

from amplifier_cli.config.approval_rules import network_allow, remembered_path, save_network_host
from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.config.settings import load_settings


@pytest.mark.untrusted
def test_the_users_hosts_count_and_a_projects_only_once_trusted(project_dir: Path, write) -> None:
    paths = AmplifierPaths.discover(cwd=project_dir)
    write(paths.config_dir / "settings.yaml", "sandbox: {network: {allow: [pypi.org]}}\n")
    write(project_dir / ".amplifier" / "settings.yaml", "sandbox: {network: {allow: ['*']}}\n")
    assert network_allow(load_settings(paths)) == ["pypi.org"]  # a cloned repository cannot open every host
    trust_project_now(project_dir)
    assert network_allow(load_settings(AmplifierPaths.discover(cwd=project_dir))) == ["pypi.org", "*"]


def test_always_allowed_hosts_are_kept_per_project_outside_it(project_dir: Path, tmp_path: Path) -> None:
    paths = AmplifierPaths.discover(cwd=project_dir)
    saved = save_network_host(paths, "files.example.org")
    save_network_host(paths, "files.example.org")
    assert saved == remembered_path(paths) and not str(saved).startswith(str(project_dir))
    assert network_allow(load_settings(paths)) == ["files.example.org"]
    other = tmp_path / "other"
    other.mkdir()
    assert network_allow(load_settings(AmplifierPaths.discover(cwd=other))) == []


def test_a_bad_sandbox_settings_key_is_named(project_dir: Path, write) -> None:
    from amplifier_cli.errors import ConfigError

    paths = AmplifierPaths.discover(cwd=project_dir)
    write(paths.config_dir / "settings.yaml", "sandbox: {network: {alow: [x]}}\n")
    with pytest.raises(ConfigError) as raised:
        load_settings(paths)
    assert "sandbox.network.alow: unknown key 'alow' (fix: did you mean 'allow'?)" in raised.value.render()
