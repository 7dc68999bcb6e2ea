"""What an MCP server is (how to start or reach it) and where the definitions come from.

Definitions are merged by name, later wins: upstream Amplifier's user file ``~/.amplifier/mcp.json``, the
user's ``mcp.json`` in the config dir, the project's ``.amplifier/mcp.json``, the project's ``.mcp.json`` (the
``{"mcpServers": {...}}`` shape other agents use), the file ``$AMPLIFIER_MCP_CONFIG`` names (upstream's override),
then the module's ``servers:`` config. Files may carry keys other agents use and we do not (ignored);
the module config rejects unknown keys like every module config does, but takes upstream's spellings too
(``transport`` for ``type``, ``streamablehttp``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from amplifier_core.module_config import ModuleConfigError, describe_config_errors
from amplifier_support.mcp_scopes import (  # the scopes and file reading the app's `amplifier mcp` shares
    CONFIG_FILE_VARIABLE,
    SERVER_NAME,
    SERVERS_KEYS,
    UPSTREAM_USER_FILE,
    McpFileError,
    read_servers_document,
    scope_files,
)

__all__ = ["CONFIG_FILE_VARIABLE", "SERVERS_KEYS", "SERVER_NAME", "UPSTREAM_USER_FILE"]


def _scalars_as_text(value: Any) -> Any:
    def text(item: Any) -> Any:
        if isinstance(item, bool):
            return "true" if item else "false"
        return str(item) if isinstance(item, (int, float)) else item

    if isinstance(value, list):
        return [text(item) for item in value]
    if isinstance(value, dict):
        return {key: text(item) for key, item in value.items()}
    return value


class OAuthOptions(BaseModel):
    """How an HTTP server's OAuth login is made, when its authorization server does not take dynamic registration
    (a client id and secret the provider gave you) or wants a fixed redirect port or a scope."""

    model_config = ConfigDict(extra="forbid")

    client_id: str | None = None
    client_secret: str | None = None
    scope: str | None = None
    callback_port: int | None = Field(default=None, ge=1, le=65535)


class ServerSpec(BaseModel):
    """One server: ``command`` (stdio) or ``url`` (Streamable HTTP, or the older HTTP+SSE)."""

    model_config = ConfigDict(extra="ignore")

    type: Literal["stdio", "http", "streamable-http", "streamable_http", "streamablehttp", "sse"] | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    disabled: bool = False
    startup_timeout: float | None = Field(default=None, gt=0)
    timeout: float | None = Field(default=None, gt=0)  # seconds one request may take
    oauth: OAuthOptions | bool = True  # HTTP: log in when the server answers 401; false: never

    @model_validator(mode="before")
    @classmethod
    def _upstream_transport_key(cls, value: Any) -> Any:
        """Upstream configs spell ``type`` as ``transport`` (``transport: stdio``); numbers and booleans in
        ``args``, ``env`` and ``headers`` (``"PORT": 8080`` in YAML) are the strings a process or request gets."""
        if not isinstance(value, dict):
            return value
        value = {key: _scalars_as_text(item) if key in ("args", "env", "headers") else item
                 for key, item in value.items()}
        if "transport" not in value:
            return value
        transport = value.pop("transport")
        if "type" in value and value["type"] != transport:
            raise ValueError(f"'transport' ({transport!r}) and 'type' ({value['type']!r}) disagree; keep one")
        value["type"] = transport
        return value

    @model_validator(mode="after")
    def _one_transport(self) -> ServerSpec:
        if self.disabled:
            return self  # `{"disabled": true}` alone switches off a server a lower file defines
        if bool(self.command) == bool(self.url):
            raise ValueError("give either 'command' (a stdio server) or 'url' (an HTTP server), not both or neither")
        if self.command and self.type not in (None, "stdio"):
            raise ValueError(f"type '{self.type}' needs a 'url', not a 'command'")
        if self.url and self.type == "stdio":
            raise ValueError("type 'stdio' needs a 'command', not a 'url'")
        if self.command and isinstance(self.oauth, OAuthOptions):
            raise ValueError("'oauth' is for HTTP servers (a 'url'), not a 'command'")
        return self

    @property
    def transport(self) -> Literal["stdio", "http", "sse", "auto"]:
        """``auto``: a url without a type tries Streamable HTTP first, then the older HTTP+SSE."""
        if self.command:
            return "stdio"
        if self.type == "sse":
            return "sse"
        return "http" if self.type else "auto"

    @property
    def oauth_options(self) -> OAuthOptions | None:
        """None where no OAuth login happens: a stdio server, ``oauth: false``, or an ``Authorization`` header
        (the user's own token)."""
        if not self.url or self.oauth is False or any(key.lower() == "authorization" for key in self.headers):
            return None
        return self.oauth if isinstance(self.oauth, OAuthOptions) else OAuthOptions()


class StrictServerSpec(ServerSpec):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class ServerDefinition:
    name: str
    spec: ServerSpec
    origin: str  # the file it came from, or "module config"


def server_files(config_dir: Path | None, project_root: Path | None, *, home: Path | None = None,
                 config_file: str | None = None) -> list[Path]:
    """The files read, lowest precedence first. ``home``: where upstream's ``~/.amplifier/mcp.json`` is looked
    for; ``config_file``: the value of ``$AMPLIFIER_MCP_CONFIG``."""
    return [path for _scope, path in scope_files(home=home, config_dir=config_dir, project_root=project_root,
                                                 config_file=config_file)]


def _unknown_keys_hint(body: Any) -> str:
    """`; unknown key 'comand' (did you mean 'command'?)` for keys a server entry holds that no server has."""
    import difflib

    if not isinstance(body, dict):
        return ""
    known = [*ServerSpec.model_fields, "transport"]
    hints = []
    for unknown in (key for key in body if key not in known):
        close = difflib.get_close_matches(str(unknown), known, n=1)
        hints.append(f"unknown key '{unknown}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
    return ("; " + ", ".join(hints)) if hints else ""


def _problem(origin: str, key_path: str, what: str, fix: str) -> ModuleConfigError:
    return ModuleConfigError(f"{origin}: '{key_path}': {what}; {fix}")


def parse_servers(raw: Any, origin: str, key: str, *, strict: bool,
                  warn: Callable[[str], None] | None = None) -> dict[str, ServerDefinition]:
    """The servers of one mapping. With ``warn``, a broken entry is a warning (with the unknown keys it holds and
    the closest known one) and is skipped; without it, an error."""
    if not isinstance(raw, dict):
        raise _problem(origin, key, f"must be a mapping of server name to server, got {type(raw).__name__}",
                       'write {"NAME": {"command": "...", "args": [...]}}')
    model = StrictServerSpec if strict else ServerSpec
    found: dict[str, ServerDefinition] = {}
    for name, body in raw.items():
        if not isinstance(name, str) or not SERVER_NAME.match(name):
            raise _problem(origin, f"{key}.{name}", "server names use letters, digits, '-' and '_'",
                           "rename the server")
        try:
            spec = model.model_validate(body if body is not None else {})
        except ValidationError as error:
            detail = describe_config_errors(f"{origin}: '{key}.{name}'", model, error)
            detail += _unknown_keys_hint(body)
            if warn is None:
                raise ModuleConfigError(detail + "; see the tool-mcp README for the server fields") from None
            warn(f"MCP server '{name}' skipped: {detail}; fix the entry (see the tool-mcp README for the server "
                 "fields)")
            continue
        found[name] = ServerDefinition(name, spec, origin)
    return found


def read_server_file(path: Path, warn: Callable[[str], None] | None = None) -> dict[str, ServerDefinition]:
    """Servers of one JSON file; a missing file has none, a broken one is an error naming the file."""
    try:
        document, key = read_servers_document(path)
    except McpFileError as error:
        if error.part == "(json)":
            raise ModuleConfigError(f"{path}: line {error.line} column {error.column}: {error.message}; fix the JSON"
                                    ) from None
        raise _problem(str(path), error.part, error.message, error.fix) from None
    if key not in document:
        return {}
    return parse_servers(document[key], str(path), key, strict=False, warn=warn)


def merged_servers(
    files: list[Path], module_servers: dict[str, Any] | None, warn: Callable[[str], None] | None = None
) -> dict[str, ServerDefinition]:
    """All definitions, later wins by name; disabled servers are dropped last (so a later file can disable).

    With ``warn``, a broken file or server entry is one warning naming the file, key and fix, and the others
    still load (a typo in a project's .mcp.json must not stop the session); without it, it is an error. The
    module's own ``servers`` config is always an error: it is part of the profile, which is checked as a whole."""
    merged: dict[str, ServerDefinition] = {}
    for path in files:
        if warn is None:
            merged.update(read_server_file(path))
            continue
        try:
            merged.update(read_server_file(path, warn))
        except ModuleConfigError as error:
            warn(f"MCP servers file skipped: {error}")
    if module_servers:
        merged.update(parse_servers(module_servers, "tool-mcp config", "servers", strict=True))
    return {name: definition for name, definition in merged.items() if not definition.spec.disabled}
