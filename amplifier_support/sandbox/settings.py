"""The ``sandbox:`` key as every module that runs commands reads it (tool-bash, hook-shell), so a profile,
``--sandbox`` and each module's config mean the same thing everywhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, model_validator

from amplifier_core.module_config import ModuleConfig

from ..capability_names import SESSION_SANDBOX
from ..sandbox_modes import DEFAULT_MODE, SandboxMode, normalize_sandbox_value
from .policy import SandboxPolicy

__all__ = [
    "NetworkAllow",
    "SandboxSettings",
    "config_under_session_sandbox",
    "normalize_sandbox_value",
    "session_sandbox",
    "under_session_sandbox",
]


class NetworkAllow(ModuleConfig):
    """``network: {allow: [HOST, ...]}``: no network but through the caller's proxy, which lets these hosts
    (names, IP addresses, globs such as ``*.pypi.org``) through and asks about the others."""

    allow: list[str] = Field(default_factory=list)


class SandboxSettings(ModuleConfig):
    """``sandbox:``: a mode string, or ``{mode, write_roots, network, required}``; ``network`` is true (any
    host), false (none) or ``{allow: [...]}`` (through a proxy)."""

    mode: SandboxMode = DEFAULT_MODE
    write_roots: list[str] = Field(default_factory=list)
    network: bool | NetworkAllow = True
    required: bool = False

    @property
    def allowed_hosts(self) -> list[str]:
        return list(self.network.allow) if isinstance(self.network, NetworkAllow) else []

    @model_validator(mode="before")
    @classmethod
    def _mode_shorthand(cls, value: Any) -> Any:
        return normalize_sandbox_value(value)

    def policy(self) -> SandboxPolicy:
        proxied = isinstance(self.network, NetworkAllow)
        return SandboxPolicy(mode=self.mode, write_roots=tuple(self.write_roots),
                             network=self.network is True, required=self.required, proxied=proxied)


def session_sandbox(defaults: Any = None, mode: str | None = None) -> dict[str, Any]:
    """The session's sandbox, as the app registers it (capability ``session.sandbox``): the profile's
    ``sandbox:`` as defaults, and the mode ``--sandbox`` forces (None: none forced)."""
    normalized = normalize_sandbox_value(defaults)
    return {"defaults": dict(normalized) if isinstance(normalized, dict) else {}, "mode": mode}


def under_session_sandbox(own: Any, session: Any) -> Any:
    """A confined module's ``sandbox:`` value with the session's applied: the profile's defaults under the
    module's own keys, then ``--sandbox``'s mode over both. ``own`` comes back as it was when the session sets
    nothing (so the schema still judges a bad value, with the module's key path)."""
    if not isinstance(session, Mapping):
        return own
    given = session.get("defaults")
    defaults: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    forced = session.get("mode")
    if not defaults and not isinstance(forced, str):
        return own
    normalized = normalize_sandbox_value(own)
    if normalized is not None and not isinstance(normalized, dict):
        return own  # not a mode nor a mapping: left for the schema's error
    merged = {**defaults, **(normalized or {})}
    return {**merged, "mode": forced} if isinstance(forced, str) else merged


def config_under_session_sandbox(config: dict[str, Any] | None, coordinator: Any) -> dict[str, Any] | None:
    """A confined module's mount config with the session's sandbox (capability ``session.sandbox``) applied to
    its ``sandbox`` key; the config itself when the session sets nothing."""
    get_capability = getattr(coordinator, "get_capability", None)
    session = get_capability(SESSION_SANDBOX) if callable(get_capability) else None
    own = (config or {}).get("sandbox")
    value = under_session_sandbox(own, session)
    return config if value is own else {**(config or {}), "sandbox": value}
