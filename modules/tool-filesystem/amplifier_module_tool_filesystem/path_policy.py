"""Which paths the filesystem tools may read and write.

Every check runs on the fully resolved real path (``~`` expanded, relative paths joined to the working dir,
symlinks followed, ``..`` collapsed), so none of them can step outside the allowed roots or into a denied one.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .names import unescape_name

DEFAULT_DENIED_PATHS = ("~/.ssh", "~/.aws", "~/.gnupg", "~/.netrc", "~/.docker/config.json", "~/.kube/config",
                        "~/.config/gcloud", "/etc/shadow", "/etc/gshadow", "/etc/sudoers")


class PathDenied(Exception):
    """A path the policy refuses; the message says which path, why, and which setting changes it."""


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@dataclass
class PathPolicy:
    """Resolves user-supplied paths and checks them against allowed roots and denied paths.

    ``working_dir`` is a callable so that a working directory registered after mount is still honoured.
    ``None`` roots mean "the working directory". ``extra_read_roots`` gives directories other modules add for
    reading only (tool-skills' skill folders, capability ``filesystem.read_roots``), asked at each check.
    """

    working_dir: Callable[[], Path]
    read_roots: list[str] | None
    write_roots: list[str] | None
    denied: tuple[str, ...]
    extra_read_roots: Callable[[], list[str]] | None = None

    def _absolute(self, raw: str) -> Path:
        if "\0" in raw:
            raise PathDenied(f"The path {raw!r} contains a NUL byte, which no file name can hold; give the path "
                             "without it.")
        expanded = Path(os.path.expanduser(unescape_name(raw, str(self.working_dir()))))
        if not expanded.is_absolute():
            expanded = self.working_dir() / expanded
        try:
            return expanded.resolve(strict=False)
        except RuntimeError:  # Python < 3.13 reports a symlink loop so; 3.13 raises OSError(ELOOP) itself
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), raw) from None

    def __post_init__(self) -> None:
        self._cache: dict[tuple[str, str], list[tuple[str, Path]]] = {}

    def _prepared(self, kind: str, entries: Iterable[str] | None) -> list[tuple[str, Path]]:
        """(as configured, resolved) pairs, cached per working directory: walks check thousands of files."""
        key = (kind, str(self.working_dir()) + ("\0" + "\0".join(entries or ()) if kind == "extra" else ""))
        if key not in self._cache:
            if entries is None:
                self._cache[key] = [(".", self.working_dir().resolve(strict=False))]
            else:
                self._cache[key] = [(entry, self._absolute(entry)) for entry in entries]
        return self._cache[key]

    def _roots(self, configured: list[str] | None) -> list[Path]:
        kind = "read" if configured is self.read_roots else "write"
        return [resolved for _, resolved in self._prepared(kind, configured)]

    def resolve(self, raw: str) -> Path:
        """The real absolute path ``raw`` names (no permission check)."""
        return self._absolute(raw)

    def display(self, path: Path) -> str:
        """``path`` relative to the working directory when inside it, else absolute."""
        base = self.working_dir().resolve(strict=False)
        return str(path.relative_to(base)) if _is_within(path, base) and path != base else str(path)

    def _read_roots(self) -> list[Path]:
        extra = list(self.extra_read_roots() or []) if self.extra_read_roots is not None else []
        if not extra:
            return self._roots(self.read_roots)
        return [*self._roots(self.read_roots), *(resolved for _, resolved in self._prepared("extra", extra))]

    def check_read(self, raw: str) -> Path:
        return self._check(raw, self._read_roots(), "read", "allowed_read_paths")

    def check_write(self, raw: str) -> Path:
        return self._check(raw, self._roots(self.write_roots), "write", "allowed_write_paths")

    def may_read(self, path: Path) -> bool:
        """For entries found while walking a tree: is the (resolved) entry readable under the policy?"""
        try:
            self._check(str(path), self._read_roots(), "read", "allowed_read_paths")
        except (PathDenied, OSError):  # OSError: a symlink loop, which holds nothing to read
            return False
        return True

    def _check(self, raw: str, roots: list[Path], action: str, setting: str) -> Path:
        path = self._absolute(raw)
        shown = raw if str(path) == raw else f"{raw} (resolves to {path})"
        for entry, denied_path in self._prepared("denied", self.denied):
            if _is_within(path, denied_path):
                raise PathDenied(f"Access denied: {shown} is inside the denied path {entry}. It holds secrets, "
                                 "so the filesystem tools never touch it (tool-filesystem denied_paths).")
        if not any(_is_within(path, root) for root in roots):
            allowed = ", ".join(str(root) for root in roots)
            raise PathDenied(f"Access denied: cannot {action} {shown}; it is outside the allowed {action} paths "
                             f"({allowed}). Use a path inside them, or add its directory to tool-filesystem "
                             f"{setting}.")
        return path
