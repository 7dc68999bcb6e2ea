"""hooks-approval: gates tool calls on `tool:pre` by rules, and asks the user (through the app's approval
system, via HookResult ask_user) when a rule says ask.

Shell lines are judged on a real parse (`amplifier_support.shell`, shared with tool-bash), off the event loop
and within `judge_timeout`. Rules come from, in this order of strength per call: deny > ask > allow among the
rules that match; with no matching rule a tool in `ask_tools` is asked for and anything else gets
`default_action`. A shell part that cannot be judged, and a write to a protected place
(`amplifier_support.protected_paths`, by a redirection, a writing command or a write tool), is always asked,
never allowed by a rule, offers no "Always allow", and is denied when no person can answer (capability
`approval.interactive` not True).

Capabilities: reads `approval.rules` (saved rules, a list of rule dicts, registered by the app) at mount;
registers `approval.remember(prompt, action="allow") -> dict | None`, which turns the pending request shown
with ``prompt`` into an allow (or deny) rule, adds it to the live rules and returns it so the app can save it
("Always allow"), and
`approval.run_unconfined(prompt) -> bool`, which asks the shell tool (capability
`sandbox.run_unconfined_once`) to run the pending command once outside the OS sandbox ("Run once outside the
sandbox", offered for shell tools while their sandbox is on; only an app that can ask a person calls it).

Before asking, `approval:required` is emitted with the tool call; a handler may decide the request there (hook-shell
does for PermissionRequest hooks): `deny` refuses it, `modify` with `decision: allow` grants it (with its
`tool_input` if changed, which the rules judge again). Nobody is asked then, except that a request that is always
asked (or a changed input that would be) is never granted so.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any, Literal

from pydantic import ValidationError

from amplifier_core import HookResult, events
from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_support.approval_choices import APPROVAL_DECISION_FIELD, ApprovalChoice
from amplifier_support.capability_names import (
    APPROVAL_INTERACTIVE,
    APPROVAL_REMEMBER,
    APPROVAL_RULES,
    APPROVAL_RUN_UNCONFINED,
    SANDBOX_RUN_UNCONFINED_ONCE,
    SANDBOX_STATUS,
    SESSION_PROJECT_DIR,
    SESSION_WORKING_DIR,
)

from .prompt_text import approval_prompt, risk_level
from .rules import Places, Rule, RuleBook, Verdict, remembered_rule

__amplifier_module_type__ = "hook"
__all__ = ["ApprovalConfig", "ApprovalHook", "Rule", "mount"]

logger = logging.getLogger(__name__)

PRIORITY = -10  # before display and logging hooks, after redaction
OPTIONS = [ApprovalChoice.ALLOW_ONCE, ApprovalChoice.ALWAYS_ALLOW, ApprovalChoice.DENY]


class ApprovalConfig(ModuleConfig):
    rules: list[Rule] = []
    ask_tools: list[str] = ["bash", "write_file", "edit_file", "mcp__*"]  # MCP tools: unknown effects, ask
    default_action: Literal["allow", "ask", "deny"] = "allow"
    shell_tools: list[str] = ["bash"]
    read_only_commands: list[str] = []  # extra leading words known to only read (the built-in list is wider)
    path_args: list[str] = ["file_path", "path"]
    protected_write_tools: list[str] = ["write_file", "edit_file"]
    judge_timeout: float = 10.0
    timeout: float = 300.0
    timeout_action: Literal["allow", "deny"] = "deny"
    use_saved_rules: bool = True


class ApprovalHook:
    """The `tool:pre` handler plus the memory of requests waiting for an answer."""

    def __init__(self, config: ApprovalConfig, saved_rules: list[Rule], hooks: Any, coordinator: Any = None) -> None:
        self.config = config
        self.book = RuleBook(
            rules=[*config.rules, *saved_rules],
            ask_tools=config.ask_tools,
            default_action=config.default_action,
            shell_tools=config.shell_tools,
            read_only_commands=config.read_only_commands,
            path_args=config.path_args,
            protected_write_tools=config.protected_write_tools,
        )
        self.hooks = hooks
        self.coordinator = coordinator
        self._pending: dict[str, Rule | None] = {}  # prompt shown -> rule that "Always allow" would save
        self._pending_commands: dict[str, str] = {}  # prompt shown -> the shell line it asks about

    async def on_tool_pre(self, event: str, data: dict[str, Any]) -> HookResult:
        tool_name = str(data.get("tool_name") or "")
        tool_input = data.get("tool_input")
        if not isinstance(tool_input, dict):
            tool_input = {}
        verdict = await self._judge(tool_name, tool_input)
        if verdict.always_ask and not self._interactive():
            reason = (f"{tool_name} denied: nobody can approve it in this run (no interactive approval): "
                      f"{verdict.reason}. Run it in the chat (`amplifier`), where you are asked, or do it another way"
                      " (plain commands of literal words; edit protected files yourself).")
            await self._emit(events.APPROVAL_DENIED, {"tool_name": tool_name, "reason": reason})
            return HookResult(action="deny", reason=reason)
        if verdict.action == "allow":
            if verdict.rule is not None or verdict.pending or self.book.fallback(tool_name) != "allow":
                await self._emit(events.APPROVAL_GRANTED, {"tool_name": tool_name, "reason": verdict.reason})
            return HookResult()
        if verdict.action == "deny":
            reason = f"{tool_name} denied by approval rules: {verdict.reason}"
            await self._emit(events.APPROVAL_DENIED, {"tool_name": tool_name, "reason": reason})
            return HookResult(action="deny", reason=reason)
        return await self._ask(tool_name, tool_input, verdict, data)

    async def _judge(self, tool_name: str, tool_input: dict[str, Any]) -> Verdict:
        """The verdict, computed off the event loop (a shell line is parsed) and within ``judge_timeout``."""
        places = self._places()
        try:
            return await asyncio.wait_for(asyncio.to_thread(self.book.judge, tool_name, tool_input, places),
                                          self.config.judge_timeout)
        except TimeoutError:
            why = f"judging it took longer than {self.config.judge_timeout:g} s"
            return Verdict("ask", f"could not be judged: {why}", unjudged=[why], risk="high")

    def _capability(self, name: str) -> Any:
        return self.coordinator.get_capability(name) if self.coordinator is not None else None

    def _interactive(self) -> bool:
        return self._capability(APPROVAL_INTERACTIVE) is True

    def _places(self) -> Places:
        cwd = self._capability(SESSION_WORKING_DIR)
        root = self._capability(SESSION_PROJECT_DIR)
        cwd = cwd if isinstance(cwd, str) and cwd else os.getcwd()
        return Places(root if isinstance(root, str) and root else cwd, cwd)

    async def _ask(self, tool_name: str, tool_input: dict[str, Any], verdict: Verdict,
                   data: dict[str, Any]) -> HookResult:
        shell = self.book.is_shell(tool_name)
        rule = remembered_rule(tool_name, tool_input, verdict, shell, self.config.path_args)
        risk = verdict.risk or risk_level(tool_name, shell, self.config.ask_tools)
        prompt = approval_prompt(tool_name, tool_input, verdict, risk, rule, shell)
        if prompt in self._pending:  # same request twice (parallel calls): keep the prompts apart
            prompt = f"{prompt}\n(call {data.get('tool_call_id') or len(self._pending)})"
        self._pending[prompt] = None if verdict.always_ask else rule
        choices = list(OPTIONS)
        if verdict.always_ask:
            choices.remove(ApprovalChoice.ALWAYS_ALLOW)  # no rule can allow what cannot be judged or a protected place
        if shell and isinstance(tool_input.get("command"), str) and self._sandbox_on():
            self._pending_commands[prompt] = tool_input["command"]
            choices.append(ApprovalChoice.RUN_UNCONFINED_ONCE)  # last: the riskiest is never the one a habit picks
        answer = await self._emit(events.APPROVAL_REQUIRED, {
            "tool_name": tool_name, "tool_input": tool_input, "tool_call_id": data.get("tool_call_id"),
            "risk_level": risk, "reason": verdict.reason, "commands": verdict.pending,
            "parsed": verdict.commands, "unjudged": verdict.unjudged, "protected": verdict.protected,
            "labels": verdict.labels,
        })
        decided = await self._decided_by_hook(answer, tool_name, verdict, data)
        if decided is not None:
            self._pending.pop(prompt, None)
            self._pending_commands.pop(prompt, None)
            return decided
        return HookResult(
            action="ask_user",
            approval_prompt=prompt,
            approval_options=[choice.label for choice in choices],
            approval_timeout=self.config.timeout,
            approval_default=self.config.timeout_action,
            reason=verdict.reason,
        )

    def _sandbox_on(self) -> bool:
        status = self.coordinator.get_capability(SANDBOX_STATUS) if self.coordinator else None
        try:
            return bool(callable(status) and status().get("confined"))
        except Exception:
            logger.exception("reading %s failed", SANDBOX_STATUS)
            return False

    def run_unconfined(self, prompt: str) -> bool:
        """The user chose to run the pending shell line shown with ``prompt`` once outside the sandbox: hand
        it to the shell tool. False when there is no such request or no tool takes the grant."""
        command = self._pending_commands.pop(prompt, None)
        grant = self.coordinator.get_capability(SANDBOX_RUN_UNCONFINED_ONCE) if self.coordinator else None
        if command is None or not callable(grant):
            return False
        return bool(grant(command))

    def remember(self, prompt: str, action: Literal["allow", "deny"] = "allow") -> dict[str, Any] | None:
        """Make the request shown with ``prompt`` an allow rule (or, with ``action="deny"``, a deny rule: "Always
        deny") from now on; returns the rule to save."""
        self._pending_commands.pop(prompt, None)
        rule = self._pending.pop(prompt, None)
        if rule is None:
            return None
        if action == "deny":
            rule = rule.model_copy(update={"action": "deny"})
        if rule not in self.book.rules:
            self.book.rules.append(rule)
        return rule.as_dict()

    async def _decided_by_hook(self, answer: HookResult | None, tool_name: str, verdict: Verdict,
                               data: dict[str, Any]) -> HookResult | None:
        """A hook's answer to ``approval:required`` (e.g. hook-shell's PermissionRequest): ``deny`` refuses the
        request and ``decision: allow`` grants it, both without asking anyone; None: ask as usual. A request that
        is always asked (a protected place, a part that could not be judged) is never granted by a hook."""
        if answer is None:
            return None
        if answer.action == "deny":
            reason = f"{tool_name} denied by a hook: {answer.reason or 'no reason given'}"
            await self._emit(events.APPROVAL_DENIED, {"tool_name": tool_name, "reason": reason})
            return HookResult(action="deny", reason=reason)
        decided = answer.data or {}
        if decided.get(APPROVAL_DECISION_FIELD) != "allow" or verdict.always_ask:
            return None
        changed = decided.get("tool_input")
        changed = changed if isinstance(changed, dict) and changed != data.get("tool_input") else None
        if changed is not None:  # the input that will run is judged by the rules too
            again = await self._judge(tool_name, changed)
            if again.action == "deny":
                reason = f"{tool_name} denied by approval rules (as a hook changed it): {again.reason}"
                await self._emit(events.APPROVAL_DENIED, {"tool_name": tool_name, "reason": reason})
                return HookResult(action="deny", reason=reason)
            if again.always_ask:
                return None  # a person decides, about the call as the model made it
        await self._emit(events.APPROVAL_GRANTED, {"tool_name": tool_name, "reason": "allowed by a hook"})
        if changed is not None:
            return HookResult(action="modify", data={**data, "tool_input": changed})
        return HookResult()

    async def _emit(self, event: str, payload: dict[str, Any]) -> HookResult | None:
        try:
            return await self.hooks.emit(event, payload)
        except Exception:  # an observer failing must not change the decision
            logger.exception("emitting %s failed", event)
            return None


def load_saved_rules(value: Any) -> list[Rule]:
    """Rules the app saved (capability `approval.rules`); a broken one is skipped with a warning, so a bad
    settings entry never stops a session."""
    if not isinstance(value, list):
        return []
    rules = []
    for index, item in enumerate(value):
        try:
            rules.append(Rule.model_validate(item))
        except ValidationError as error:
            logger.warning("hooks-approval: saved rule %d (%r) ignored: %s", index, item,
                           error.errors()[0].get("msg") if error.errors() else error)
    return rules


async def mount(coordinator: Any, config: dict[str, Any] | None = None):
    settings = parse_module_config(ApprovalConfig, config, "hooks-approval")
    saved = load_saved_rules(coordinator.get_capability(APPROVAL_RULES)) if settings.use_saved_rules else []
    hook = ApprovalHook(settings, saved, coordinator.hooks, coordinator)
    unregister = coordinator.hooks.register(events.TOOL_PRE, hook.on_tool_pre, priority=PRIORITY,
                                            name="hooks-approval")
    coordinator.register_capability(APPROVAL_REMEMBER, hook.remember)
    coordinator.register_capability(APPROVAL_RUN_UNCONFINED, hook.run_unconfined)

    def cleanup() -> None:
        unregister()

    return cleanup
