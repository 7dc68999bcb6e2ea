"""The module's own config (the ``config:`` of its entry in a profile), parsed once at mount."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from amplifier_core.module_config import ModuleConfig
from amplifier_core.utils.sandbox.settings import SandboxSettings

from .hook_table import DEFAULT_TIMEOUT

# ``sandbox:``: the same schema as tool-bash's (the kernel's), so ``--sandbox`` and a profile set both alike.
HookSandboxConfig = SandboxSettings


class HookShellConfig(ModuleConfig):
    hooks: dict[str, Any] = Field(default_factory=dict)
    """Hooks in the hooks.json format (event name -> matcher groups), run after those of the files."""
    project_hooks: bool = True
    """Read the project's ``.amplifier/hooks/hooks.json`` and ``.amplifier/hooks/*/hooks.json``."""
    user_hooks: bool = True
    """Read ``hooks/hooks.json`` in the user's config dir (capability ``app.user_config_dir``)."""
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0)
    """Seconds a hook may run when its entry gives no ``timeout``."""
    pass_env: list[str] = Field(default_factory=list)
    """Names (or globs) of credential-like environment variables hooks may see anyway."""
    sandbox: HookSandboxConfig = Field(default_factory=HookSandboxConfig)
    """OS sandbox of hook processes (Landlock + no_new_privs): by default they write only in the project, the
    temp dir and ``write_roots``."""
    priority: int = -20
    """Hook priority: before hooks-approval (-10), so a blocking hook stops a call before anyone is asked and a
    changed input is what approval rules judge."""
