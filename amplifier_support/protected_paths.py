"""The places in a project that decide what the NEXT session trusts and runs: amplifier's own project config
(``.amplifier/``), the MCP servers file other agents read (``.mcp.json``), the ``.claude/`` directory whose
commands, skills and agents later sessions load, and git's hooks and config (code git runs on the user's
behalf). The model must not plant anything there unasked: file tools ask a person
(and refuse when nobody can answer), shell redirections into them always ask, and the sandbox mounts them
read-only for the model's commands.

One list, used by every module that writes for the model, so the places cannot drift apart.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

PROJECT_CONFIG_DIR = ".amplifier"
PROJECT_ENTRIES = (".amplifier", ".mcp.json", ".claude")  # relative to the project root
FILE_ENTRIES = frozenset({".mcp.json", "config"})  # places that are files (the others are directories)
GIT_ENTRIES = ("hooks", "config")  # relative to the repository's git dir (and its common dir)


@dataclass(frozen=True)
class ProtectedPlace:
    path: str  # absolute, symlinks resolved as far as they exist
    label: str  # what it is, for messages ("amplifier's project config")


def _git_dirs(project_root: Path) -> list[Path]:
    """The git dir of the project (``.git``, or where a ``.git`` file's ``gitdir:`` points, as worktrees and
    submodules have it) and its common dir (a linked worktree keeps hooks and config there)."""
    dot_git = project_root / ".git"
    if dot_git.is_dir():
        return [dot_git]
    if not dot_git.is_file():
        return [dot_git]  # not a repository yet: a `git init` later would put hooks here
    try:
        first = dot_git.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return [dot_git]
    if not first.startswith("gitdir:"):
        return [dot_git]
    git_dir = Path(first[len("gitdir:"):].strip())
    if not git_dir.is_absolute():
        git_dir = project_root / git_dir
    found = [dot_git, git_dir]
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        common = ""
    if common:
        common_dir = Path(common) if os.path.isabs(common) else git_dir / common
        found.append(common_dir)
    return found


def protected_places(project_root: str | os.PathLike[str]) -> list[ProtectedPlace]:
    """Every protected place of the project at ``project_root``, resolved (whether or not it exists yet)."""
    root = Path(os.path.realpath(project_root))
    places = [ProtectedPlace(os.path.realpath(root / ".amplifier"), "amplifier's project config"),
              ProtectedPlace(os.path.realpath(root / ".mcp.json"), "the project's MCP servers file"),
              ProtectedPlace(os.path.realpath(root / ".claude"), "the project's commands, skills and agents")]
    for git_dir in _git_dirs(root):
        if git_dir.name == ".git" and git_dir.is_file():
            places.append(ProtectedPlace(os.path.realpath(git_dir), "the git dir link"))
            continue
        for entry in GIT_ENTRIES:
            places.append(ProtectedPlace(os.path.realpath(git_dir / entry), f"git's {entry}"))
    unique: dict[str, ProtectedPlace] = {}
    for place in places:
        unique.setdefault(place.path, place)
    return list(unique.values())


def resolve_target(path: str | os.PathLike[str], cwd: str | os.PathLike[str]) -> str:
    """Where a write to ``path`` (relative to ``cwd``) lands: ``..`` and repeated slashes folded and symlinks of
    the parts that exist followed, so ``./x/../.amplifier`` and a link to ``.git`` are seen for what they are."""
    return os.path.realpath(os.path.join(os.fspath(cwd), os.fspath(path)))


def _inside(target: str, place: str) -> bool:
    return target == place or target.startswith(place.rstrip("/") + "/")


def protected_place_of(path: str | os.PathLike[str], project_root: str | os.PathLike[str],
                       cwd: str | os.PathLike[str] | None = None) -> ProtectedPlace | None:
    """The protected place a write to ``path`` would change, or None. A path that names a directory holding a
    protected place (``rm -r .git`` or ``mv . x``) counts too: changing the parent changes what is inside."""
    target = resolve_target(path, cwd if cwd is not None else project_root)
    root = os.path.realpath(project_root)
    for place in protected_places(project_root):
        if _inside(target, place.path) or (_inside(target, root) and _inside(place.path, target)):
            return place
    return None


STAND_IN_MODE = 0o000  # the sandbox launcher's ``namespace.PLACEHOLDER_MODE`` (which imports nothing of ours)


def is_stand_in(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is the sandbox's stand-in for a protected place that does not exist yet (an empty file or
    directory with mode 000 owned by this user, mounted read-only while a command runs): readers of the place
    (trust, MCP files) take it for absent, as it is once the command is done."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if stat.S_IMODE(info.st_mode) != STAND_IN_MODE or info.st_uid != os.geteuid():
        return False
    if stat.S_ISREG(info.st_mode):
        return info.st_size == 0
    if stat.S_ISDIR(info.st_mode):
        try:
            return not os.listdir(path)
        except OSError:
            return os.geteuid() != 0 and info.st_nlink == 2  # mode 000 hides the entries from a user, not root
    return False
