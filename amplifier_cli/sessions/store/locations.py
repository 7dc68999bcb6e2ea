"""Where sessions live and how they group into projects. Kept apart from session_factory so commands that
only read the store (`session list`, `continue`'s lookup) do not import the kernel."""

from __future__ import annotations

from pathlib import Path

from ...config.paths import AmplifierPaths
from .store import SessionStore


def session_store_for(paths: AmplifierPaths) -> SessionStore:
    return SessionStore(paths.data_dir / "sessions")


def project_key(paths: AmplifierPaths) -> Path:
    """What groups sessions into a project: the project root, else the working directory."""
    return paths.project_root or paths.cwd
