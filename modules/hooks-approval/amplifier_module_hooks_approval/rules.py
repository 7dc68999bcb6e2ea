"""Approval rules and how a tool call is judged against them.

A rule names a tool (glob), optionally argument patterns, and an action (allow, ask, deny). For shell tools
the line is split into every simple command it would run and each command is judged on its own, so an
allowed prefix (`git status; rm -rf ~`) cannot carry a command nobody approved.

Patterns: `re:REGEX` is searched; a pattern with `*`, `?` or `[` is a glob over the whole value; anything
else must equal the value (whitespace runs count as one space).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from amplifier_support.shell_split import ShellCommand, dynamic_command_word, parse_commands

Action = Literal["allow", "ask", "deny"]
_STRENGTH = {"allow": 0, "ask": 1, "deny": 2}
_GLOB_CHARS = frozenset("*?[")
_OUTPUT_REDIRECT = re.compile(r"^\d*(>|>>|&>|&>>|>&|>\|)$")


class Rule(BaseModel):
    """One approval rule, as written in config `rules` or saved under settings `approval.rules`."""

    model_config = ConfigDict(extra="forbid")

    tool: str = "*"
    action: Action = "allow"
    command: list[str] | None = None  # shell tools: patterns for each simple command (any may match)
    args: dict[str, list[str]] | None = None  # argument name -> patterns (any may match); all names must match
    reason: str | None = None

    @field_validator("command", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("args", mode="before")
    @classmethod
    def _arg_patterns(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: [item] if isinstance(item, str) else item for key, item in value.items()}
        return value

    def as_dict(self) -> dict[str, Any]:
        """The compact form saved to settings (single patterns unwrapped, defaults left out)."""
        data: dict[str, Any] = {"tool": self.tool}
        if self.command is not None:
            data["command"] = self.command[0] if len(self.command) == 1 else list(self.command)
        if self.args is not None:
            data["args"] = {key: items[0] if len(items) == 1 else list(items) for key, items in self.args.items()}
        data["action"] = self.action
        if self.reason:
            data["reason"] = self.reason
        return data


def _collapse(text: str) -> str:
    return " ".join(text.split())


def pattern_matches(pattern: str, value: str) -> bool:
    if pattern.startswith("re:"):
        try:
            return re.search(pattern[3:], value) is not None
        except re.error:
            return False
    if _GLOB_CHARS & set(pattern):
        return fnmatch.fnmatchcase(value, pattern)
    return _collapse(pattern) == _collapse(value)


def _command_views(command: ShellCommand) -> tuple[str, str]:
    """The command as written and as its unquoted words; a pattern may match either."""
    return _collapse(command.text), " ".join(command.words)


def _command_matches(patterns: list[str], command: ShellCommand) -> bool:
    views = _command_views(command)
    return any(pattern_matches(pattern, view) for pattern in patterns for view in views)


def _args_match(rule: Rule, tool_input: dict[str, Any], skip: str | None = None) -> bool:
    for name, patterns in (rule.args or {}).items():
        if name == skip:
            continue
        value = tool_input.get(name)
        if value is None:
            return False
        text = value if isinstance(value, str) else str(value)
        if not any(pattern_matches(pattern, text) for pattern in patterns):
            return False
    return True


def _strongest(rules: list[Rule]) -> Rule | None:
    return max(rules, key=lambda rule: _STRENGTH[rule.action]) if rules else None


@dataclass
class Verdict:
    """What to do with one tool call, and why."""

    action: Action
    reason: str
    commands: list[str] = field(default_factory=list)  # shell: every command of the line
    pending: list[str] = field(default_factory=list)  # shell: the commands that made it ask or deny
    dynamic: list[str] = field(default_factory=list)  # shell: pending commands whose name is an expansion
    rule: Rule | None = None


@dataclass
class RuleBook:
    """Everything the hook decides with; `rules` is live (remembered rules are appended to it)."""

    rules: list[Rule]
    ask_tools: list[str]
    default_action: Action
    shell_tools: list[str]
    read_only_commands: list[str]

    def _for_tool(self, tool_name: str) -> list[Rule]:
        return [rule for rule in self.rules if fnmatch.fnmatchcase(tool_name, rule.tool)]

    def fallback(self, tool_name: str) -> Action:
        if any(fnmatch.fnmatchcase(tool_name, pattern) for pattern in self.ask_tools):
            return "ask"
        return self.default_action

    def is_shell(self, tool_name: str) -> bool:
        return any(fnmatch.fnmatchcase(tool_name, pattern) for pattern in self.shell_tools)

    def judge(self, tool_name: str, tool_input: dict[str, Any]) -> Verdict:
        rules = self._for_tool(tool_name)
        if self.is_shell(tool_name) and isinstance(tool_input.get("command"), str):
            return self._judge_shell(tool_name, tool_input, rules)
        matched = _strongest([rule for rule in rules if rule.command is None and _args_match(rule, tool_input)])
        if matched is not None:
            return Verdict(matched.action, matched.reason or f"rule for {matched.tool}", rule=matched)
        action = self.fallback(tool_name)
        return Verdict(action, f"{tool_name} " + ("needs approval" if action == "ask" else f"is {action}ed"))

    def _is_read_only(self, command: ShellCommand) -> bool:
        if any(_OUTPUT_REDIRECT.match(word) for word in command.words):
            return False
        for entry in self.read_only_commands:
            words = entry.split()
            if words and command.words[: len(words)] == words:
                return True
        return False

    def _judge_shell(self, tool_name: str, tool_input: dict[str, Any], rules: list[Rule]) -> Verdict:
        line = tool_input["command"]
        commands = parse_commands(line)
        texts = [_collapse(command.text) for command in commands]
        fallback = self.fallback(tool_name)
        if not commands:
            return Verdict(fallback, "empty command", commands=texts)
        verdicts: list[tuple[str, Action, Rule | None]] = []
        dynamic: list[str] = []
        for command, text in zip(commands, texts, strict=True):
            if command.too_deep:
                verdicts.append((text, "ask", None))
                continue
            matching = [
                rule for rule in rules
                if (rule.command is None or _command_matches(rule.command, command))
                and _args_match(rule, tool_input, skip="command")
            ]
            rule = _strongest(matching)
            if dynamic_command_word(command.words) is not None:
                # What runs is known only at run time (`s=sudo; $s -n true`): a deny rule still denies, but
                # no allow rule (nor the read-only list) can vouch for it, so it is asked for.
                dynamic.append(text)
                denying = rule if rule is not None and rule.action == "deny" else None
                verdicts.append((text, "deny" if denying else "ask", denying))
            elif rule is not None:
                verdicts.append((text, rule.action, rule))
            elif fallback != "allow" and self._is_read_only(command):
                verdicts.append((text, "allow", None))
            else:
                verdicts.append((text, fallback, None))
        denied = [(text, rule) for text, action, rule in verdicts if action == "deny"]
        if denied:
            text, rule = denied[0]
            why = (rule.reason if rule and rule.reason else None) or f"a rule denies `{text}`"
            return Verdict("deny", why, commands=texts, pending=[t for t, _ in denied], rule=rule)
        asking = [text for text, action, _ in verdicts if action == "ask"]
        if asking:
            reason = "not covered by an allow rule: " + "; ".join(asking)
            if dynamic:
                reason = ("the command name comes from an expansion, so no rule can allow it: " + "; ".join(dynamic)
                          + ("" if len(dynamic) == len(asking) else
                             "; not covered by an allow rule: " + "; ".join(t for t in asking if t not in dynamic)))
            return Verdict("ask", reason, commands=texts, pending=asking, dynamic=dynamic)
        return Verdict("allow", "every command is allowed", commands=texts)


def literal_pattern(value: str) -> str:
    """A pattern that matches exactly ``value`` (escaped when it holds glob characters or looks like a regex)."""
    if value.startswith("re:") or _GLOB_CHARS & set(value):
        return "re:^" + re.escape(_collapse(value)) + "$"
    return _collapse(value)


def remembered_rule(tool_name: str, tool_input: dict[str, Any], verdict: Verdict, shell: bool,
                    path_args: list[str]) -> Rule:
    """The narrowest rule that would have allowed this call: the exact commands that needed approval, the
    exact path for file tools, else the tool itself."""
    if shell and verdict.pending:
        # Dynamic commands are left out: no allow rule can cover them, so saving one would only mislead.
        pending = [text for text in verdict.pending if text not in verdict.dynamic] or verdict.pending
        return Rule(tool=tool_name, command=[literal_pattern(text) for text in dict.fromkeys(pending)],
                    action="allow")
    for name in path_args:
        value = tool_input.get(name)
        if isinstance(value, str) and value:
            return Rule(tool=tool_name, args={name: [literal_pattern(value)]}, action="allow")
    return Rule(tool=tool_name, action="allow")
