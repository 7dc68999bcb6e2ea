"""tool-bash's use of the kernel sandbox (``amplifier_support.sandbox``): the ``sandbox`` config key, one
confinement per workspace, the start-up warning, the status other modules and the app read, and the one-shot
"run outside the sandbox" the user (never the model) can grant.

Capabilities registered at mount:
- ``sandbox.status() -> dict``: ``mode``, ``confined``, ``required``, ``network``, ``abi``, ``summary`` (one
  line), ``warning`` (a line for the user, or None), ``write_roots``, ``read_only`` (the places inside them the
  namespace keeps read-only);
- ``sandbox.run_unconfined_once(command) -> bool``: the next call of exactly ``command`` runs outside the
  sandbox. The app calls it when the user picks "Run once outside the sandbox" at an approval prompt. A grant
  not used by the call it was given for is dropped at the next bash ``tool:pre``.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from pydantic import Field

from amplifier_core.models import HookResult
from amplifier_support.capability_names import APP_USER_CONFIG_DIR, SESSION_DIR
from amplifier_support.sandbox import WRITABLE_DEVICES, Confinement, confine
from amplifier_support.sandbox import settings as shared

logger = logging.getLogger(__name__)

_warned: set[str] = set()  # one warning per process, however many sessions (sub-agents) mount the tool


class SandboxConfig(shared.SandboxSettings):
    """tool-bash's ``sandbox:`` key: the shared schema (hook-shell reads the same), except that the model's
    commands have no network by default but through the tool's proxy (``network: {allow: []}``)."""

    network: bool | shared.NetworkAllow = Field(default_factory=shared.NetworkAllow)


# The app's own places (capabilities it registers) that a confined command must not be able to change: with
# them inside a write root, a command could save approval rules or `sandbox: off` for later sessions, or rewrite
# the session record it is resumed from. The sandbox keeps them read-only with the project's own protected places
# (a mount namespace); where no namespace can be made, Landlock cannot carve them out, so: a warning.
PROTECTED_PLACES = (
    (APP_USER_CONFIG_DIR, "amplifier's settings (approval rules, sandbox mode)"),
    (SESSION_DIR, "the session records"),
)


def app_places(coordinator: Any) -> dict[str, str]:
    """label -> path of each PROTECTED_PLACES capability the app registered."""
    getter = getattr(coordinator, "get_capability", None)
    places: dict[str, str] = {}
    for capability, label in PROTECTED_PLACES:
        try:
            value = getter(capability) if callable(getter) else None
        except Exception:  # a coordinator without capabilities
            value = None
        if isinstance(value, str) and value:
            places[label] = value
    return places


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class ToolSandbox:
    """The confinement of the tool's commands (resolved per workspace, cached) and the user's one-shot grants."""

    def __init__(self, config: SandboxConfig, places: dict[str, str] | None = None) -> None:
        self.config = config
        self.policy = config.policy()
        self._confinements: dict[tuple[str, tuple[tuple[str, str], ...]], Confinement] = {}
        self._unconfined_once: set[str] = set()
        self.places = dict(places or {})  # label -> absolute path of the app's own places (PROTECTED_PLACES)

    def tidy(self, workspace: str, wait: float = 0.0) -> None:
        """Remove the stand-ins of missing protected places that no command holds (see Confinement.tidy)."""
        self.for_workspace(workspace).tidy(wait)

    def exposed(self, workspace: str) -> str | None:
        """A warning when a confined command could write one of the app's own places, else None."""
        confinement = self.for_workspace(workspace)
        if not confinement.confined:
            return None
        roots = [path for path in confinement.writable if path not in WRITABLE_DEVICES]
        found = []
        for label, place in self.places.items():
            real = os.path.realpath(place)
            root = next((root for root in roots if _inside(real, root)), None)
            if root is not None and not (confinement.namespace and real in confinement.read_only):
                found.append(f"{real} ({label}, inside the write root {root})")
        if not found:
            return None
        return ("sandbox: shell commands can write " + "; ".join(found) + ": a command could change them for "
                "later sessions. Start amplifier from a project directory, or set AMPLIFIER_HOME outside the "
                "write roots.")

    def warning(self, workspace: str) -> str | None:
        lines = [line for line in (self.for_workspace(workspace).warning(), self.exposed(workspace)) if line]
        return " ".join(lines) or None

    def for_workspace(self, workspace: str) -> Confinement:
        """The confinement of ``workspace``: the project's protected places and the app's own places (``places``)
        read-only for commands where a namespace can be made."""
        key = (workspace, tuple(sorted(self.places.items())))
        confinement = self._confinements.get(key)
        if confinement is None:
            protect = [(path, label) for label, path in self.places.items()]
            confinement = self._confinements[key] = confine(self.policy, os.path.abspath(workspace),
                                                            protect=protect)
        return confinement

    def warn_once(self, workspace: str) -> str | None:
        """Log the start-up warning (off, or less than asked) once per process; returns it."""
        warning = self.warning(workspace)
        if warning and warning not in _warned:
            _warned.add(warning)
            logger.warning("tool-bash: %s", warning)
        return warning

    def status(self, workspace: str) -> dict[str, Any]:
        confinement = self.for_workspace(workspace)
        return {
            "mode": self.policy.mode, "confined": confinement.confined, "required": self.policy.required,
            "network": self.policy.network, "abi": confinement.support.abi, "summary": confinement.describe(),
            "warning": self.warning(workspace), "write_roots": [path for path in confinement.writable
                                                              if path not in WRITABLE_DEVICES],
            "read_only": list(confinement.read_only) if confinement.namespace else [],
        }

    def grant_unconfined_once(self, command: str) -> bool:
        if not isinstance(command, str) or not command.strip():
            return False
        self._unconfined_once.add(command)
        return True

    def take_unconfined_grant(self, command: str) -> bool:
        if command in self._unconfined_once:
            self._unconfined_once.discard(command)
            return True
        return False

    async def drop_stale_grants(self, event: str, data: dict[str, Any]) -> HookResult:
        """``tool:pre`` of the bash tool, before approval hooks: a grant belongs to the call it was given for."""
        if data.get("tool_name") == "bash":
            self._unconfined_once.clear()
        return HookResult()
