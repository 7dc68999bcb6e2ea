"""Slash commands. Each handler gets the Repl and the argument text; returning False ends the chat."""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from amplifier_support.capability_names import SKILLS_CATALOG

from .output import say, say_parts

Handler = Callable[[Any, str], Awaitable[bool]]


async def _help(repl: Any, argument: str) -> bool:
    say("Commands:", "title")
    for name, description, _ in COMMANDS:
        say_parts(("info", f"  {name:<16}"), (None, description))
    project_commands = getattr(repl, "project_commands", {}) or {}
    if project_commands:
        say("Your commands (Markdown files; /NAME ARGS sends the text with the arguments filled in):", "title")
        for name, command in project_commands.items():
            shown = f"/{name}" + (f" {command.argument_hint}" if command.argument_hint else "")
            say_parts(("info", f"  {shown:<16}"), (None, command.description), ("dim", f"  ({command.origin})"))
    say("Input: Enter sends · Alt-Enter / Ctrl-J new line · Ctrl-R searches history · @path attaches a file · "
        "@server:uri an MCP resource · !cmd runs a shell command (output not sent) · "
        "Ctrl-C stops a turn (twice: at once) · Ctrl-D exits", "dim")
    return True


async def _status(repl: Any, argument: str) -> bool:
    live = await repl.session()
    if live is None:
        return True
    totals = live.usage.session
    known = totals.known_cost()  # unknown when any response had no price, as /cost says
    cost = f"${known:.4f}" if known is not None else "unknown"
    messages = await live.coordinator.get("context").get_messages()
    rows = [
        ("session", live.session_id),
        ("directory", str(live.record.directory)),
        ("profile", live.built.profile_name),
        ("provider", live.provider_name or "?"),
        ("model", live.model_name or "default"),
        ("messages", str(len(messages))),
        ("tokens", f"in {totals.input_tokens:,} · out {totals.output_tokens:,}"
                   + (f" · cached {totals.cache_read_tokens:,}" if totals.cache_read_tokens else "")
                   + f" · {totals.requests} request(s)"),
        ("cost", cost),
        ("tools", ", ".join(live.tool_names) or "none"),
    ]
    servers = live.mcp_servers()
    if servers:
        rows.append(("mcp", " · ".join(f"{row['name']} {row['state']} ({row['tools']} tools)" for row in servers)))
    sandbox = live.sandbox_status()
    if sandbox is not None:
        rows.append(("sandbox", str(sandbox.get("summary") or sandbox.get("mode"))))
        if sandbox.get("warning"):
            rows.append(("warning", str(sandbox["warning"])))
    files = live.instruction_files
    if files:
        rows.append(("instructions", ", ".join(str(item) for item in files)))
    for key, value in rows:
        say_parts(("info", f"  {key:>12}: "), (None, value))
    return True


async def _tools(repl: Any, argument: str) -> bool:
    live = await repl.session()
    if live is None:
        return True
    tools = live.coordinator.get("tools") or {}
    if not tools:
        say("No tools are mounted (add some under `tools:` in the profile).", "dim")
    for name in sorted(tools):
        description = str(getattr(tools[name], "description", "") or "").strip().splitlines()
        first = description[0] if description else ""
        say_parts(("info", f"  {name:<18}"), (None, first if len(first) <= 80 else first[:79] + "…"))
    return True


async def _mcp(repl: Any, argument: str) -> bool:
    from ...ui.mcp_server_lines import session_server_lines

    live = await repl.session()
    if live is None:
        return True
    rows = live.mcp_servers()
    if not rows:
        say("No MCP servers in this session. Add one with `amplifier mcp add NAME -- COMMAND ARGS...` "
            "(and mount tool-mcp in the profile).", "dim")
        return True
    for row, line in zip(rows, session_server_lines(rows), strict=True):
        say("  " + line, "ok" if row["state"] == "connected" else "warning")
    for prompt in live.mcp_prompts():
        arguments = " ".join(f"{a['name']}=…" if a["required"] else f"[{a['name']}=…]" for a in prompt["arguments"])
        say_parts(("info", f"  /{prompt['command']} {arguments}".rstrip()), ("dim", f"  {prompt['description']}"))
    return True


async def _mcp_prompt(repl: Any, name: str, argument: str) -> bool:
    """`/mcp__<server>__<prompt> ARGS`: the server's prompt, filled in, sent as the next message. ARGS are
    `key=value` pairs or values in the order the prompt declares its arguments (sessions/mcp_prompt_input)."""
    live = await repl.session()
    if live is None:
        return True
    from ...sessions.mcp_prompt_input import PromptArgumentsProblem, fill_prompt_arguments, find_prompt

    prompt = find_prompt(live.mcp_prompts(), name)
    if prompt is None:
        say(f"Unknown command {name}. /mcp lists the MCP prompts of this session.", "warning")
        return True

    try:
        values = fill_prompt_arguments(name.lstrip("/"), prompt, argument)
    except PromptArgumentsProblem as problem:
        say(str(problem)[0].upper() + str(problem)[1:], "error")
        return True
    try:
        text = await live.mcp_prompt_text(prompt["server"], prompt["name"], values)
    except Exception as error:
        say(f"MCP server '{prompt['server']}' could not give prompt {prompt['name']}: {error}", "error")
        return True
    say(f"(prompt {prompt['name']} of MCP server '{prompt['server']}')", "dim")
    await repl.turn(text)
    return True


async def _skills(repl: Any, argument: str) -> bool:
    live = await repl.session()
    if live is None:
        return True
    catalog = live.coordinator.get_capability(SKILLS_CATALOG)
    if not callable(catalog):
        say("No skills in this session: the profile does not mount tool-skills.", "dim")
        return True
    summary = catalog()
    if not summary["skills"]:
        where = ", ".join(source["directory"] for source in summary["sources"])
        say(f"No skills found (looked in {where}). A skill is a folder with a SKILL.md.", "dim")
    for row in summary["skills"]:
        say_parts(("info", f"  {row['name']:<20}"), (None, row["description"][:90]),
                  ("dim", f"  [{row['origin']}] {row['directory']}"))
    for row in summary["shadowed"]:
        say(f"  (shadowed: {row['name']} [{row['origin']}] {row['directory']})", "dim")
    for problem in summary["problems"]:
        say(f"  skipped: {problem}", "warning")
    from ...config.trust import project_trusted

    if not project_trusted(repl.paths) and any(
            (repl.paths.project_root or repl.paths.cwd).joinpath(part).is_dir()
            for part in (".amplifier/skills", ".claude/skills")):
        say("  This project's own skills wait until you trust it (`amplifier trust`).", "dim")
    return True


async def _mode(repl: Any, argument: str) -> bool:
    from ...sessions.plan_mode import MODES

    wanted = argument.strip().lower()
    if not wanted:
        say_parts(("info", "  mode: "), (None, repl.mode),
                  ("dim", "   switch: /mode plan · /mode accept-edits · /mode normal · Shift-Tab"))
        return True
    if wanted not in MODES:
        say(f"Unknown mode '{wanted}'. Modes: {', '.join(MODES)}.", "warning")
        return True
    repl.set_mode(wanted)
    return True


async def _model(repl: Any, argument: str) -> bool:
    live = await repl.session()
    if live is None:
        return True
    current_provider = live.provider_name
    if not argument:
        say_parts(("info", "  current: "), (None, f"{current_provider} · "
                                                  f"{live.model_name or 'default'}"))
        try:
            names = await live.model_names()
        except Exception as error:
            say(f"  (could not list models: {type(error).__name__}: {error})", "dim")
            return True
        if names:
            say("  available: " + ", ".join(names[:30]), "dim")
        say("  switch with /model NAME or /model PROVIDER/NAME", "dim")
        return True
    provider_name, model = live.switch_model(argument)
    say(f"Model for the next turns: {provider_name} · {model}", "ok")
    return True


async def _clear(repl: Any, argument: str) -> bool:
    live = await repl.session()
    if live is None:
        return True
    removed, kept = await live.clear_conversation()
    say(f"Cleared {removed} message(s); kept {kept} system message(s).", "ok")
    return True


async def _save(repl: Any, argument: str) -> bool:
    from .export import SaveRefused, save_transcript

    live = await repl.session()
    if live is None:
        return True
    name = argument.strip() or f"amplifier-{live.session_id[:8]}.md"
    path = Path(name).expanduser()
    if not path.is_absolute():
        path = repl.paths.cwd / path
    header = {"session_id": live.session_id, "profile": live.built.profile_name, "provider": live.provider_name,
              "model": live.model_name}
    roots = [repl.paths.project_root or repl.paths.cwd, Path.home()]  # where /save may create folders
    try:
        messages = await live.coordinator.get("context").get_messages()
        if live.record.secrets is not None:  # the export is a file on disk: no secret in it either
            messages = live.record.secrets.mask(messages)
        try:
            written = save_transcript(path, messages, header, roots=roots)
        except FileExistsError:
            if not await _overwrite_confirmed(path):
                say(f"Kept {path} as it is; nothing saved. Give another path: /save FILE", "dim")
                return True
            written = save_transcript(path, messages, header, roots=roots, overwrite=True)
    except SaveRefused as error:
        say(f"Not saved: {error}", "error")
        return True
    except OSError as error:
        say(f"Could not write {path}: {error.strerror}. Give another path: /save FILE", "error")
        return True
    say(f"Saved the conversation to {written}", "ok")
    return True


async def _overwrite_confirmed(path: Path) -> bool:
    """Ask before /save replaces a file (a README, the user's notes): only an explicit yes overwrites."""
    from .approval import choose_option

    say(f"{path} exists. Replace it with the conversation?", "warning")
    say_parts((None, "  [1] Overwrite  [2] Keep the file"))
    return await choose_option(["Overwrite", "Keep the file"]) == "Overwrite"


async def _resume(repl: Any, argument: str) -> bool:
    from ...sessions.factory import SessionRequest, project_key, session_store_for
    from ...sessions.store import AmbiguousSessionIdError, SessionNotFoundError

    store = session_store_for(repl.paths)
    current = repl.live.session_id if repl.live is not None else None
    if not argument.strip():
        sessions = [meta for meta in store.list(project=project_key(repl.paths), limit=11)
                    if meta.session_id != current][:10]
        if not sessions:
            say("No other sessions in this project yet.", "dim")
            return True
        for meta in sessions:
            prompt = (meta.first_prompt or "").replace("\n", " ")[:50]
            when = f"  {meta.updated[:16]}  {meta.turn_count} turn(s)  "
            say_parts(("info", f"  {meta.session_id[:8]}"), ("dim", when), (None, prompt))
        say("Resume one with /resume ID (a unique prefix is enough).", "dim")
        return True
    try:
        record = store.find(argument.strip())
    except (SessionNotFoundError, AmbiguousSessionIdError) as error:
        say(str(error), "error")
        return True
    if record.session_id == current:
        say("That is the current session.", "dim")
        return True
    await repl.switch_to(SessionRequest(resume_id=record.session_id))
    return True


async def _fork(repl: Any, argument: str) -> bool:
    """Continue in a copy of this conversation (up to turn N); the current session stays as it was."""
    from ...sessions.factory import SessionRequest, session_store_for
    from ...sessions.store.fork import fork_session

    live = await repl.session()
    if live is None:
        return True
    text = argument.strip()
    if text and not (text.isascii() and text.isdigit()):
        say("Usage: /fork [TURN] (a turn number; without one the whole conversation)", "error")
        return True
    store = session_store_for(repl.paths)
    try:
        forked = fork_session(store, live.record, at_turn=int(text) if text else None, cwd=repl.paths.cwd)
    except ValueError as error:
        say(f"Not forked: {error}", "error")
        return True
    say(f"Forked {live.session_id[:8]} into {forked.session_id[:8]}; now in the fork.", "ok")
    await repl.switch_to(SessionRequest(resume_id=forked.session_id, budget=getattr(repl.request, "budget", None)))
    return True


async def _rewind(repl: Any, argument: str) -> bool:
    from .rewind_command import rewind_command

    return await rewind_command(repl, argument)


async def _cost(repl: Any, argument: str) -> bool:
    from .cost_command import cost_command

    return await cost_command(repl, argument)


async def _diff(repl: Any, argument: str) -> bool:
    from .diff_command import diff_command

    return await diff_command(repl, argument)


async def _compact(repl: Any, argument: str) -> bool:
    from .compact_command import compact_command

    return await compact_command(repl, argument)


async def _exit(repl: Any, argument: str) -> bool:
    return False


COMMANDS: list[tuple[str, str, Handler]] = [
    ("/help", "show commands and keys", _help),
    ("/status", "session, profile, provider, model, tokens and cost, tools, MCP servers, sandbox", _status),
    ("/cost", "tokens in and out, cache reads and cost of this session, sub-agents included", _cost),
    ("/tools", "mounted tools", _tools),
    ("/mcp", "MCP servers of this session: state, tools, prompts", _mcp),
    ("/model", "show the model, or switch: /model NAME or PROVIDER/NAME", _model),
    ("/mode", "show or switch: /mode plan (read and think, no writes or commands) · /mode accept-edits · "
              "/mode normal", _mode),
    ("/skills", "skills the model can load, with where each came from", _skills),
    ("/compact", "replace the conversation with a summary now: /compact [what to keep]", _compact),
    ("/clear", "forget the conversation (the system instruction stays)", _clear),
    ("/save", "write the conversation to FILE (.md, or .json)", _save),
    ("/resume", "list recent sessions, or /resume ID to switch to one", _resume),
    ("/fork", "continue in a copy of this conversation: /fork [TURN] keeps turns 1..TURN", _fork),
    ("/diff", "the files the model's tools changed in this session, as a diff", _diff),
    ("/rewind", "list turns, or /rewind N [files|conversation]: back to before turn N", _rewind),
    ("/exit", "leave (the session is saved; `amplifier continue` resumes it)", _exit),
    ("/quit", "same as /exit", _exit),
]


async def run_command(repl: Any, line: str) -> bool:
    name, _, argument = line.partition(" ")
    name = name.lower()
    if name.startswith("/mcp__"):
        return await _mcp_prompt(repl, name, argument.strip())
    for command, _, handler in COMMANDS:
        if command == name:
            return await handler(repl, argument.strip())
    project_commands = getattr(repl, "project_commands", {}) or {}
    own = next((command for key, command in project_commands.items() if "/" + key.lower() == name), None)
    if own is not None:
        say(f"(command /{own.name} from {own.path})", "dim")
        await repl.turn(own.expand(argument.strip()))
        return True
    names = [command for command, _, _ in COMMANDS] + [f"/{key}" for key in project_commands]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]}?" if close else ""
    say(f"Unknown command {name}.{hint} Type /help for the list.", "warning")
    return True
