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

HOOK_EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "PreCompact",
               "Notification")
"""Hook events this module runs."""

UNSUPPORTED_EVENTS = {
    "PostToolUseFailure": "PostToolUse hooks run for failed calls too (tool_response.success is false)",
    "PermissionRequest": "use a PreToolUse hook that answers a permissionDecision (allow, deny or ask)",
    "SubagentStart": "sub-agents mount the same hooks: use SessionStart (parent_session_id is set)",
    "SubagentStop": "sub-agents mount the same hooks: use Stop (parent_session_id is set)",
}
"""Events of other agents' configs with no counterpart here -> what to use instead; their hooks are skipped with a
warning."""

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


@dataclass(frozen=True)
class MatcherGroup:
    """Hooks that run when ``matcher`` matches; an empty matcher (or ``*``) matches everything."""

    matcher: str
    pattern: re.Pattern[str] | None
    hooks: tuple[CommandHook, ...]

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


def _parse_hook(entry: Any, source: str, key_path: str, default_timeout: float, table: HookTable,
                plugin_root: str | None) -> CommandHook | None:
    if not isinstance(entry, dict):
        raise _fail(source, key_path, f"must be an object, not {type(entry).__name__}",
                    'write {"type": "command", "command": "..."}')
    hook_type = entry.get("type", "command")
    if hook_type != "command":
        table.warnings.append(f"{source}: {key_path}: hook type {hook_type!r} is not supported (only \"command\"); "
                              "this hook is skipped")
        return None
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise _fail(source, f"{key_path}.command", "is missing or not a non-empty string",
                    "give the shell command to run, e.g. \"./.amplifier/hooks/check.sh\"")
    timeout = entry.get("timeout", default_timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise _fail(source, f"{key_path}.timeout", f"must be a positive number of seconds, not {timeout!r}",
                    f"write e.g. \"timeout\": {int(DEFAULT_TIMEOUT)} or leave it out")
    return CommandHook(command=command, timeout=float(timeout), source=source, plugin_root=plugin_root)


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
