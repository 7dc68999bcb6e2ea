"""Git module sources cloned with the real `git` into the cache dir, one directory per url+ref.

A checkout is fetched at most once: a per-key lock file serialises concurrent first fetches (where the
platform has `fcntl`), and the clone is built in a temp dir then renamed into place, so readers never see a
half-made checkout even without the lock. Branch refs (and "default branch") are mutable and refreshed only
by `amplifier module update`; tags and commits never change.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ...config.source_uri import GitSource
from ...errors import ConfigError, RuntimeFailure

METADATA_FILE = ".amplifier-cache.json"


@dataclass(frozen=True)
class CacheEntry:
    key: str
    path: Path
    url: str
    ref: str | None
    ref_kind: str  # branch | tag | commit | default
    commit: str
    module_id: str | None
    fetched_at: float

    @property
    def mutable(self) -> bool:
        return self.ref_kind in ("branch", "default")


class GitCache:
    def __init__(self, root: Path) -> None:
        self.root = root

    @staticmethod
    def key_for(url: str, ref: str | None) -> str:
        return hashlib.sha256(f"{url}@{ref or ''}".encode()).hexdigest()[:16]

    def checkout_dir(self, source: GitSource) -> Path:
        return self.root / self.key_for(source.url, source.ref)

    def ensure(self, source: GitSource, module_id: str | None = None) -> Path:
        """Return the module directory (checkout or its subdirectory), cloning on first use."""
        final = self.checkout_dir(source)
        if not (final / METADATA_FILE).is_file():
            with self._locked(final.name):
                if not (final / METADATA_FILE).is_file():
                    self._install(source, final, module_id)
        target = final / source.subdirectory if source.subdirectory else final
        if not target.is_dir():
            raise ConfigError.single(
                f"subdirectory '{source.subdirectory}' does not exist in {source.url}@{source.ref or 'default'}",
                fix="check the #subdirectory= part of the source",
            )
        return target

    def refresh(self, entry: CacheEntry) -> CacheEntry:
        """Re-fetch a mutable ref and swap it in atomically; returns the new entry."""
        final = entry.path
        with self._locked(final.name):
            source = GitSource(entry.url, entry.ref)
            self._install(source, final, entry.module_id, replace=True)
        return read_entry(final)  # type: ignore[return-value]

    def entries(self) -> list[CacheEntry]:
        if not self.root.is_dir():
            return []
        found = [read_entry(child) for child in sorted(self.root.iterdir()) if child.is_dir()]
        return [entry for entry in found if entry is not None]

    def _install(self, source: GitSource, final: Path, module_id: str | None, *, replace: bool = False) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=self.root))
        try:
            checkout = staging / "checkout"
            _git("clone", "--quiet", "--no-checkout", source.url, str(checkout), source=source)
            commit, kind = _resolve_ref(checkout, source)
            _git("-C", str(checkout), "checkout", "--quiet", "--detach", commit, source=source)
            metadata = {
                "url": source.url,
                "ref": source.ref,
                "ref_kind": kind,
                "commit": commit,
                "module_id": module_id,
                "fetched_at": time.time(),
            }
            (checkout / METADATA_FILE).write_text(json.dumps(metadata, indent=2), encoding="utf-8")
            if replace and final.exists():
                retired = staging / "retired"
                os.replace(final, retired)
            try:
                os.rename(checkout, final)
            except OSError:
                if not (final / METADATA_FILE).is_file():  # a half-made dir, not a rival's finished fetch
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    @contextlib.contextmanager
    def _locked(self, key: str) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            import fcntl
        except ImportError:  # no fcntl (Windows): the atomic rename alone keeps the cache consistent
            yield
            return
        with open(self.root / f".{key}.lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def read_entry(path: Path) -> CacheEntry | None:
    try:
        meta = json.loads((path / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return CacheEntry(
        key=path.name,
        path=path,
        url=meta["url"],
        ref=meta.get("ref"),
        ref_kind=meta.get("ref_kind", "branch"),
        commit=meta.get("commit", ""),
        module_id=meta.get("module_id"),
        fetched_at=float(meta.get("fetched_at", 0)),
    )


def _resolve_ref(checkout: Path, source: GitSource) -> tuple[str, str]:
    """(commit sha, kind) for the requested ref, looking at branches, then tags, then commits."""
    if source.ref is None:
        return _rev_parse(checkout, "HEAD") or "", "default"
    candidates = [
        (f"refs/remotes/origin/{source.ref}", "branch"),
        (f"refs/tags/{source.ref}", "tag"),
        (source.ref, "commit"),
    ]
    for ref, kind in candidates:
        commit = _rev_parse(checkout, f"{ref}^{{commit}}")
        if commit:
            return commit, kind
    raise ConfigError.single(
        f"ref '{source.ref}' not found in {source.url} (not a branch, tag or commit there)",
        fix=f"check the @ref part of git+{source.url}@{source.ref}",
    )


def _rev_parse(checkout: Path, expression: str) -> str | None:
    result = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--verify", "--quiet", expression],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() or None if result.returncode == 0 else None


def _git(*args: str, source: GitSource) -> None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        result = subprocess.run(["git", *args], capture_output=True, text=True, check=False, env=env)
    except FileNotFoundError as exc:
        raise RuntimeFailure("git is not installed or not on PATH; it is needed for git+ module sources") from exc
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise RuntimeFailure(
            f"git {args[0] if args[0] != '-C' else args[2]} failed for {source.uri()}: "
            + (detail[-1] if detail else f"exit status {result.returncode}")
        )
