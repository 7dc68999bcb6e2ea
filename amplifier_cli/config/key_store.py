"""The user's key store: `keys.env` (0600) in the user config dir, `NAME="value"` lines as upstream's
`~/.amplifier/keys.env`. `provider use` / `init` save a key here when the user asks, and settings name it as
`${NAME}`; sessions load it into the environment for names the environment does not already set. Keys are
never written into settings files (and never into a project's)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from .paths import AmplifierPaths

KEY_STORE_NAME = "keys.env"
_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")
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
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            keys[match.group(1)] = value.strip()
    return keys


def load_key_store(paths: AmplifierPaths) -> list[str]:
    """Put stored keys into os.environ where the name is unset; returns the names loaded."""
    loaded = []
    for name, value in read_key_store(paths).items():
        if value and not os.environ.get(name):
            os.environ[name] = value
            loaded.append(name)
    return loaded


def save_key(paths: AmplifierPaths, name: str, value: str) -> Path:
    """Write (or replace) one key, the file created 0600 before any byte of a key is in it."""
    keys = read_key_store(paths)
    keys[name] = value.strip()
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
