"""hook-shell: runs user hooks written in Claude Code's hooks.json format (PreToolUse, PermissionRequest,
PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, StopFailure, SubagentStart, SubagentStop, SessionStart,
SessionEnd, PreCompact, PostCompact, Notification) on the matching kernel events. A command hook reads the event as
JSON on stdin and answers with its exit code (0 go on, 2 block, other: a warning) and optionally JSON on stdout; an
http hook gets the same JSON POSTed and answers with its response body.

Capabilities read at mount: ``session.project_dir`` (else ``session.working_dir``, else the process cwd) for
where hooks run and where ``.amplifier/hooks/`` is; ``app.user_config_dir`` for the user's ``hooks/hooks.json``
(upstream's ``~/.amplifier/hooks/`` is read too); ``session.transcript_path`` for the ``transcript_path`` field.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from amplifier_core.module_config import ModuleConfigError, parse_module_config
from amplifier_support.capability_names import (
    APP_USER_CONFIG_DIR,
    SESSION_PROJECT_DIR,
    SESSION_PROJECT_TRUSTED,
    SESSION_TRANSCRIPT_PATH,
    SESSION_WORKING_DIR,
)
from amplifier_support.sandbox import confine
from amplifier_support.sandbox.settings import config_under_session_sandbox

from .config import HookSandboxConfig, HookShellConfig
from .hook_files import hooks_files, load_hooks_file, project_hooks_dir, upstream_user_hooks_dir
from .hook_table import HookConfigError, HookTable, parse_hook_events
from .shell_hooks import HookSite, ShellHooks, show_message

__amplifier_module_type__ = "hook"
__all__ = ["HookSandboxConfig", "HookShellConfig", "ShellHooks", "load_hook_table", "mount"]

MODULE_ID = "hook-shell"
CONFIG_SOURCE = f"{MODULE_ID} config"


def _capability(coordinator: Any, name: str) -> Any:
    getter = getattr(coordinator, "get_capability", None)
    return getter(name) if getter is not None else None


def _home() -> Path | None:
    try:
        return Path.home()
    except RuntimeError:  # no HOME and no password entry: there is no upstream user folder to read
        return None


def project_dir_of(coordinator: Any) -> Path:
    value = _capability(coordinator, SESSION_PROJECT_DIR) or _capability(coordinator, SESSION_WORKING_DIR)
    return Path(value) if value else Path(os.getcwd())


def hook_dirs(config: HookShellConfig, project_dir: Path, user_config_dir: Path | None,
              home: Path | None, project_trusted: bool = True) -> list[Path]:
    """The hooks folders read, in run order; each folder once (the home dir as the project is read as the
    project). The project's own folder only when ``project_trusted``: its hooks are code the project ships."""
    if config.hooks_dirs is not None:
        dirs = [project_dir / Path(entry).expanduser() for entry in config.hooks_dirs]
    else:
        dirs = []
        if config.user_hooks:
            if home is not None:
                dirs.append(upstream_user_hooks_dir(home))
            if user_config_dir is not None:
                dirs.append(user_config_dir / "hooks")
        if config.project_hooks and project_trusted:
            dirs.append(project_hooks_dir(project_dir))
    unique: list[Path] = []
    for folder in dirs:
        if folder in unique:
            unique.remove(folder)
        unique.append(folder)
    return unique


def load_hook_table(config: HookShellConfig, project_dir: Path, user_config_dir: Path | None,
                    home: Path | None = None, project_trusted: bool = True) -> HookTable:
    """All hooks in run order: upstream's user folder, the user's file, the project's files (or ``hooks_dirs``),
    then the module config; only ``enabled_events``, and no timeout over ``max_timeout``. A broken hooks file is a
    warning (in ``table.warnings``) and is skipped; broken module config is an error (the profile's)."""
    table = HookTable()
    files = [path for folder in hook_dirs(config, project_dir, user_config_dir, home, project_trusted)
             for path in hooks_files(folder)]
    for path in files:
        try:
            table.extend(load_hooks_file(path, config.timeout))
        except HookConfigError as error:  # a typo in one hooks file must not stop the session: skip that file
            table.warnings.append(f"hooks file skipped: {error}")
    table.extend(parse_hook_events(config.hooks, CONFIG_SOURCE, config.timeout))
    if config.enabled_events is not None:
        table.groups = {event: groups for event, groups in table.groups.items() if event in config.enabled_events}
    if config.max_timeout is not None:
        cap = config.max_timeout
        table.groups = {event: [dataclasses.replace(group, hooks=tuple(
            dataclasses.replace(hook, timeout=min(hook.timeout, cap)) for hook in group.hooks)) for group in groups]
            for event, groups in table.groups.items()}
    return table


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    config = config_under_session_sandbox(config, coordinator)  # the profile's and --sandbox's
    settings = parse_module_config(HookShellConfig, config, MODULE_ID)
    if not settings.enabled:
        return lambda: None
    project_dir = project_dir_of(coordinator)
    user_dir = _capability(coordinator, APP_USER_CONFIG_DIR)
    try:
        trusted = _capability(coordinator, SESSION_PROJECT_TRUSTED) is True
        table = load_hook_table(settings, project_dir, Path(user_dir) if user_dir else None, _home(), trusted)
    except HookConfigError as error:
        text = str(error)
        raise ModuleConfigError(text if text.startswith(CONFIG_SOURCE) else f"{MODULE_ID}: {text}") from None
    for warning in table.warnings:
        show_message(coordinator, warning, "warning")
    confinement = confine(settings.sandbox.policy(), str(project_dir.resolve()))
    sandbox_warning = confinement.warning()
    if sandbox_warning and table.count():
        show_message(coordinator, f"shell hooks: {sandbox_warning}", "warning")
    transcript = _capability(coordinator, SESSION_TRANSCRIPT_PATH)
    site = HookSite(project_dir=project_dir, hooks_dir=project_hooks_dir(project_dir),
                    pass_env=tuple(settings.pass_env), transcript_path=str(transcript) if transcript else None,
                    confinement=confinement, allow_blocking=settings.allow_blocking,
                    idle_seconds=settings.idle_seconds, network=settings.sandbox.network)
    shell_hooks = ShellHooks(table, site, coordinator)
    unregister = [coordinator.hooks.register(event, shell_hooks.handle, priority=settings.priority, name=MODULE_ID)
                  for event in shell_hooks.kernel_events()]

    def cleanup() -> None:
        for remove in unregister:
            remove()
        shell_hooks.stop_idle_timer()
        shell_hooks.env_file.remove()

    return cleanup
