"""Local git repositories for source-resolution tests: a working copy that pushes to a bare repo, so tests
can use `git+file://...@ref` URLs without any network."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def run_git(*args: str, cwd: Path | None = None) -> str:
    result = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env={**os.environ, **GIT_ENV}
    )
    return result.stdout.strip()


def module_source(module_id: str, marker: str) -> dict[str, str]:
    """Files of a minimal tool module whose mounted tool reports `marker` (to tell versions apart)."""
    package = "amplifier_module_" + module_id.replace("-", "_")
    return {
        f"{package}/__init__.py": (
            f'MARKER = "{marker}"\n'
            "async def mount(coordinator, config):\n"
            "    return None\n"
        )
    }


class LocalGitRemote:
    """A bare repository (`url`) plus the working copy used to fill it."""

    def __init__(self, root: Path, name: str) -> None:
        self.bare = root / f"{name}.git"
        self.work = root / f"{name}-work"
        run_git("init", "--quiet", "--bare", "--initial-branch=main", str(self.bare))
        run_git("init", "--quiet", "--initial-branch=main", str(self.work))

    @property
    def url(self) -> str:
        return f"file://{self.bare}"

    def commit(self, files: dict[str, str], message: str = "change") -> str:
        for relative, text in files.items():
            path = self.work / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        run_git("add", "-A", cwd=self.work)
        run_git("commit", "--quiet", "-m", message, cwd=self.work)
        return self.head()

    def head(self) -> str:
        return run_git("rev-parse", "HEAD", cwd=self.work)

    def tag(self, name: str) -> None:
        run_git("tag", name, cwd=self.work)

    def branch(self, name: str) -> None:
        """Create and switch to `name` at the current commit."""
        run_git("checkout", "--quiet", "-b", name, cwd=self.work)

    def checkout(self, name: str) -> None:
        run_git("checkout", "--quiet", name, cwd=self.work)

    def push(self) -> None:
        run_git("push", "--quiet", "--force", "--all", str(self.bare), cwd=self.work)
        run_git("push", "--quiet", "--force", "--tags", str(self.bare), cwd=self.work)


class GitRepoFactory:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def make(self, name: str) -> LocalGitRemote:
        return LocalGitRemote(self.root, name)

    def module_repo(self, module_id: str, marker: str = "v1") -> LocalGitRemote:
        """A repo whose `main` holds a module printing `marker`, already pushed."""
        remote = self.make(f"amplifier-module-{module_id}")
        remote.commit(module_source(module_id, marker), f"{module_id} {marker}")
        remote.push()
        return remote
