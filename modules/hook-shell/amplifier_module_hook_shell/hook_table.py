"""The hooks format other agents use (``{"hooks": {"PreToolUse": [{"matcher": ..., "hooks": [...]}]}}``), read
into a table of matcher groups per hook event.

Copied configs must keep working, so keys this module has no use for (``description``, ``statusMessage``,
``parallel``) are ignored and hook events or hook types it does not run are warnings, not errors. A value of the
wrong shape or a matcher that is not a regular expression is an error naming the source, the key path and the fix.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

HOOK_EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop",
               "StopFailure", "SubagentStart", "SubagentStop", "SessionStart", "SessionEnd", "PreCompact",
               "PostCompact", "Notification")
"""Hook events this module runs."""

UNSUPPORTED_EVENTS = {
    "TaskCompleted": "use SubagentStop, which runs when a sub-agent (the task tool) finishes",
    "TeammateIdle": "amplifier has no teammates; use Notification with the matcher idle_prompt",
}
"""Events of other agents' configs with no counterpart here -> what to use instead; their hooks are skipped with a
warning."""

HOOK_TYPES = ("command", "http")

DEFAULT_TIMEOUT = 30.0


class HookConfigError(ValueError):
    """A hooks document has a value of the wrong shape; the message names the source, key path and fix."""


@dataclass(frozen=True)
class CommandHook:
    """One ``{"type": "command"}`` entry."""

    command: str
    timeout: float
    source: str
    """Where it was configured (a file path, or ``hook-shell config``), for warnings the user reads."""
    plugin_root: str | None = None
    """The folder of the hooks.json it came from: ``$CLAUDE_PLUGIN_ROOT`` / ``$AMPLIFIER_PLUGIN_ROOT`` for it."""

    @property
    def label(self) -> str:
        return self.command


@dataclass(frozen=True)
class HttpHook:
    """One ``{"type": "http"}`` entry: the event JSON is POSTed to ``url``; the response body is read as a command
    hook's stdout."""

    url: str
    timeout: float
    source: str
    headers: tuple[tuple[str, str], ...] = ()
    """Header name -> value; ``$VAR`` / ``${VAR}`` in a value expand only for names in ``allowed_env_vars``."""
    allowed_env_vars: tuple[str, ...] = ()
    plugin_root: str | None = None

    @property
    def label(self) -> str:
        return f"POST {self.url}"


Hook = CommandHook | HttpHook


@dataclass(frozen=True)
class MatcherGroup:
    """Hooks that run when ``matcher`` matches; an empty matcher (or ``*``) matches everything."""

    matcher: str
    pattern: re.Pattern[str] | None
    hooks: tuple[Hook, ...]

    def matches(self, candidates: tuple[str, ...]) -> bool:
        """True when the matcher matches one of ``candidates`` as a whole (``Bash`` is not ``BashOutput``)."""
        if self.pattern is None:
            return True
        return any(self.pattern.fullmatch(candidate) for candidate in candidates)


@dataclass
class HookTable:
    groups: dict[str, list[MatcherGroup]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def extend(self, other: HookTable) -> None:
        for event, groups in other.groups.items():
            self.groups.setdefault(event, []).extend(groups)
        self.warnings.extend(other.warnings)

    def count(self) -> int:
        return sum(len(group.hooks) for groups in self.groups.values() for group in groups)


def _fail(source: str, key_path: str, problem: str, fix: str) -> HookConfigError:
    return HookConfigError(f"{source}: {key_path}: {problem}; {fix}")


def _compile_matcher(value: Any, source: str, key_path: str) -> tuple[str, re.Pattern[str] | None]:
    if value is None:
        return "", None
    if not isinstance(value, str):
        raise _fail(source, key_path, f"must be a string, not {type(value).__name__}",
                    'write a tool name or a regular expression such as "Bash|Write"')
    if value.strip() in ("", "*"):
        return value, None
    try:  # case-insensitive, as upstream Amplifier's hook-shell matches
        return value, re.compile(value, re.IGNORECASE)
    except re.error as error:
        raise _fail(source, key_path, f"{value!r} is not a regular expression ({error})",
                    'write a valid regular expression such as "Bash|Write" or "mcp__.*"') from None


def _parse_timeout(entry: dict[str, Any], source: str, key_path: str, default_timeout: float) -> float:
    timeout = entry.get("timeout", default_timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise _fail(source, f"{key_path}.timeout", f"must be a positive number of seconds, not {timeout!r}",
                    f"write e.g. \"timeout\": {int(DEFAULT_TIMEOUT)} or leave it out")
    return float(timeout)


def _parse_http_hook(entry: dict[str, Any], source: str, key_path: str, timeout: float,
                     plugin_root: str | None) -> HttpHook:
    url = entry.get("url")
    example = 'write e.g. "url": "http://127.0.0.1:8080/hooks"'
    if not isinstance(url, str) or not url.strip():
        raise _fail(source, f"{key_path}.url", "is missing or not a non-empty string", example)
    parsed = urlsplit(url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise _fail(source, f"{key_path}.url", f"{url!r} is not an http:// or https:// URL with a host", example)
    headers = entry.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(name, str) and isinstance(value, str)
                                                for name, value in headers.items()):
        raise _fail(source, f"{key_path}.headers", "must be an object of header names to string values",
                    'write e.g. "headers": {"Authorization": "Bearer $MY_TOKEN"}')
    allowed = entry.get("allowedEnvVars", [])
    if not isinstance(allowed, list) or not all(isinstance(name, str) for name in allowed):
        raise _fail(source, f"{key_path}.allowedEnvVars", "must be a list of variable names",
                    'write e.g. "allowedEnvVars": ["MY_TOKEN"]')
    return HttpHook(url=url.strip(), timeout=timeout, source=source, headers=tuple(headers.items()),
                    allowed_env_vars=tuple(allowed), plugin_root=plugin_root)


def _parse_hook(entry: Any, source: str, key_path: str, default_timeout: float, table: HookTable,
                plugin_root: str | None) -> Hook | None:
    if not isinstance(entry, dict):
        raise _fail(source, key_path, f"must be an object, not {type(entry).__name__}",
                    'write {"type": "command", "command": "..."}')
    hook_type = entry.get("type", "command")
    if hook_type not in HOOK_TYPES:
        table.warnings.append(f"{source}: {key_path}: hook type {hook_type!r} is not supported (only \"command\" "
                              "and \"http\"); this hook is skipped")
        return None
    timeout = _parse_timeout(entry, source, key_path, default_timeout)
    if hook_type == "http":
        return _parse_http_hook(entry, source, key_path, timeout, plugin_root)
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise _fail(source, f"{key_path}.command", "is missing or not a non-empty string",
                    "give the shell command to run, e.g. \"./.amplifier/hooks/check.sh\"")
    return CommandHook(command=command, timeout=timeout, source=source, plugin_root=plugin_root)


def _unknown_event_warning(source: str, event: str) -> str:
    if event in UNSUPPORTED_EVENTS:
        return (f"{source}: hooks.{event}: this event does not exist in amplifier; its hooks are skipped "
                f"({UNSUPPORTED_EVENTS[event]})")
    close = difflib.get_close_matches(event, HOOK_EVENTS, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return (f"{source}: hooks.{event}: unknown hook event{hint}; its hooks are skipped. "
            f"Events: {', '.join(HOOK_EVENTS)}")


def parse_hook_events(hooks: Any, source: str, default_timeout: float = DEFAULT_TIMEOUT,
                      key_prefix: str = "hooks", plugin_root: str | None = None) -> HookTable:
    """Read the value of a ``hooks`` key (event name -> list of matcher groups)."""
    table = HookTable()
    if hooks is None:
        return table
    if not isinstance(hooks, dict):
        raise _fail(source, key_prefix, f"must be an object mapping event names to lists, not {type(hooks).__name__}",
                    'write {"PreToolUse": [{"matcher": "Bash", "hooks": [...]}]}')
    for event, groups in hooks.items():
        event_path = f"{key_prefix}.{event}"
        if event not in HOOK_EVENTS:
            table.warnings.append(_unknown_event_warning(source, str(event)))
            continue
        single = isinstance(groups, dict)
        if single:  # one matcher group without the list around it, as upstream reads it
            groups = [groups]
        if not isinstance(groups, list):
            raise _fail(source, event_path, f"must be a list of matcher groups, not {type(groups).__name__}",
                        'write [{"matcher": "...", "hooks": [{"type": "command", "command": "..."}]}]')
        for index, group in enumerate(groups):
            group_path = event_path if single else f"{event_path}[{index}]"
            if not isinstance(group, dict):
                raise _fail(source, group_path, f"must be an object, not {type(group).__name__}",
                            'write {"matcher": "...", "hooks": [...]}')
            matcher, pattern = _compile_matcher(group.get("matcher"), source, f"{group_path}.matcher")
            entries = group.get("hooks")
            if not isinstance(entries, list):
                raise _fail(source, f"{group_path}.hooks", "is missing or not a list",
                            'write "hooks": [{"type": "command", "command": "..."}]')
            parsed = [_parse_hook(entry, source, f"{group_path}.hooks[{number}]", default_timeout, table, plugin_root)
                      for number, entry in enumerate(entries)]
            commands = tuple(hook for hook in parsed if hook is not None)
            if commands:
                table.groups.setdefault(event, []).append(MatcherGroup(matcher, pattern, commands))
    return table


def parse_hooks_document(document: Any, source: str, default_timeout: float = DEFAULT_TIMEOUT,
                         plugin_root: str | None = None) -> HookTable:
    """Read a whole hooks.json document: an object whose ``hooks`` key holds the events."""
    if not isinstance(document, dict):
        raise _fail(source, "(top level)", f"must be a JSON object, not {type(document).__name__}",
                    'write {"hooks": {"PreToolUse": [...]}}')
    return parse_hook_events(document.get("hooks"), source, default_timeout, plugin_root=plugin_root)
