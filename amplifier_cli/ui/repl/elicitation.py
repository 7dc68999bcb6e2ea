"""An MCP server's elicitation form, asked in the chat (capability `mcp.elicit`): the server's message, then one
line per field of its flat JSON Schema (text, a number, yes/no, or one of a list). Enter on an empty optional field
skips it; Ctrl-C or Ctrl-D declines the whole form. Like approval questions, it leaves SIGINT to the turn."""

from __future__ import annotations

from typing import Any

from .output import say

_YES = ("y", "yes", "true", "1")
_NO = ("n", "no", "false", "0")


def convert_answer(text: str, field: dict[str, Any], required: bool) -> tuple[Any, str | None]:
    """(value, None), or (None, what is wrong). An empty answer is the field's default, else skipped unless
    required."""
    text = text.strip()
    if not text:
        if "default" in field:
            return field["default"], None
        return None, ("an answer is needed" if required else None)
    kind = field.get("type", "string")
    choices = field.get("enum")
    if choices is not None:
        return (text, None) if text in choices else (None, f"answer one of: {', '.join(map(str, choices))}")
    if kind == "boolean":
        if text.lower() in _YES:
            return True, None
        if text.lower() in _NO:
            return False, None
        return None, "answer y or n"
    if kind in ("integer", "number"):
        try:
            return (int(text) if kind == "integer" else float(text)), None
        except ValueError:
            return None, f"answer a{'n integer' if kind == 'integer' else ' number'}"
    return text, None


def _label(name: str, field: dict[str, Any], required: bool) -> str:
    kind = "y/n" if field.get("type") == "boolean" else "/".join(map(str, field.get("enum") or [])) or ""
    hint = f" [{kind}]" if kind else ""
    optional = "" if required else " (optional)"
    title = field.get("title") or name
    return f"  {title}{hint}{optional}: "


async def _ask_line(label: str) -> str | None:
    """One line of input; None on Ctrl-C / Ctrl-D."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.patch_stdout import patch_stdout

    bindings = KeyBindings()

    @bindings.add("c-c", eager=True)
    @bindings.add("c-d", eager=True)
    def _decline(event: Any) -> None:
        event.app.exit(result=None)

    session: PromptSession[str | None] = PromptSession(key_bindings=bindings)
    with patch_stdout(raw=True):
        return await session.prompt_async([("bold", label)], handle_sigint=False)


async def ask_form(server: str, message: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The answers to the form, or None when the person declined it."""
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    say()
    say(f"MCP server '{server}' asks", "bold ansiyellow")
    for line in message.splitlines() or [""]:
        say(f"  {line}")
    say("  (Enter answers; Ctrl-C declines)", "dim")
    answers: dict[str, Any] = {}
    for name, field in properties.items():
        field = field if isinstance(field, dict) else {}
        if field.get("description"):
            say(f"  {field['description']}", "dim")
        while True:
            text = await _ask_line(_label(name, field, name in required))
            if text is None:
                say("  → declined", "dim")
                return None
            value, problem = convert_answer(text, field, name in required)
            if problem is None:
                break
            say(f"  {problem}", "warning")
        if value is not None:
            answers[name] = value
    say(f"  → sent to '{server}'", "dim")
    return answers
