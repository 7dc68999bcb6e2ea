"""The module's own config (the ``config:`` of its entry in a profile), parsed once at mount."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from amplifier_core.module_config import ModuleConfig
from amplifier_support.sandbox.settings import SandboxSettings

from .hook_table import DEFAULT_TIMEOUT, HOOK_EVENTS

# ``sandbox:``: the same schema as tool-bash's (the kernel's), so ``--sandbox`` and a profile set both alike.
HookSandboxConfig = SandboxSettings


class HookShellConfig(ModuleConfig):
    enabled: bool = True
    """``false``: the module mounts and runs nothing (upstream's switch)."""
    hooks: dict[str, Any] = Field(default_factory=dict)
    """Hooks in the hooks.json format (event name -> matcher groups), run after those of the files."""
    project_hooks: bool = True
    """Read the project's ``.amplifier/hooks/hooks.json`` and ``.amplifier/hooks/*/hooks.json``."""
    user_hooks: bool = True
    """Read ``hooks/hooks.json`` in the user's config dir (capability ``app.user_config_dir``) and upstream's
    ``~/.amplifier/hooks/hooks.json``."""
    allow_project_hooks: bool | None = None
    """Upstream's name for ``project_hooks``."""
    allow_user_hooks: bool | None = None
    """Upstream's name for ``user_hooks``."""
    hooks_dirs: list[str] | None = None
    """Upstream's list of hooks folders (each read like ``.amplifier/hooks``: ``hooks.json`` then
    ``*/hooks.json``), relative to the project dir, ``~`` expanded. Given, it replaces the project and user
    folders; the ``hooks:`` key still adds up."""
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0)
    """Seconds a hook may run when its entry gives no ``timeout``."""
    default_timeout: float | None = Field(default=None, gt=0)
    """Upstream's other name for ``timeout``."""
    max_timeout: float | None = Field(default=None, gt=0)
    """No hook runs longer than this, whatever its entry says."""
    enabled_events: list[str] | None = None
    """Only hooks of these events run (default: all)."""
    allow_blocking: bool = True
    """``false``: a hook that blocks (exit 2, deny, ``continue: false``) is shown as a warning and the session
    goes on, as upstream's switch."""
    fail_open: bool = True
    """Upstream's switch; hooks here always fail open (a failing hook is a warning). ``false`` is refused."""
    verbose_logging: bool = False
    """Accepted from upstream configs; hook runs are logged at debug level either way."""
    pass_env: list[str] = Field(default_factory=list)
    """Names (or globs) of credential-like environment variables hooks may see anyway."""
    sandbox: HookSandboxConfig = Field(default_factory=HookSandboxConfig)
    """OS sandbox of hook processes (Landlock + no_new_privs): by default they write only in the project, the
    temp dir and ``write_roots``."""
    idle_seconds: float = Field(default=60.0, gt=0)
    """After a turn ends, how long nobody may send the next prompt before Notification hooks run with
    ``notification_type: idle_prompt`` (Claude Code waits 60 s too)."""
    priority: int = -20
    """Hook priority: before hooks-approval (-10), so a blocking hook stops a call before anyone is asked and a
    changed input is what approval rules judge."""

    @model_validator(mode="after")
    def _upstream_keys(self) -> HookShellConfig:
        for upstream, ours in (("allow_project_hooks", "project_hooks"), ("allow_user_hooks", "user_hooks")):
            value = getattr(self, upstream)
            if value is None:
                continue
            if ours in self.model_fields_set and getattr(self, ours) != value:
                raise ValueError(f"'{upstream}' (upstream's name) and '{ours}' disagree; keep one")
            setattr(self, ours, value)
        if self.default_timeout is not None:
            if "timeout" in self.model_fields_set and self.timeout != self.default_timeout:
                raise ValueError("'default_timeout' (upstream's name) and 'timeout' disagree; keep one")
            self.timeout = self.default_timeout
        if self.max_timeout is not None:
            self.timeout = min(self.timeout, self.max_timeout)
        if not self.fail_open:
            raise ValueError("'fail_open: false' is not supported: a failing hook is a warning and the session "
                             "goes on; to block, make the hook exit 2 (remove fail_open)")
        unknown = [event for event in self.enabled_events or () if event not in HOOK_EVENTS]
        if unknown:
            raise ValueError(f"'enabled_events' names unknown events {unknown}; events: {', '.join(HOOK_EVENTS)}")
        return self
