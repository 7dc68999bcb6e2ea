"""Where MCP server definitions live, by scope, and how one file is read: shared by tool-mcp (which merges them
for a session) and the app's `amplifier mcp` commands (which list and edit them), so the two cannot disagree.

Scopes, lowest precedence first (later wins by server name): ``upstream`` (upstream Amplifier's
``~/.amplifier/mcp.json``), ``user`` (``<config dir>/mcp.json``), ``project`` (``.amplifier/mcp.json``), ``shared``
(``.mcp.json``, the file other agents read too) and ``env`` (the file ``$AMPLIFIER_MCP_CONFIG`` names). A file that
two scopes name (the project is the home directory) is read once, at its later place.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .protected_paths import is_stand_in

McpScope = Literal["upstream", "user", "project", "shared", "env"]
SCOPES: tuple[McpScope, ...] = ("upstream", "user", "project", "shared", "env")
CONFIG_FILE_VARIABLE = "AMPLIFIER_MCP_CONFIG"
"""Upstream's variable naming one more mcp.json, read after the project's files."""
PROJECT_DIR_NAME = ".amplifier"
UPSTREAM_USER_FILE = Path(PROJECT_DIR_NAME) / "mcp.json"
"""Upstream Amplifier's user file, relative to the home directory."""
SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
SERVERS_KEYS = ("mcpServers", "servers")


def scope_file(scope: McpScope, *, home: Path | None, config_dir: Path | None, project_root: Path | None,
               config_file: str | None) -> Path | None:
    """The file of one scope, or None when this invocation has no such place (no project, variable unset)."""
    if scope == "upstream":
        return home / UPSTREAM_USER_FILE if home is not None else None
    if scope == "user":
        return config_dir / "mcp.json" if config_dir is not None else None
    if scope == "env":
        return Path(config_file).expanduser() if config_file else None
    if project_root is None:
        return None
    return project_root / PROJECT_DIR_NAME / "mcp.json" if scope == "project" else project_root / ".mcp.json"


def scope_files(*, home: Path | None, config_dir: Path | None, project_root: Path | None,
                config_file: str | None) -> list[tuple[McpScope, Path]]:
    """(scope, file) of every scope this invocation has, lowest precedence first, each file once at its
    highest place."""
    found: list[tuple[McpScope, Path]] = []
    for scope in SCOPES:
        path = scope_file(scope, home=home, config_dir=config_dir, project_root=project_root,
                          config_file=config_file)
        if path is None:
            continue
        found = [(earlier, known) for earlier, known in found if known != path]
        found.append((scope, path))
    return found


@dataclass
class McpFileError(ValueError):
    """A servers file that cannot be used; each reader turns it into its own error type (what, where, fix)."""

    path: Path
    message: str
    fix: str
    part: str = "(file)"  # "(file)": reading it, "(root)": its shape, "(json)": its syntax (see line, column)
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}: line {self.line}" if self.line else str(self.path)
        return f"{where}: {self.message}; {self.fix}"


def read_servers_document(path: Path) -> tuple[dict[str, Any], str]:
    """The JSON object of a servers file (empty when the file is missing or blank) and the key its servers are
    under (`mcpServers`, or `servers`). McpFileError for a file that is not a JSON object. The sandbox's stand-in
    for a missing `.mcp.json` (while a command runs: protected_paths.is_stand_in) reads as no file."""
    if is_stand_in(path):
        return {}, SERVERS_KEYS[0]
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM (Windows editors write one) is not an error
    except FileNotFoundError:
        return {}, SERVERS_KEYS[0]
    except OSError as error:
        raise McpFileError(path, f"cannot be read ({error.strerror or error})", "fix its permissions") from None
    if not text.strip():
        return {}, SERVERS_KEYS[0]
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise McpFileError(path, f"invalid JSON ({error.msg})", "fix the JSON, or remove the file",
                           part="(json)", line=error.lineno, column=error.colno) from None
    if not isinstance(document, dict):
        raise McpFileError(path, "must be a JSON object", 'write {"mcpServers": {...}}', part="(root)")
    return document, next((key for key in SERVERS_KEYS if key in document), SERVERS_KEYS[0])
