"""A home or project directory that cannot be written gives one message naming the place and the fix,
never a traceback (tests point AMPLIFIER_HOME at a regular file: root ignores permission bits)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("AMPLIFIER_HOME", str(blocker))
    return blocker


def test_run_with_an_unusable_amplifier_home_names_it_and_exits_2(cli, project_dir, home_is_a_file) -> None:
    result = cli("run", "-P", "demo", "hi")
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # no uncaught exception, so no traceback
    assert str(home_is_a_file) in result.stderr and "AMPLIFIER_HOME" in result.stderr


def test_profile_use_with_an_unusable_amplifier_home_names_the_settings_file(cli, project_dir,
                                                                             home_is_a_file) -> None:
    result = cli("profile", "use", "demo", "--global")
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert str(home_is_a_file / "config" / "settings.yaml") in result.stderr and "fix:" in result.stderr


def test_profile_use_where_the_settings_file_cannot_be_written_names_it(cli, project_dir) -> None:
    blocked = project_dir / ".amplifier" / "settings.yaml"
    blocked.mkdir(parents=True)  # a directory where the file should be: the write fails like a read-only dir
    result = cli("profile", "use", "demo", "--project")
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert str(blocked) in result.stderr and "cannot write settings" in result.stderr and "fix:" in result.stderr


def test_an_unexpected_os_error_is_one_line_with_exit_1_not_a_traceback(cli, project_dir, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device", "/somewhere/file")

    monkeypatch.setattr("amplifier_cli.plans.profile_listing.current_profile", broken)
    result = cli("profile", "current")
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    assert "/somewhere/file" in result.stderr and "No space left on device" in result.stderr
