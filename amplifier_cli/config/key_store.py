"""The user's key store: `keys.env` (0600) in the user config dir, `NAME="value"` lines as upstream's
`~/.amplifier/keys.env`. `provider use` / `init` save a key here when the user asks, and settings name it as
`${NAME}`; sessions load it into the environment for names the environment does not already set. Keys are
never written into settings files (and never into a project's). MCP servers' OAuth tokens are kept here too
(mcp_oauth_store.py), under names that are never loaded into the environment."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .paths import AmplifierPaths

KEY_STORE_NAME = "keys.env"
_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")
_ESCAPED = re.compile(r'\\(["\\])')
PRIVATE_PREFIX = "AMPLIFIER_MCP_OAUTH_"  # records kept here that are not environment variables (OAuth tokens)
HEADER = "# API keys saved by `amplifier provider use` / `amplifier init` (this file is readable only by you).\n"


def key_store_path(paths: AmplifierPaths) -> Path:
    return paths.config_dir / KEY_STORE_NAME


def read_key_store(paths: AmplifierPaths) -> dict[str, str]:
    path = key_store_path(paths)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    keys: dict[str, str] = {}
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match:
            value = match.group(2)
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = _ESCAPED.sub(r"\1", value[1:-1])  # what _write_keys escaped
            elif len(value) >= 2 and value[0] == value[-1] == "'":
                value = value[1:-1]
            keys[match.group(1)] = value.strip()
    return keys


def load_key_store(paths: AmplifierPaths) -> list[str]:
    """Put stored keys into os.environ where the name is unset; returns the names loaded."""
    loaded = []
    for name, value in read_key_store(paths).items():
        if value and not os.environ.get(name) and not name.startswith(PRIVATE_PREFIX):
            os.environ[name] = value
            loaded.append(name)
    return loaded


@contextmanager
def _exclusive(paths: AmplifierPaths) -> Iterator[None]:
    """One writer at a time across processes (sessions refreshing MCP tokens side by side), where the OS has
    advisory locks; elsewhere writes are still atomic, only a concurrent update may be lost."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    lock = key_store_path(paths).with_name(f".{KEY_STORE_NAME}.lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def save_key(paths: AmplifierPaths, name: str, value: str) -> Path:
    """Write (or replace) one key, the file created 0600 before any byte of a key is in it."""
    with _exclusive(paths):
        keys = read_key_store(paths)
        keys[name] = value.strip()
        return _write_keys(paths, keys)


def delete_keys(paths: AmplifierPaths, names: list[str]) -> int:
    """Remove the named keys; returns how many were there."""
    with _exclusive(paths):
        keys = read_key_store(paths)
        gone = [name for name in names if name in keys]
        if gone:
            _write_keys(paths, {name: value for name, value in keys.items() if name not in gone})
        return len(gone)


def _write_keys(paths: AmplifierPaths, keys: dict[str, str]) -> Path:
    path = key_store_path(paths)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{KEY_STORE_NAME}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(HEADER)
        for key, item in keys.items():
            escaped = item.replace("\\", "\\\\").replace('"', '\\"')
            handle.write(f'{key}="{escaped}"\n')
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)
    return path
