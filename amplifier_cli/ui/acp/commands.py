"""Slash commands in the editor: `available_commands_update` lists them, and a prompt that starts with `/name`
runs one. Built-in commands act on the session (through the sessions layer, as the chat's do) and answer with a
message; a project command (config/slash_commands.py), a skill, or an MCP server's prompt becomes the text of a
turn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...config.slash_commands import load_commands, split_command_line
from ...sessions.mcp_prompt_input import PromptArgumentsProblem, fill_prompt_arguments, find_prompt
from ..usage_lines import cost_lines

if TYPE_CHECKING:
    from .session import AcpSession

# name -> (description, input hint or None)
BUILT_IN: dict[str, tuple[str, str | None]] = {
    "compact": ("replace the conversation with a summary now", "what to keep (optional)"),
    "clear": ("forget the conversation (the system instruction stays)", None),
    "cost": ("tokens and cost of this session, sub-agents included", None),
    "mode": ("show or switch the mode: normal, plan, accept-edits", "mode"),
    "model": ("show or switch the model: NAME or PROVIDER/NAME", "model"),
    "trust": ("review what this project ships (servers, hooks, settings) and trust it", None),
}


@dataclass(frozen=True)
class CommandTurn:
    """A command that becomes a turn: the prompt to send."""

    prompt: str


def _skills(session: AcpSession) -> list[dict[str, Any]]:
    from amplifier_support.capability_names import SKILLS_CATALOG

    catalog = session.live.coordinator.get_capability(SKILLS_CATALOG)
    try:
        return list(catalog()["skills"]) if callable(catalog) else []
    except Exception:
        return []


def available_commands(session: AcpSession) -> list[Any]:
    from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

    def command(name: str, description: str, hint: str | None) -> AvailableCommand:
        given = AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None
        return AvailableCommand(name=name, description=description, input=given)

    found = [command(name, description, hint) for name, (description, hint) in BUILT_IN.items()]
    for name, own in load_commands(session.live.paths).items():
        found.append(command(name, own.description or f"the command in {own.path.name}", own.argument_hint or None))
    for skill in _skills(session):
        found.append(command(str(skill["name"]), f"skill: {skill.get('description') or ''}".strip(), "what for"))
    for prompt in session.live.mcp_prompts():
        hint = " ".join(argument["name"] for argument in prompt["arguments"]) or None
        found.append(command(prompt["command"], prompt["description"] or "MCP prompt", hint))
    return found


async def run_command(session: AcpSession, line: str) -> CommandTurn | str | None:
    """``line`` as a command: a CommandTurn to run, the text that answers it, or None when it is no command
    (the line is then sent to the model as it is)."""
    parts = split_command_line(line)
    if parts is None:
        return None
    name, argument = parts
    handler = _HANDLERS.get(name)
    if handler is not None:
        return await handler(session, argument.strip())
    own = load_commands(session.live.paths).get(name)
    if own is not None:
        return CommandTurn(own.expand(argument.strip()))
    if any(skill["name"] == name for skill in _skills(session)):
        request = f" for: {argument.strip()}" if argument.strip() else ""
        return CommandTurn(f"Load the skill '{name}' with load_skill and follow it{request}.")
    prompt = find_prompt(session.live.mcp_prompts(), name) if name.startswith("mcp__") else None
    if prompt is not None:
        try:
            text = await session.live.mcp_prompt_text(prompt["server"], prompt["name"],
                                                      fill_prompt_arguments(name, prompt, argument))
        except PromptArgumentsProblem as problem:
            return str(problem)
        except Exception as error:
            return f"MCP server '{prompt['server']}' could not give prompt {prompt['name']}: {error}"
        return CommandTurn(text)
    return None


async def _compact(session: AcpSession, argument: str) -> str:
    from amplifier_support.compaction_receipt import receipt_line

    from ...sessions.manual_compaction import CompactionRefused, compact_now

    live = session.live
    try:
        receipt = await compact_now(live.coordinator, live.provider_name, argument)
    except CompactionRefused as error:
        return f"Not compacted: {error}"
    return f"{receipt_line({**receipt.event_data(), 'summary': ''})}\n\nThe summary kept:\n{receipt.summary}"


async def _clear(session: AcpSession, argument: str) -> str:
    removed, kept = await session.live.clear_conversation()
    return f"Cleared {removed} message(s); kept {kept} system message(s)."


async def _cost(session: AcpSession, argument: str) -> str:
    rows = cost_lines(session.live.usage.session)
    return f"This session ({session.id[:8]}), sub-agents included:\n" + "\n".join(
        f"- {label}: {value}" for label, value in rows)


async def _mode(session: AcpSession, argument: str) -> str:
    from ...sessions.plan_mode import MODES

    wanted = argument.lower()
    if not wanted:
        return f"Mode: {session.live.mode}. Switch with /mode {' | '.join(MODES)}."
    if wanted not in MODES:
        return f"Unknown mode '{wanted}'. Modes: {', '.join(MODES)}."
    await session.set_mode(wanted)
    return f"Mode: {wanted}"


async def _model(session: AcpSession, argument: str) -> str:
    if not argument:
        return f"Model: {session.live.provider_name} · {session.live.model_name or 'default'}"
    provider, model = await session.set_model(argument)
    return f"Model for the next turns: {provider} · {model}"


async def _trust(session: AcpSession, argument: str) -> str:
    if await session.offer_trust(asked_by_user=True):
        return "Trusted. The project's servers, hooks and settings are on from now."
    return "Nothing was trusted."


_HANDLERS = {"compact": _compact, "clear": _clear, "cost": _cost, "mode": _mode, "model": _model, "trust": _trust}
