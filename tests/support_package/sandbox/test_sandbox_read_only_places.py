"""Protected places inside a writable project (amplifier's config, .mcp.json, git's hooks and config) are
read-only for confined commands (a user + mount namespace), cannot be unmounted or moved away, and are reported
when changed where no namespace can be made; read-only mode keeps a project under the temp dir read-only.
Real processes, real git, real mounts."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from amplifier_support.sandbox import FORCE_NO_NAMESPACE_ENV, SandboxPolicy, confine


def run(confinement, command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(confinement.argv(["/bin/bash", "-c", command]), cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(params=["under-temp", "elsewhere"])
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    """A git repository with amplifier config and an MCP servers file, under the temp dir (whose parent is
    writable too) or outside it."""
    base = tmp_path if request.param == "under-temp" else Path(tempfile.mkdtemp(dir="/var/tmp"))
    root = base / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".amplifier" / "hooks").mkdir(parents=True)
    (root / ".amplifier" / "settings.yaml").write_text("sandbox: workspace-write\n")
    (root / ".mcp.json").write_text('{"mcpServers": {}}\n')
    (root / "src.txt").write_text("code\n")
    yield root
    if request.param != "under-temp":
        shutil.rmtree(base, ignore_errors=True)


def state(root: Path) -> dict[str, str]:
    """Every file below the protected places, with its content."""
    found = {}
    for place in (root / ".amplifier", root / ".git" / "hooks"):
        for path in sorted(place.rglob("*")):
            found[str(path.relative_to(root))] = path.read_text() if path.is_file() else "<dir>"
    for path in (root / ".mcp.json", root / ".git" / "config"):
        found[str(path.relative_to(root))] = path.read_text() if path.exists() else "<missing>"
    return found


PLANTING = [
    "echo 'sandbox: off' > .amplifier/settings.yaml",
    "echo '{}' > .amplifier/hooks/hooks.json",
    "mkdir .amplifier/profiles",
    "rm .amplifier/settings.yaml",
    "mv .amplifier/settings.yaml moved.yaml",
    "rm -rf .amplifier",
    "mv .amplifier elsewhere",
    "echo '{\"mcpServers\": {\"x\": {\"command\": \"evil\"}}}' > .mcp.json",
    "rm .mcp.json",
    "mv src.txt .mcp.json",
    "printf '#!/bin/sh\\nevil\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
    "git config core.hooksPath /tmp/evil",
    "echo '[core]' >> .git/config",
    "mv .git/hooks .git/old-hooks",
    "mv .git g && mkdir -p .git/hooks && touch .git/hooks/pre-commit",
    "python3 -c \"open('.git/config', 'a').write('x')\"",
    "echo x > /proc/$PPID/root$PWD/.mcp.json",
]


@pytest.mark.parametrize("attempt", PLANTING)
def test_a_confined_command_cannot_change_a_protected_place_but_writes_the_rest(project: Path,
                                                                                attempt: str) -> None:
    confinement = confine(SandboxPolicy(), str(project))
    assert confinement.namespace, confinement.describe()
    before = state(project)
    snapshot = confinement.snapshot()
    result = run(confinement, f"{attempt}; echo made > made.txt && git add src.txt && git commit -qm c "
                              "--author='a <a@b>' 2>&1 | tail -1; true", project)
    assert state(project) == before, result.stderr
    assert (project / "made.txt").read_text() == "made\n", result.stderr  # the rest of the project stays writable
    assert confinement.changed(snapshot) is None


def test_git_still_works_in_the_project(project: Path) -> None:
    command = ("git -c user.email=a@b -c user.name=a commit -qm first --allow-empty && git checkout -qb topic && "
               "git log --oneline | wc -l && git status --short")
    result = run(confine(SandboxPolicy(), str(project)), command, project)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "1"


def test_the_refusal_is_explained_as_a_read_only_place(project: Path) -> None:
    confinement = confine(SandboxPolicy(), str(project))
    result = run(confinement, "echo x > .amplifier/settings.yaml", project)
    assert "Read-only file system" in result.stderr
    note = confinement.explain(result.stderr, str(project))
    assert note is not None and "amplifier's project config is read-only for commands" in note, note


MOUNT_ESCAPES = [
    "umount .amplifier",
    "umount -l .git/hooks",
    "mount -o remount,rw .amplifier",
    "mount -o remount,bind,rw .amplifier",
    "mount --bind /tmp .amplifier",
    "unshare -rm sh -c 'umount .amplifier; mount -o remount,rw,bind .amplifier; echo x > .amplifier/a'",
    "python3 -c \"import ctypes; libc = ctypes.CDLL(None); libc.umount2(b'.amplifier', 2); "
    "libc.mount(None, b'.amplifier', None, 32 | 4096, None)\"",
]


@pytest.mark.parametrize("escape", MOUNT_ESCAPES)
def test_the_read_only_mount_cannot_be_undone_from_inside(project: Path, escape: str) -> None:
    """The command holds no capability (root's are dropped, and those the namespace gave too), and its Landlock
    domain refuses every mount operation."""
    confinement = confine(SandboxPolicy(), str(project))
    result = run(confinement, f"{escape}; grep CapEff /proc/self/status; echo planted > .amplifier/a", project)
    assert not (project / ".amplifier" / "a").exists(), result.stderr
    assert "CapEff:\t0000000000000000" in result.stdout
    assert "Read-only file system" in result.stderr


def test_a_place_that_does_not_exist_yet_cannot_be_created_and_leaves_nothing_behind(project: Path) -> None:
    """A stand-in is mounted read-only in its place for the command, and removed once the command is done."""
    shutil.rmtree(project / ".amplifier")
    (project / ".mcp.json").unlink()
    confinement = confine(SandboxPolicy(), str(project))
    snapshot = confinement.snapshot()
    result = run(confinement, "mkdir -p .amplifier/hooks; echo '{}' > .mcp.json; mkdir -p .claude/skills; "
                              "echo ok > plain.txt", project)
    assert (project / "plain.txt").read_text() == "ok\n"
    assert ".mcp.json: Read-only file system" in result.stderr and "‘.claude’: Permission denied" in result.stderr
    assert confinement.changed(snapshot) is None
    assert not any((project / name).exists() for name in (".amplifier", ".mcp.json", ".claude"))


def test_a_stand_in_a_running_command_holds_stays_until_it_ends(project: Path) -> None:
    (project / ".mcp.json").unlink()
    confinement = confine(SandboxPolicy(), str(project))
    held = subprocess.Popen(confinement.argv(["bash", "-c", "echo ready; read line"]), cwd=project,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert held.stdout is not None and held.stdout.readline() == "ready\n"  # its mounts are made by now
        run(confinement, "ls -a > listing.txt", project)
        confinement.tidy()
        assert ".mcp.json" in (project / "listing.txt").read_text().split()
        assert (project / ".mcp.json").exists()  # the waiting command still has it mounted
    finally:
        held.communicate("done\n", timeout=30)
    confinement.tidy()
    assert not (project / ".mcp.json").exists()


def test_without_a_namespace_it_says_so_once_and_reports_each_change(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FORCE_NO_NAMESPACE_ENV, "1")
    confinement = confine(SandboxPolicy(), str(project))
    assert confinement.confined and not confinement.namespace
    warning = confinement.warning() or ""
    assert "NOT read-only" in warning and FORCE_NO_NAMESPACE_ENV in warning
    assert confinement.refusal() is None  # never a reason not to run
    assert "NOT read-only" in confinement.describe()
    snapshot = confinement.snapshot()
    result = run(confinement, "echo evil > .git/hooks/pre-commit; echo 'sandbox: off' > .amplifier/settings.yaml",
                 project)
    assert result.returncode == 0, result.stderr
    line = confinement.changed(snapshot) or ""
    assert "created .git/hooks/pre-commit (git's hooks)" in line
    assert "changed .amplifier/settings.yaml (amplifier's project config)" in line
    assert confinement.changed(confinement.snapshot()) is None


def test_the_apps_own_places_can_be_protected_too(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "sessions").mkdir(parents=True)
    confinement = confine(SandboxPolicy(), str(tmp_path), protect=[(str(home), "amplifier's settings")])
    result = run(confinement, f"echo x > {home}/settings.yaml; touch {home}/sessions/s", tmp_path)
    assert not (home / "settings.yaml").exists() and not (home / "sessions" / "s").exists(), result.stderr


def test_read_only_keeps_a_project_under_the_temp_dir_read_only(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    confinement = confine(SandboxPolicy(mode="read-only"), str(project))
    assert confinement.workspace_read_only
    scratch = tmp_path / "scratch.txt"
    result = run(confinement, f"echo x > f; mkdir d; echo ok > {scratch}", project)
    assert not (project / "f").exists() and not (project / "d").exists(), result.stderr
    assert scratch.read_text() == "ok\n"  # the rest of the temp dir stays writable
    note = confinement.explain(result.stderr, str(project)) or ""
    assert "the project (read-only mode) is read-only for commands" in note


def test_read_only_without_a_namespace_leaves_the_temp_dir_out(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FORCE_NO_NAMESPACE_ENV, "1")
    project = tmp_path / "proj"
    project.mkdir()
    confinement = confine(SandboxPolicy(mode="read-only"), str(project))
    assert "the temp dir is not writable either" in (confinement.warning() or "")
    result = run(confinement, "echo x > f", project)
    assert result.returncode != 0 and not (project / "f").exists()
    assert "read-only" in (confinement.explain(result.stderr, str(project)) or "")


def test_a_symlinked_place_replaced_by_a_directory_is_reported(tmp_path: Path) -> None:
    (tmp_path / "real-config").mkdir()
    (tmp_path / ".amplifier").symlink_to("real-config")
    confinement = confine(SandboxPolicy(), str(tmp_path))
    snapshot = confinement.snapshot()
    run(confinement, "rm .amplifier && mkdir .amplifier && echo x > .amplifier/settings.yaml", tmp_path)
    assert "changed .amplifier (amplifier's project config)" in (confinement.changed(snapshot) or "")


def test_the_launchers_stand_in_mode_is_the_one_readers_recognise() -> None:
    from amplifier_support.protected_paths import STAND_IN_MODE
    from amplifier_support.sandbox.namespace import PLACEHOLDER_MODE

    assert PLACEHOLDER_MODE == STAND_IN_MODE
