"""Checkpoints of the project's files, kept in a shadow git repository under the app's data dir (never the
project's own `.git`): before and after each tool call that can change files (every tool but the read-only
ones; a `task` call covers what its sub-agent does), the work tree is committed there, `.gitignore` honoured.
`checkpoints.jsonl` in the session directory says which commit belongs to which turn, so `session rewind`
can put the files back as they were before a turn and tell apart files changed by hand since."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from amplifier_core import HookResult

CHECKPOINTS_FILE = "checkpoints.jsonl"
READ_ONLY_TOOLS = frozenset({"read_file", "glob", "grep", "list_directory", "ls", "todo", "todo_read", "todo_write",
                             "web_fetch", "web_search", "load_skill"})
MAX_FILES = 100_000  # unless AMPLIFIER_CHECKPOINT_MAX_FILES says otherwise
MAX_BYTES = 1024 * 1024 * 1024  # unless AMPLIFIER_CHECKPOINT_MAX_BYTES says otherwise
_VANISHED = ("unable to stat", "No such file or directory")  # git add raced a file being replaced
_IDENTITY = {"GIT_AUTHOR_NAME": "amplifier", "GIT_AUTHOR_EMAIL": "checkpoints@amplifier.invalid",
             "GIT_COMMITTER_NAME": "amplifier", "GIT_COMMITTER_EMAIL": "checkpoints@amplifier.invalid"}


class CheckpointError(Exception):
    """The project cannot be snapshotted (too large, git missing or failing); the message says why."""


def _limit(variable: str, default: int) -> int:
    """A size limit from the environment, read when it is checked; a value that is not a whole number turns
    checkpoints off with a message naming the variable (never a traceback at import)."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise CheckpointError(f"{variable}={text!r} is not a whole number; set it to a count, or unset it "
                              f"for the default ({default})") from None


INDEX_FILE = "checkpoints.index"  # in the session directory: each session stages its snapshots in its own index


class ShadowRepo:
    """A bare repository whose work tree is the project, shared by the project's sessions.

    Objects are safe to write side by side; the index is not (``index.lock``), so each session passes its own
    ``index`` file: sessions running at once in one project (and the chat beside a `run`) all keep checkpoints."""

    def __init__(self, data_dir: Path, project: Path, index: Path | None = None) -> None:
        self.project = project.resolve()
        key = hashlib.sha256(os.fsencode(self.project)).hexdigest()[:16]  # a name that is not UTF-8 too
        self.git_dir = data_dir / "checkpoints" / key
        self.index = index if index is not None else self.git_dir / "index"

    def git(self, *args: str, check: bool = True) -> str:
        env = {**os.environ, **_IDENTITY, "GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": str(self.project),
               "GIT_INDEX_FILE": str(self.index)}
        for name in ("GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES"):
            env.pop(name, None)
        try:
            done = subprocess.run(["git", "-c", "core.hooksPath=/dev/null", "-c", "core.autocrlf=false", *args],
                                  cwd=self.project, env=env, capture_output=True, text=True, check=False,
                                  errors="surrogateescape")  # file names that are not UTF-8 round-trip
        except FileNotFoundError:
            raise CheckpointError("git is not installed; checkpoints need it") from None
        if check and done.returncode != 0:
            raise CheckpointError(f"git {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def ensure(self) -> None:
        """Create the repository once. It is made beside its place and renamed into it, so a session starting at
        the same moment sees either no repository or a whole one, never one half initialised."""
        if (self.git_dir / "HEAD").exists():
            return
        self.git_dir.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        building = Path(tempfile.mkdtemp(dir=self.git_dir.parent, prefix=f".{self.git_dir.name}."))
        try:
            done = subprocess.run(["git", "init", "--bare", "-q", str(building)], capture_output=True, text=True,
                                  check=False, env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")})
            if done.returncode != 0:
                raise CheckpointError(f"git init failed: {done.stderr.strip()}")
            try:
                os.rename(building, self.git_dir)  # replaces nothing but an empty directory
            except OSError:
                if not (self.git_dir / "HEAD").exists():  # not another session's repository: a real failure
                    raise
        finally:
            shutil.rmtree(building, ignore_errors=True)

    def check_size(self) -> None:
        """Refuse a project too large to snapshot cheaply (files not ignored by .gitignore)."""
        listed = self.git("ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
        files = [name for name in listed if name]
        max_files = _limit("AMPLIFIER_CHECKPOINT_MAX_FILES", MAX_FILES)
        max_bytes = _limit("AMPLIFIER_CHECKPOINT_MAX_BYTES", MAX_BYTES)
        if len(files) > max_files:
            raise CheckpointError(f"the project has {len(files)} files not ignored by .gitignore, more than the "
                                  f"checkpoint limit of {max_files}; ignore build output in .gitignore or raise "
                                  "AMPLIFIER_CHECKPOINT_MAX_FILES")
        total = 0
        for name in files:
            try:
                total += (self.project / name).lstat().st_size
            except OSError:
                continue
        if total > max_bytes:
            raise CheckpointError(f"the project's files not ignored by .gitignore hold {total} bytes, more than the "
                                  f"checkpoint limit of {max_bytes}; ignore large files in .gitignore or raise "
                                  "AMPLIFIER_CHECKPOINT_MAX_BYTES")

    def snapshot(self, message: str) -> str:
        """Commit the work tree as it is now; returns the commit id."""
        self.ensure()
        self._add_all()
        tree = self.git("write-tree").strip()
        return self.git("commit-tree", tree, "-m", message).strip()

    def _add_all(self, attempts: int = 3) -> None:
        """Stage the work tree. Another session (or sub-agent) writing in the same project replaces files through a
        temporary name: a file git listed may be gone when it reads it ("unable to stat"). That is a file that
        vanished, not a broken repository: listing again finds the tree as it is now."""
        for attempt in range(1, attempts + 1):
            try:
                self.git("add", "-A", ".")
                return
            except CheckpointError as error:
                if attempt == attempts or not any(sign in str(error) for sign in _VANISHED):
                    raise

    def changed(self, old: str, new: str) -> list[tuple[str, str]]:
        """(status, path) of files that differ between two snapshots (A added, D deleted, M modified)."""
        out = self.git("diff", "--name-status", "--no-renames", "-z", old, new)
        parts = [part for part in out.split("\0") if part]
        return [(parts[index], parts[index + 1]) for index in range(0, len(parts) - 1, 2)]

    def diff_text(self, old: str, new: str, paths: list[str] | None = None) -> str:
        """The diff to show (bytes that are not UTF-8, in names or contents, shown as replacement characters)."""
        text = self.git("diff", "--no-renames", "--stat", "-p", old, new, *(["--", *paths] if paths else []))
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")

    def restore(self, commit: str, paths: list[tuple[str, str]]) -> None:
        """Put ``paths`` back as they are in ``commit``: files it lacks are removed."""
        keep = [path for status, path in paths if status != "A"]
        for status, path in paths:
            if status == "A":
                (self.project / path).unlink(missing_ok=True)
        for start in range(0, len(keep), 200):
            self.git("checkout", commit, "--", *keep[start:start + 200])


class Checkpointer:
    """Registered on `tool:pre` / `tool:post` of a top-level session: snapshots around file-changing tools."""

    def __init__(self, repo: ShadowRepo, record: Any) -> None:
        self.repo = repo
        self.record = record
        self.disabled: str | None = None
        self.checked = False
        self.warn: Any = None  # called once with the reason when checkpoints turn off

    def _turn(self) -> int:
        return int(self.record.metadata.turn_count) + 1

    async def on_tool(self, event: str, data: dict[str, Any]) -> HookResult:
        name = str(data.get("tool_name") or "")
        if self.disabled is not None or name in READ_ONLY_TOOLS:
            return HookResult()
        when = "pre" if event == "tool:pre" else "post"
        try:
            if not self.checked:
                self.repo.ensure()
                self.repo.check_size()
                self.checked = True
            commit = self.repo.snapshot(f"turn {self._turn()} {when} {name}")
        except (CheckpointError, OSError) as error:
            self.disabled = str(error)
            if self.warn is not None:
                self.warn(f"checkpoints are off for this session: {error}")
            return HookResult()
        line = json.dumps({"turn": self._turn(), "when": when, "tool": name, "commit": commit})
        with open(self.record.directory / CHECKPOINTS_FILE, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
        return HookResult()

    def attach(self, hooks: Any) -> None:
        hooks.register("tool:pre", self.on_tool, priority=950, name="app-checkpoints")
        hooks.register("tool:post", self.on_tool, priority=950, name="app-checkpoints-post")


def read_checkpoints(directory: Path) -> list[dict[str, Any]]:
    path = directory / CHECKPOINTS_FILE
    if not path.exists():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return entries
