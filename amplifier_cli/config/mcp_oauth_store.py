"""MCP servers' OAuth tokens and client registrations, kept in the user's 0600 key store (key_store.py), one
record per server name and URL: a server renamed, or a project's server of the same name on another host, never
gets a token that was given for another URL. tool-mcp reads and writes them through the capability
``mcp.oauth_store``; `amplifier mcp logout NAME` forgets them.

A record is stored as ``AMPLIFIER_MCP_OAUTH_<hash>="<base64 JSON>"``: a name no environment variable has (the
key store never loads these into the environment) and a value with no quote or backslash to escape."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from .key_store import PRIVATE_PREFIX, delete_keys, read_key_store, save_key
from .paths import AmplifierPaths


def record_key(server: str, url: str) -> str:
    digest = hashlib.sha256(f"{server}\n{url}".encode()).hexdigest()[:24].upper()
    return f"{PRIVATE_PREFIX}{digest}"


def _decode(value: str) -> dict[str, Any] | None:
    try:
        record = json.loads(base64.urlsafe_b64decode(value.encode("ascii")))
    except (ValueError, UnicodeError):
        return None
    return record if isinstance(record, dict) else None


class McpOAuthStore:
    """The capability ``mcp.oauth_store`` over the key store of ``paths``."""

    def __init__(self, paths: AmplifierPaths) -> None:
        self.paths = paths

    def load(self, server: str, url: str) -> dict[str, Any] | None:
        value = read_key_store(self.paths).get(record_key(server, url))
        return _decode(value) if value else None

    def save(self, server: str, url: str, record: dict[str, Any]) -> None:
        text = json.dumps({**record, "server": server, "url": url}, separators=(",", ":"))
        save_key(self.paths, record_key(server, url), base64.urlsafe_b64encode(text.encode()).decode("ascii"))

    def records(self) -> list[dict[str, Any]]:
        """Every stored record (server, url, tokens, expires_at, client)."""
        found = []
        for name, value in read_key_store(self.paths).items():
            record = _decode(value) if name.startswith(PRIVATE_PREFIX) else None
            if record is not None:
                found.append(record)
        return found

    def forget(self, server: str, url: str | None = None) -> int:
        """Drop the records of ``server`` (of that URL only, when given); returns how many there were."""
        names = [name for name, value in read_key_store(self.paths).items()
                 if name.startswith(PRIVATE_PREFIX) and (record := _decode(value)) is not None
                 and record.get("server") == server and url in (None, record.get("url"))]
        return delete_keys(self.paths, names)


def auth_summary(record: dict[str, Any] | None, now: float) -> str:
    """What `mcp list` and `/mcp` say about a stored login."""
    if not record or not (record.get("tokens") or {}).get("access_token"):
        return "-"  # no login kept (a server that wants one asks at its first use)
    expires_at = record.get("expires_at")
    if isinstance(expires_at, (int, float)) and expires_at < now:
        refreshable = bool((record.get("tokens") or {}).get("refresh_token"))
        return "logged in (token expired; refreshed on use)" if refreshable else "login expired"
    return "logged in"
