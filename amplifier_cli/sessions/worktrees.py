"""Git worktrees a session (`--worktree`) or a sub-agent (`isolation: worktree`) works in: a new branch
`amplifier/NAME` created from HEAD, checked out under the app's data dir (`<data>/worktrees/<project>/NAME`, never in
the project's protected `.amplifier/`), so two agents that edit files never share one checkout.

When the work ends, what changed is committed on the branch (the user's git identity, or the app's when none is
set; the project's hooks do not run); a worktree that changed nothing is removed with its branch, the others stay
until `amplifier worktree remove NAME`."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..config.paths import WORKTREE_ORIGIN_FILE as ORIGIN_FILE
from ..errors import ConfigError, UsageError

BRANCH_PREFIX = "amplifier/"
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}\Z")
_FALLBACK_IDENTITY = {"GIT_AUTHOR_NAME": "amplifier", "GIT_AUTHOR_EMAIL": "worktrees@amplifier.invalid",
                      "GIT_COMMITTER_NAME": "amplifier", "GIT_COMMITTER_EMAIL": "worktrees@amplifier.invalid"}


class WorktreeError(ConfigError):
    """A worktree could not be made, finished or removed; the message says why and what to do (exit 2)."""


@dataclass
class Worktree:
    name: str
    path: Path
    repo: Path  # the main checkout's top level
    base: str = ""  # the commit the branch was created from
    changed_files: list[str] = field(default_factory=list)  # filled by `finish`

    @property
    def branch(self) -> str:
        return BRANCH_PREFIX + self.name


def _git(*args: str, cwd: Path, check: bool = True, identity: bool = False) -> str:
    env = {**os.environ}
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(name, None)
    if identity and not _has_identity(cwd):
        env.update(_FALLBACK_IDENTITY)
    try:
        done = subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=cwd, env=env,
                              capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise WorktreeError.single("git is not installed; worktrees need it", fix="install git") from None
    if check and done.returncode != 0:
        raise WorktreeError.single(f"git {args[0]} failed in {cwd}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip()


def _has_identity(cwd: Path) -> bool:
    done = subprocess.run(["git", "config", "user.email"], cwd=cwd, capture_output=True, text=True, check=False)
    return bool(done.stdout.strip())


def repository_root(directory: Path) -> Path:
    """The main checkout's top level of the repository ``directory`` is in (a worktree of ours included)."""
    done = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], cwd=directory,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise UsageError.single(f"{directory} is not in a git repository, and worktrees need one",
                                fix="run it inside a git checkout (git init, then commit once), or drop --worktree")
    return Path(done.stdout.strip()).parent.resolve()


def worktrees_dir(data_dir: Path, repo: Path) -> Path:
    """Where the worktrees of ``repo`` live: one folder per repository, named for it."""
    digest = hashlib.sha256(str(repo).encode()).hexdigest()[:10]
    return data_dir / "worktrees" / f"{repo.name}-{digest}"


def check_name(name: str) -> None:
    if not NAME_PATTERN.match(name) or name.endswith(".lock") or ".." in name:
        raise UsageError.single(
            f"--worktree: '{name}' is not a worktree name (letters, digits, '.', '_' and '-', up to 63, starting "
            "with a letter or digit)",
            fix="pick a name such as fix-login; to pass a prompt after a bare --worktree, put the prompt first: "
                "amplifier run \"PROMPT\" --worktree (or name it: --worktree=NAME)")


def create_worktree(data_dir: Path, directory: Path, name: str | None = None) -> Worktree:
    """A new worktree of the repository ``directory`` is in, on a new branch from its HEAD."""
    repo = repository_root(directory)
    if name is None or not name:
        name = time.strftime("wt-%Y%m%d-%H%M%S") + f"-{os.getpid() % 10000:04d}"
    check_name(name)
    base = _git("rev-parse", "--verify", "-q", "HEAD", cwd=directory, check=False)  # a worktree's own HEAD
    if not base:
        raise UsageError.single(f"the repository {repo} has no commit yet, so a worktree has nothing to start from",
                                fix="commit once (git commit), or drop --worktree")
    folder = worktrees_dir(data_dir, repo)
    path = folder / name
    if path.exists() or _git("rev-parse", "--verify", "-q", f"refs/heads/{BRANCH_PREFIX}{name}", cwd=repo,
                             check=False):
        raise UsageError.single(f"a worktree or branch named '{name}' already exists ({path})",
                                fix="pick another name, or remove the old one: amplifier worktree remove " + name)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ORIGIN_FILE).write_text(str(repo), encoding="utf-8")
    _git("worktree", "add", "-q", "-b", BRANCH_PREFIX + name, str(path), base, cwd=repo)
    return Worktree(name, path.resolve(), repo, base)


def finish_worktree(worktree: Worktree, message: str) -> bool:
    """Commit what changed on the worktree's branch; remove the worktree and branch when nothing did. True when it
    is kept (``changed_files`` then lists every file the branch changed since its base)."""
    if not worktree.path.is_dir():
        return False
    _git("add", "-A", cwd=worktree.path)
    if _git("status", "--porcelain", cwd=worktree.path):
        _git("commit", "-q", "-m", message, cwd=worktree.path, identity=True)
    head = _git("rev-parse", "HEAD", cwd=worktree.path)
    if not worktree.base:
        worktree.base = _git("merge-base", head, "HEAD", cwd=worktree.repo, check=False) or head
    changed = _git("diff", "--name-only", worktree.base, head, cwd=worktree.path).splitlines()
    worktree.changed_files = [line for line in changed if line]
    if head != worktree.base:
        return True
    _remove(worktree, delete_branch=True)
    return False


def list_worktrees(data_dir: Path, directory: Path) -> list[Worktree]:
    """This repository's worktrees kept in the data dir, by name."""
    repo = repository_root(directory)
    folder = worktrees_dir(data_dir, repo)
    if not folder.is_dir():
        return []
    return [Worktree(path.name, path, repo) for path in sorted(folder.iterdir()) if path.is_dir()]


def worktree_summary(worktree: Worktree) -> dict[str, object]:
    """What `worktree list` shows: the branch, its commits beyond the main checkout's HEAD, uncommitted files."""
    branch_head = _git("rev-parse", "--verify", "-q", f"refs/heads/{worktree.branch}", cwd=worktree.repo,
                       check=False)
    ahead = _git("rev-list", "--count", f"HEAD..{worktree.branch}", cwd=worktree.repo, check=False) \
        if branch_head else "0"
    dirty = _git("status", "--porcelain", cwd=worktree.path, check=False).splitlines()
    return {"name": worktree.name, "branch": worktree.branch if branch_head else None, "path": str(worktree.path),
            "commits": int(ahead or 0), "uncommitted": len([line for line in dirty if line])}


def remove_worktree(data_dir: Path, directory: Path, name: str, *, force: bool = False) -> tuple[Worktree, bool]:
    """Remove the named worktree's checkout; (it, whether its branch went too: it stays while it holds commits
    not in HEAD, since they are the work)."""
    check_name(name)
    known = {worktree.name: worktree for worktree in list_worktrees(data_dir, directory)}
    worktree = known.get(name)
    if worktree is None:
        listing = ", ".join(sorted(known)) or "none"
        raise UsageError.single(f"no worktree named '{name}' for this repository (worktrees: {listing})",
                                fix="see them with: amplifier worktree list")
    if not force and _git("status", "--porcelain", cwd=worktree.path, check=False):
        raise UsageError.single(f"worktree '{name}' ({worktree.path}) has changes not committed",
                                fix=f"commit them on {worktree.branch}, or throw them away: "
                                    f"amplifier worktree remove --force {name}")
    branch_head = _git("rev-parse", "--verify", "-q", f"refs/heads/{worktree.branch}", cwd=worktree.repo,
                       check=False)
    merged = bool(branch_head) and not _git("rev-list", f"HEAD..{worktree.branch}", cwd=worktree.repo, check=False)
    _remove(worktree, delete_branch=merged)
    return worktree, merged


def _remove(worktree: Worktree, *, delete_branch: bool) -> None:
    _git("worktree", "remove", "--force", str(worktree.path), cwd=worktree.repo)
    if delete_branch:
        _git("branch", "-D", worktree.branch, cwd=worktree.repo, check=False)
