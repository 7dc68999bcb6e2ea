"""Where amplifier keeps things: per-user dirs (AMPLIFIER_HOME or platformdirs) and the project's `.amplifier/`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

APP_NAME = "amplifier"
PROJECT_DIR_NAME = ".amplifier"
WORKTREE_ORIGIN_FILE = "origin"  # in <data>/worktrees/<repository>/: the real path of the repository


@dataclass(frozen=True)
class AmplifierPaths:
    """All locations for one invocation; build with `AmplifierPaths.discover()` so tests can point it anywhere."""

    config_dir: Path
    data_dir: Path
    cache_dir: Path
    cwd: Path
    project_root: Path | None  # None when no project scope is available (e.g. running from the home dir)
    # a git worktree the app made (sessions/worktrees.py) that cwd is in: the session's files are there, while the
    # project (its settings, profiles, trust) stays the repository it was made from
    worktree: Path | None = None
    trust_cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)  # config/trust.py's

    @classmethod
    def discover(cls, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> AmplifierPaths:
        env = os.environ if env is None else env
        cwd = (cwd or Path.cwd()).resolve()
        home = env.get("AMPLIFIER_HOME")
        if home:
            base = Path(home).expanduser().resolve()
            config_dir, data_dir, cache_dir = base / "config", base / "data", base / "cache"
        else:
            import platformdirs

            config_dir = Path(platformdirs.user_config_dir(APP_NAME))
            data_dir = Path(platformdirs.user_data_dir(APP_NAME))
            cache_dir = Path(platformdirs.user_cache_dir(APP_NAME))
        worktree, origin = app_worktree_of(cwd, data_dir)
        if worktree is not None and origin is not None:
            return cls(config_dir, data_dir, cache_dir, cwd, find_project_root(origin), worktree)
        return cls(config_dir, data_dir, cache_dir, cwd, find_project_root(cwd))

    @property
    def files_root(self) -> Path:
        """The tree the session's files are in (what checkpoints snapshot): the worktree, else the project."""
        return self.worktree or self.project_root or self.cwd

    # user scope
    @property
    def user_settings(self) -> Path:
        return self.config_dir / "settings.yaml"

    @property
    def user_profiles_dir(self) -> Path:
        return self.config_dir / "profiles"

    @property
    def git_cache_dir(self) -> Path:
        return self.cache_dir / "modules"

    # project scope
    @property
    def project_dir(self) -> Path | None:
        return self.project_root / PROJECT_DIR_NAME if self.project_root else None

    @property
    def project_settings(self) -> Path | None:
        return self.project_dir / "settings.yaml" if self.project_dir else None

    @property
    def local_settings(self) -> Path | None:
        return self.project_dir / "settings.local.yaml" if self.project_dir else None

    @property
    def project_profiles_dir(self) -> Path | None:
        return self.project_dir / "profiles" if self.project_dir else None

    @property
    def workspace_modules_dir(self) -> Path | None:
        return self.project_dir / "modules" if self.project_dir else None


def app_worktree_of(cwd: Path, data_dir: Path) -> tuple[Path | None, Path | None]:
    """(the worktree, its repository) when ``cwd`` is inside a worktree the app keeps under
    ``<data_dir>/worktrees/<repository>/<name>``, else (None, None). Reads one small file; runs no git."""
    folder = data_dir.resolve() / "worktrees"
    try:
        relative = cwd.relative_to(folder)
    except ValueError:
        return None, None
    if len(relative.parts) < 2:
        return None, None
    origin_file = folder / relative.parts[0] / WORKTREE_ORIGIN_FILE
    try:
        origin = Path(origin_file.read_text(encoding="utf-8").strip())
    except OSError:
        return None, None
    return folder / relative.parts[0] / relative.parts[1], origin if origin.is_dir() else None


def find_project_root(cwd: Path) -> Path | None:
    """Nearest ancestor holding `.amplifier/` (or, failing that, `.git`), else cwd itself.

    The home directory is never a project root: `~/.amplifier` is upstream's *user* directory, and
    treating it as project settings would leak into every project below home.
    """
    home = Path.home().resolve()
    git_root: Path | None = None
    for candidate in (cwd, *cwd.parents):
        if candidate == home:
            break
        if (candidate / PROJECT_DIR_NAME).is_dir():
            return candidate
        if git_root is None and (candidate / ".git").exists():
            git_root = candidate
    if git_root is not None:
        return git_root
    return None if cwd == home else cwd


def bundled_profiles_dir() -> Path:
    """The shipped profiles: `amplifier_cli/bundled_profiles` in a wheel, the repo's `profiles/` in a checkout."""
    package_dir = Path(__file__).resolve().parent.parent  # amplifier_cli/
    in_wheel = package_dir / "bundled_profiles"
    if in_wheel.is_dir():
        return in_wheel
    return package_dir.parent / "profiles"
