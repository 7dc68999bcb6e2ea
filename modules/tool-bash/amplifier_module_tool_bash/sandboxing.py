"""tool-bash's use of the kernel sandbox (``amplifier_core.utils.sandbox``): the ``sandbox`` config key, one
confinement per workspace, the start-up warning, the status other modules and the app read, and the one-shot
"run outside the sandbox" the user (never the model) can grant.

Capabilities registered at mount:
- ``sandbox.status() -> dict``: ``mode``, ``confined``, ``required``, ``network``, ``abi``, ``summary`` (one
  line), ``warning`` (a line for the user, or None);
- ``sandbox.run_unconfined_once(command) -> bool``: the next call of exactly ``command`` runs outside the
  sandbox. The app calls it when the user picks "Run once outside the sandbox" at an approval prompt. A grant
  not used by the call it was given for is dropped at the next bash ``tool:pre``.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from amplifier_core.models import HookResult
from amplifier_core.utils.sandbox import WRITABLE_DEVICES, Confinement, confine
from amplifier_core.utils.sandbox.settings import SandboxSettings

logger = logging.getLogger(__name__)

STATUS_CAPABILITY = "sandbox.status"
UNCONFINED_ONCE_CAPABILITY = "sandbox.run_unconfined_once"
_warned: set[str] = set()  # one warning per process, however many sessions (sub-agents) mount the tool


# tool-bash's ``sandbox:`` key: the kernel's shared schema (hook-shell reads the same).
SandboxConfig = SandboxSettings


class ToolSandbox:
    """The confinement of the tool's commands (resolved per workspace, cached) and the user's one-shot grants."""

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.policy = config.policy()
        self._confinements: dict[str, Confinement] = {}
        self._unconfined_once: set[str] = set()

    def for_workspace(self, workspace: str) -> Confinement:
        confinement = self._confinements.get(workspace)
        if confinement is None:
            confinement = self._confinements[workspace] = confine(self.policy, os.path.abspath(workspace))
        return confinement

    def warn_once(self, workspace: str) -> str | None:
        """Log the start-up warning (off, or less than asked) once per process; returns it."""
        warning = self.for_workspace(workspace).warning()
        if warning and warning not in _warned:
            _warned.add(warning)
            logger.warning("tool-bash: %s", warning)
        return warning

    def status(self, workspace: str) -> dict[str, Any]:
        confinement = self.for_workspace(workspace)
        return {
            "mode": self.policy.mode, "confined": confinement.confined, "required": self.policy.required,
            "network": self.policy.network, "abi": confinement.support.abi, "summary": confinement.describe(),
            "warning": confinement.warning(), "write_roots": [path for path in confinement.writable
                                                              if path not in WRITABLE_DEVICES],
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
