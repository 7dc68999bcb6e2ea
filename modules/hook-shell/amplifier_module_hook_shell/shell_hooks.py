"""The kernel hook handler: for each mapped kernel event, run the matching shell hooks one after another and
answer with one ``HookResult``.

Events whose emitter reads the result (tool:pre, tool:post, prompt:submit: the agent loop applies deny, modify,
ask_user and context through the coordinator) get it returned. For the others (session start and end, the end of
a turn, compaction, notifications) nobody applies results, so this handler applies them itself through
``coordinator.process_hook_result`` and returns "continue".
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from amplifier_core import events
from amplifier_core.models import HookResult, json_default
from amplifier_support.sandbox import Confinement

from .env_file import ENV_FILE_VARIABLES, HookEnvFile
from .event_mapping import KERNEL_EVENTS, hook_event_for
from .hook_answer import HookAnswer, describe, read_answer
from .hook_environment import hook_environment
from .hook_process import run_hook_command
from .hook_table import HookTable
from .verdict import combine

logger = logging.getLogger(__name__)

RESULT_READING_EVENTS = frozenset({events.TOOL_PRE, events.TOOL_POST, events.PROMPT_SUBMIT})
"""Kernel events whose emitter applies the returned result."""

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


class ShellHooks:
    def __init__(self, table: HookTable, site: HookSite, coordinator: Any) -> None:
        self.table = table
        self.site = site
        self.coordinator = coordinator
        self.env_file = HookEnvFile()

    def kernel_events(self) -> list[str]:
        """The kernel events that have at least one configured hook."""
        wanted = set(self.table.groups)
        return [event for event, name in KERNEL_EVENTS.items() if name in wanted]

    async def handle(self, event: str, data: dict[str, Any]) -> HookResult:
        hook_event = hook_event_for(event, data)
        if hook_event is None:
            return HookResult()
        groups = [group for group in self.table.groups.get(hook_event.name, ())
                  if not hook_event.match_candidates or group.matches(hook_event.match_candidates)]
        if not groups:
            return HookResult()
        session_id = str(data.get("session_id") or getattr(self.coordinator, "session_id", None) or "")
        payload: dict[str, Any] = {
            "session_id": session_id,
            "parent_session_id": data.get("parent_id"),  # set in sub-agent sessions
            "transcript_path": self.site.transcript_path,
            "cwd": str(self.site.project_dir),
            "hook_event_name": hook_event.name,
            "amplifier_event": event,
            "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),  # upstream's hooks read it
            **hook_event.fields,
        }
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
            if refusal is not None:
                answers.append(HookAnswer(warning=f"{describe(hook_event.name, hook)} was not run. {refusal}"))
                continue
            try:
                stdin_data = json.dumps(payload, default=json_default, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:  # a path that is not UTF-8: JSON escapes, which decode to the same name
                stdin_data = json.dumps(payload, default=json_default).encode("ascii")
            env_file = str(self.env_file.path)
            hook_env = {**env, **self.env_file.variables(), **dict.fromkeys(ENV_FILE_VARIABLES, env_file)}
            if hook.plugin_root:
                hook_env["CLAUDE_PLUGIN_ROOT"] = hook_env["AMPLIFIER_PLUGIN_ROOT"] = hook.plugin_root
            places = confinement.snapshot() if confinement is not None else None
            run = await run_hook_command(hook.command, stdin_data=stdin_data, cwd=cwd, env=hook_env,
                                         timeout=hook.timeout, confinement=confinement)
            answer = read_answer(hook_event.name, hook, run)
            changed = confinement.changed(places) if confinement is not None and places is not None else None
            if changed:  # the namespace keeps existing places read-only, not new ones; without one, nothing does
                answer.warning = "; ".join(filter(None, [
                    answer.warning, f"{describe(hook_event.name, hook)}: {changed.replace('this command', 'it')}"]))
            if answer.block is not None and not self.site.allow_blocking:
                answer.warning = "; ".join(filter(None, [
                    answer.warning, f"{describe(hook_event.name, hook)} would block ({_one_line(answer.block)}), "
                                    "but allow_blocking is false: the session goes on"]))
                answer.block = None
            if answer.warning and confinement is not None and run.exit_code not in (0, None):
                note = confinement.explain(f"{run.stderr}\n{run.stdout}", cwd)
                if note:
                    answer.warning = f"{answer.warning}\n{note}"
            answers.append(answer)
            if answer.block is not None:
                break
            if answer.updated_input is not None:  # later hooks judge the input that will really run
                payload["tool_input"] = answer.updated_input
        verdict = combine(hook_event.name, answers, data)
        if verdict.messages:
            show_message(self.coordinator, "\n".join(verdict.messages), "warning" if verdict.warned else "info")
        if event in RESULT_READING_EVENTS:
            return verdict.result
        if verdict.result.action != "continue":
            try:
                await self.coordinator.process_hook_result(verdict.result, event, hook_name=HANDLER_NAME)
            except Exception as error:  # e.g. an injection over the session's size limit
                show_message(self.coordinator, f"applying the {hook_event.name} hooks' answer failed: {error}",
                             "warning")
        return HookResult()


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
