"""The kernel hook handler: for each mapped kernel event, run the matching hooks (shell commands, http endpoints)
one after another and answer with one ``HookResult``.

Events whose emitter reads the result get it returned: tool:pre, tool:post, tool:error and prompt:submit (the agent
loop applies deny, modify, ask_user and context through the coordinator), approval:required (hooks-approval takes
a PermissionRequest's allow or deny as the answer to the request) and the task tool's events (tool-task hands
SubagentStart context to the sub-agent and SubagentStop feedback to the parent's model). For the others (session
start and end, the end of a turn, compaction, notifications) nobody applies results, so this handler applies them
itself through ``coordinator.process_hook_result`` and returns "continue".

With Notification hooks, a turn that ended starts a timer: when no next prompt is sent within
``idle_seconds``, Notification runs with ``notification_type: idle_prompt``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from amplifier_core import events
from amplifier_core.models import HookResult, json_default
from amplifier_support.capability_names import SECRETS_VALUES, SESSION_END_REASON, SESSION_MODE
from amplifier_support.sandbox import Confinement
from amplifier_support.secret_values import SecretValues

from .env_file import ENV_FILE_VARIABLES, HookEnvFile
from .event_mapping import (
    AGENT_COMPLETED,
    AGENT_RESUMED,
    AGENT_SPAWNED,
    KERNEL_EVENTS,
    HookEvent,
    hook_events_for,
    idle_notification,
)
from .hook_answer import HookAnswer, describe, read_answer
from .hook_environment import hook_environment
from .hook_process import HookRun, run_hook_command
from .hook_table import HookTable, HttpHook, MatcherGroup
from .http_hook import post_hook_event
from .verdict import Verdict, combine

logger = logging.getLogger(__name__)

RESULT_READING_EVENTS = frozenset({events.TOOL_PRE, events.TOOL_POST, events.TOOL_ERROR, events.PROMPT_SUBMIT,
                                   events.APPROVAL_REQUIRED, AGENT_SPAWNED, AGENT_RESUMED, AGENT_COMPLETED})
"""Kernel events whose emitter applies the returned result."""

IDLE_EVENTS = (events.EXECUTION_START, events.EXECUTION_END, events.SESSION_END)
"""What the idle timer follows: a turn starting stops it, a turn ending starts it, the session ending stops it."""

HANDLER_NAME = "hook-shell"


@dataclass(frozen=True)
class HookSite:
    """Where hooks run and what they are told about the session."""

    project_dir: Path
    hooks_dir: Path
    pass_env: tuple[str, ...]
    transcript_path: str | None = None
    confinement: Confinement | None = None
    """The OS sandbox hook processes start under (None: unconfined)."""
    allow_blocking: bool = True
    """False (upstream's ``allow_blocking: false``): a block is shown as a warning and the session goes on."""
    idle_seconds: float = 60.0
    """How long after a turn ends, with no next prompt, Notification ``idle_prompt`` runs."""
    network: bool = True
    """False (``sandbox: {network: false}``): hooks may not reach the network, so http hooks are not called."""


# the events of a person's session: a sub-agent's session (its events carry ``parent_id``) runs none of them, as in
# Claude Code, where the parent's SubagentStart / SubagentStop stand for them; tool and compaction hooks still run
PARENT_SESSION_ONLY = frozenset({"SessionStart", "SessionEnd", "UserPromptSubmit", "Stop", "StopFailure",
                                 "Notification"})


class ShellHooks:
    def __init__(self, table: HookTable, site: HookSite, coordinator: Any) -> None:
        self.table = table
        self.site = site
        self.coordinator = coordinator
        self.env_file = HookEnvFile()
        self.idle_task: asyncio.Task[None] | None = None

    def kernel_events(self) -> list[str]:
        """The kernel events that have at least one configured hook (and the turn events the idle timer needs)."""
        wanted = set(self.table.groups)
        subscribed = [event for event, names in KERNEL_EVENTS.items() if wanted.intersection(names)]
        if "Notification" in wanted:
            subscribed += [event for event in IDLE_EVENTS if event not in subscribed]
        return subscribed

    async def handle(self, event: str, data: dict[str, Any]) -> HookResult:
        self._follow_idle(event)
        end_reason = self._capability(SESSION_END_REASON) if event == events.SESSION_END else None
        hook_events = hook_events_for(event, data, end_reason if isinstance(end_reason, str) else None)
        for position, hook_event in enumerate(hook_events):
            verdict = await self._run_event(event, hook_event, data)
            if verdict is None:
                continue
            if event == events.APPROVAL_REQUIRED and position == 0:
                if verdict.result.action in ("deny", "modify"):  # a PermissionRequest hook decided: nobody is asked
                    return verdict.result
                continue
            if event in RESULT_READING_EVENTS:
                return verdict.result
            await self._apply(event, hook_event, verdict.result)
        return HookResult()

    async def _run_event(self, event: str, hook_event: HookEvent, data: dict[str, Any]) -> Verdict | None:
        """Run the hooks of ``hook_event`` whose matcher fits; None when none does (or when a sub-agent's session
        has the event: Claude Code runs SubagentStart/SubagentStop, in the parent, instead)."""
        if data.get("parent_id") and hook_event.name in PARENT_SESSION_ONLY:
            return None
        groups = [group for group in self.table.groups.get(hook_event.name, ())
                  if not hook_event.match_candidates or group.matches(hook_event.match_candidates)]
        if not groups:
            return None
        answers = await self._run_hooks(event, hook_event, data, groups)
        verdict = combine(hook_event.name, answers, data)
        if verdict.messages:
            show_message(self.coordinator, "\n".join(verdict.messages), "warning" if verdict.warned else "info")
        return verdict

    async def _run_hooks(self, event: str, hook_event: HookEvent, data: dict[str, Any],
                         groups: list[MatcherGroup]) -> list[HookAnswer]:
        session_id = str(data.get("session_id") or getattr(self.coordinator, "session_id", None) or "")
        payload: dict[str, Any] = {
            "session_id": session_id,
            "parent_session_id": data.get("parent_id"),  # set in sub-agent sessions
            "transcript_path": self.site.transcript_path,
            "cwd": str(self.site.project_dir),
            "permission_mode": "plan" if self._capability(SESSION_MODE) == "plan" else "default",
            "hook_event_name": hook_event.name,
            "amplifier_event": event,
            "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),  # upstream's hooks read it
            **hook_event.fields,
        }
        if hook_event.name in ("SubagentStart", "SubagentStop"):
            payload["agent_transcript_path"] = self._agent_transcript(hook_event.fields.get("agent_id"))
        env = hook_environment(os.environ, self.site.pass_env, {
            "AMPLIFIER_PROJECT_DIR": str(self.site.project_dir),
            "CLAUDE_PROJECT_DIR": str(self.site.project_dir),
            "AMPLIFIER_HOOKS_DIR": str(self.site.hooks_dir),
            "AMPLIFIER_SESSION_ID": session_id,
            "AMPLIFIER_HOOK_EVENT": hook_event.name,
        })
        answers: list[HookAnswer] = []
        confinement = self.site.confinement
        refusal = confinement.refusal() if confinement is not None else None
        cwd = str(self.site.project_dir)
        for hook in (hook for group in groups for hook in group.hooks):
            try:
                body = json.dumps(payload, default=json_default, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:  # a path that is not UTF-8: JSON escapes, which decode to the same name
                body = json.dumps(payload, default=json_default).encode("ascii")
            hook_env = {**env, **self.env_file.variables()}
            if isinstance(hook, HttpHook) and not self.site.network:
                answer = HookAnswer(warning=f"{describe(hook_event.name, hook)} was not called: the hooks' sandbox "
                                            "has network: false")
            elif isinstance(hook, HttpHook):  # in-process: no command runs, so the OS sandbox does not apply
                # its allowedEnvVars name what it may send, credentials included: the entry shows them (and trust)
                variables = {**os.environ, **self.env_file.variables()}
                answer = read_answer(hook_event.name, hook, await post_hook_event(hook, self._masked(body), variables))
            elif refusal is not None:
                answer = HookAnswer(warning=f"{describe(hook_event.name, hook)} was not run. {refusal}")
            else:
                env_file = str(self.env_file.path)
                hook_env.update(dict.fromkeys(ENV_FILE_VARIABLES, env_file))
                if hook.plugin_root:
                    hook_env["CLAUDE_PLUGIN_ROOT"] = hook_env["AMPLIFIER_PLUGIN_ROOT"] = hook.plugin_root
                places = confinement.snapshot() if confinement is not None else None
                run = await run_hook_command(hook.command, stdin_data=body, cwd=cwd, env=hook_env,
                                             timeout=hook.timeout, confinement=confinement)
                answer = read_answer(hook_event.name, hook, run)
                changed = confinement.changed(places) if confinement is not None and places is not None else None
                if changed:  # the namespace keeps existing places read-only, not new ones; without one, nothing does
                    answer.warning = "; ".join(filter(None, [
                        answer.warning, f"{describe(hook_event.name, hook)}: {changed.replace('this command', 'it')}"]))
                self._explain_refusal(answer, run, cwd)
            if answer.block is not None and not self.site.allow_blocking:
                answer.warning = "; ".join(filter(None, [
                    answer.warning, f"{describe(hook_event.name, hook)} would block ({_one_line(answer.block)}), "
                                    "but allow_blocking is false: the session goes on"]))
                answer.block = None
            answers.append(answer)
            if answer.block is not None or answer.allow:
                break
            if answer.updated_input is not None:  # later hooks judge the input that will really run
                payload["tool_input"] = answer.updated_input
        return answers

    def _explain_refusal(self, answer: HookAnswer, run: HookRun, cwd: str) -> None:
        confinement = self.site.confinement
        if answer.warning and confinement is not None and run.exit_code not in (0, None):
            note = confinement.explain(f"{run.stderr}\n{run.stdout}", cwd)
            if note:
                answer.warning = f"{answer.warning}\n{note}"

    async def _apply(self, event: str, hook_event: HookEvent, result: HookResult) -> None:
        if result.action == "continue":
            return
        try:
            await self.coordinator.process_hook_result(result, event, hook_name=HANDLER_NAME)
        except Exception as error:  # e.g. an injection over the session's size limit
            show_message(self.coordinator, f"applying the {hook_event.name} hooks' answer failed: {error}",
                         "warning")

    def _masked(self, body: bytes) -> bytes:
        """What leaves the machine: the session's secret values (keys, `${VAR}` expansions, credential
        variables) replaced by their markers, as in the event log; a hook that needs a credential names it in
        `allowedEnvVars` for its headers."""
        given = self._capability(SECRETS_VALUES)
        secrets = SecretValues.from_environment(given if isinstance(given, dict) else None)
        return secrets.mask_text(body.decode("utf-8")).encode("utf-8") if secrets else body

    def _capability(self, name: str) -> Any:
        getter = getattr(self.coordinator, "get_capability", None)
        return getter(name) if getter is not None else None

    def _agent_transcript(self, agent_id: Any) -> str | None:
        """The sub-agent's transcript: beside this session's, in the store's folder of its own id."""
        if not self.site.transcript_path or not isinstance(agent_id, str) or not agent_id:
            return None
        own = Path(self.site.transcript_path)
        return str(own.parent.parent / agent_id / own.name)

    # -- idle notification -----------------------------------------------------------------------------------
    def _follow_idle(self, event: str) -> None:
        if event not in IDLE_EVENTS or "Notification" not in self.table.groups:
            return
        self.stop_idle_timer()
        if event == events.EXECUTION_END:
            self.idle_task = asyncio.ensure_future(self._notify_when_idle())

    def stop_idle_timer(self) -> None:
        if self.idle_task is not None and not self.idle_task.done():
            self.idle_task.cancel()
        self.idle_task = None

    async def _notify_when_idle(self) -> None:
        await asyncio.sleep(self.site.idle_seconds)
        try:
            await self._run_event(events.USER_NOTIFICATION, idle_notification(), {})
        except Exception:  # nobody awaits this task: a failure is logged, never lost
            logger.exception("hook-shell: the idle Notification hooks failed")


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def show_message(coordinator: Any, message: str, level: str) -> None:
    """Through the app's display system when there is one (the hook registry drops ``user_message`` of results
    that continue), else the log."""
    display = getattr(coordinator, "display_system", None)
    if display is None:
        logger.log(logging.WARNING if level == "warning" else logging.INFO, "hook-shell: %s", message)
        return
    try:
        display.show_message(message=message, level=level, source=f"hook:{HANDLER_NAME}")
    except Exception:
        logger.exception("hook-shell: showing a message failed")
