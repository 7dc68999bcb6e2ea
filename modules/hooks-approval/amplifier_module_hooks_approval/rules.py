"""Approval rules and how a tool call is judged against them.

A rule names a tool (glob), optionally argument patterns, and an action (allow, ask, deny). Shell lines are read
on the shared parse (``amplifier_support.shell``): a deny rule on any command the line could run denies it; a
line with a part that cannot be judged (expansion, substitution, heredoc, function, ``eval`` ...) or that writes
to a protected place (``amplifier_support.protected_paths``) is always asked; otherwise every command must be
allowed by a rule or known to only read, so an allowed prefix (`git status; rm -rf ~`) cannot carry a command
nobody approved.

Patterns: `re:REGEX` is searched; a pattern with `*`, `?` or `[` is a glob over the whole value; anything
else must equal the value (whitespace runs count as one space).
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from amplifier_support.protected_paths import ProtectedPlace, protected_place_of
from amplifier_support.shell import LineReading, Step, judge, read_line, written_paths

Action = Literal["allow", "ask", "deny"]
_STRENGTH = {"allow": 0, "ask": 1, "deny": 2}
_GLOB_CHARS = frozenset("*?[")


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



def tool_spellings(tool_name: str) -> tuple[str, ...]:
    """The names a rule may use for a tool: an MCP tool is ``mcp__server__tool`` here and ``mcp_server_tool``
    in upstream Amplifier, so rules written either way match it."""
    if tool_name.startswith("mcp__") and "__" in tool_name[5:]:
        server, _, tool = tool_name[5:].partition("__")
        return tool_name, f"mcp_{server}_{tool}"
    return (tool_name,)


def tool_matches(tool_name: str, pattern: str) -> bool:
    """Whether a rule's tool pattern (a glob) names this tool, in either MCP spelling."""
    return any(fnmatch.fnmatchcase(name, pattern) for name in tool_spellings(tool_name))

def _step_views(step: Step) -> list[str]:
    """The command as written, as its words and as the words of the command its wrappers run; redirections are
    part of every view, so a rule for ``echo hi`` does not cover ``echo hi > ~/.bashrc``."""
    redirects = [redirect.source for redirect in step.command.redirects] if not step.exec_of else []
    views = [_collapse(step.text), " ".join([*step.words, *redirects])]
    if step.core and step.core != step.words:
        views.append(" ".join([*step.core, *redirects]))
    return views


def _step_matches(patterns: list[str], step: Step) -> bool:
    views = _step_views(step)
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


@dataclass(frozen=True)
class Places:
    """Where paths are resolved for the protected-places check (capabilities ``session.project_dir`` and
    ``session.working_dir``; the process cwd when absent)."""

    project_root: str
    cwd: str

    def protected(self, path: str, cwds: list[str] | None = None) -> ProtectedPlace | None:
        expanded = os.path.expanduser(path)
        for cwd in cwds or [self.cwd]:
            place = protected_place_of(expanded, self.project_root, cwd)
            if place is not None:
                return place
        return None


@dataclass
class Verdict:
    """What to do with one tool call, and why."""

    action: Action
    reason: str
    commands: list[str] = field(default_factory=list)  # shell: every command of the line, as parsed
    pending: list[str] = field(default_factory=list)  # shell: the commands that made it ask or deny
    unjudged: list[str] = field(default_factory=list)  # parts no rule can vouch for, each with why
    protected: list[str] = field(default_factory=list)  # protected places the call writes
    labels: list[str] = field(default_factory=list)  # what the pending commands do
    risk: str = ""  # low / medium / high when the shell judgement knows it
    rule: Rule | None = None

    @property
    def always_ask(self) -> bool:
        """No rule can allow it, "Always allow" is not offered, and without a person it is denied."""
        return self.action == "ask" and bool(self.unjudged or self.protected)


_RISK_ORDER = {"": 0, "low": 1, "medium": 2, "high": 3}


@dataclass
class RuleBook:
    """Everything the hook decides with; `rules` is live (remembered rules are appended to it)."""

    rules: list[Rule]
    ask_tools: list[str]
    default_action: Action
    shell_tools: list[str]
    read_only_commands: list[str]
    path_args: list[str] = field(default_factory=lambda: ["file_path", "path"])
    protected_write_tools: list[str] = field(default_factory=lambda: ["write_file", "edit_file"])

    def _for_tool(self, tool_name: str) -> list[Rule]:
        return [rule for rule in self.rules if tool_matches(tool_name, rule.tool)]

    def fallback(self, tool_name: str) -> Action:
        if any(tool_matches(tool_name, pattern) for pattern in self.ask_tools):
            return "ask"
        return self.default_action

    def is_shell(self, tool_name: str) -> bool:
        return any(tool_matches(tool_name, pattern) for pattern in self.shell_tools)

    def judge(self, tool_name: str, tool_input: dict[str, Any], places: Places | None = None) -> Verdict:
        """Decide one call (parses shell lines: call it off the event loop)."""
        places = places or Places(os.getcwd(), os.getcwd())
        rules = list(self._for_tool(tool_name))
        if self.is_shell(tool_name) and isinstance(tool_input.get("command"), str):
            return self._judge_shell(tool_name, tool_input, rules, places)
        matched = _strongest([rule for rule in rules if rule.command is None and _args_match(rule, tool_input)])
        if matched is not None and matched.action == "deny":
            return Verdict("deny", matched.reason or f"rule for {matched.tool}", rule=matched)
        if any(tool_matches(tool_name, pattern) for pattern in self.protected_write_tools):
            hits = []
            for name in self.path_args:
                value = tool_input.get(name)
                place = places.protected(value) if isinstance(value, str) and value else None
                if place is not None:
                    hits.append(f"{value} ({place.label})")
            if hits:
                return Verdict("ask", "writes to a protected place: " + "; ".join(hits), protected=hits)
        if matched is not None:
            return Verdict(matched.action, matched.reason or f"rule for {matched.tool}", rule=matched)
        action = self.fallback(tool_name)
        return Verdict(action, f"{tool_name} " + ("needs approval" if action == "ask" else f"is {action}ed"))

    def _extra_read_only(self, words: list[str]) -> bool:
        for entry in self.read_only_commands:
            wanted = entry.split()
            if wanted and words[: len(wanted)] == wanted:
                return True
        return False

    def _protected_writes(self, reading: LineReading, places: Places) -> list[str]:
        """Protected places written by a redirection or a known writing command (also after a ``cd``)."""
        cwds = [places.cwd]
        for step in reading.steps:
            if step.core[:1] in (["cd"], ["pushd"]):
                target = step.core[1] if len(step.core) > 1 else "~"
                cwds.append(os.path.join(places.cwd, os.path.expanduser(target)))
        hits: list[str] = []
        targets = [(redirect.target.value or redirect.target.source) for redirect in reading.redirects
                   if redirect.writes and redirect.target is not None]
        for step in reading.steps:
            targets.extend(written_paths(step.core))
        for target in targets:
            place = places.protected(target, cwds)
            if place is not None:
                hits.append(f"{target} ({place.label})")
        return list(dict.fromkeys(hits))

    def _judge_shell(self, tool_name: str, tool_input: dict[str, Any], rules: list[Rule],
                     places: Places) -> Verdict:
        reading = read_line(tool_input["command"], strict=True)
        steps = reading.steps
        texts = list(dict.fromkeys(step.text for step in steps))
        fallback = self.fallback(tool_name)
        applicable = [rule for rule in rules if _args_match(rule, tool_input, skip="command")]
        # 1. a deny rule on any command the line could run denies it, understood or not
        for step in steps:
            rule = _strongest([rule for rule in applicable if rule.command is None or
                               _step_matches(rule.command, step)])
            if rule is not None and rule.action == "deny":
                why = rule.reason or f"a rule denies `{step.text}`"
                return Verdict("deny", why, commands=texts, pending=[step.text], rule=rule)
        # 2. what cannot be judged, and writes to protected places, are always asked
        unjudged = list(dict.fromkeys(item.describe() for item in reading.unjudged))
        protected = self._protected_writes(reading, places)
        if unjudged or protected:
            parts = []
            if unjudged:
                parts.append("could not be judged: " + "; ".join(unjudged))
            if protected:
                parts.append("writes to a protected place: " + "; ".join(protected))
            return Verdict("ask", "; ".join(parts), commands=texts, pending=unjudged + protected,
                           unjudged=unjudged, protected=protected, risk="high",
                           labels=[f"{item}" for item in unjudged[:3]])
        if not steps:
            return Verdict(fallback, "empty command", commands=texts)
        # 3. a plain line: every command is allowed by a rule or known to only read, else asked
        asking: list[str] = []
        labels: list[str] = []
        risk = ""
        granted: Rule | None = None
        for step in steps:
            rule = _strongest([rule for rule in applicable if rule.command is None or
                               _step_matches(rule.command, step)])
            if rule is not None and rule.action == "allow":
                granted = granted or rule
                continue
            if rule is None and not step.core and step.unwrapped.scripts:
                continue  # `sh -c '...'`: its script's commands are judged as steps of their own
            judgement = judge(step.core, step.unwrapped.input_args)
            writes = [redirect.source for redirect in step.command.redirects if redirect.writes]
            read_only = (judgement.read_only or self._extra_read_only(step.core)) and not writes
            if rule is None and read_only and fallback != "allow":
                continue
            action = rule.action if rule is not None else fallback
            if action == "allow":
                continue
            asking.append(step.text)
            label = f"writes {', '.join(writes)}" if writes and judgement.read_only else judgement.label
            labels.append(f"{step.text}: {label}")
            level = "medium" if writes and judgement.read_only else judgement.risk
            risk = level if _RISK_ORDER[level] > _RISK_ORDER[risk] else risk
        if asking:
            return Verdict("ask", "not covered by an allow rule: " + "; ".join(asking), commands=texts,
                           pending=list(dict.fromkeys(asking)), labels=labels, risk=risk)
        return Verdict("allow", "every command is allowed" if granted else "every command only reads",
                       commands=texts, rule=granted)


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
        return Rule(tool=tool_name, command=[literal_pattern(text) for text in dict.fromkeys(verdict.pending)],
                    action="allow")
    for name in path_args:
        value = tool_input.get(name)
        if isinstance(value, str) and value:
            return Rule(tool=tool_name, args={name: [literal_pattern(value)]}, action="allow")
    return Rule(tool=tool_name, action="allow")
