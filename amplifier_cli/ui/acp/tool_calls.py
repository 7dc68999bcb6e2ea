"""How a tool call looks in the editor: its ACP kind (the icon), a title, the files it touches (the editor
follows along), and, when it ends, its content (the output, or a diff for a file edit).

Only the presentation is decided here, from the tool's name and arguments; what ran and what it returned come
from the session's `tool:pre` / `tool:post` events (session.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

KINDS: dict[str, str] = {
    "read_file": "read", "load_skill": "read", "mcp_read_resource": "read", "bash_output": "read",
    "write_file": "edit", "edit_file": "edit",
    "glob": "search", "grep": "search", "web_search": "search",
    "bash": "execute",
    "web_fetch": "fetch",
    "todo": "think", "task": "think",
}
EDIT_TOOLS = frozenset({"write_file", "edit_file"})
FILE_VERBS = {"read_file": "Read", "write_file": "Write", "edit_file": "Edit"}
PATH_ARGUMENTS = ("file_path", "path")
OUTPUT_LIMIT = 20_000  # characters of a tool's output shown in the editor (the model gets all of it)


def tool_kind(name: str) -> str:
    return KINDS.get(name, "other")


def tool_path(arguments: dict[str, Any], cwd: Path) -> Path | None:
    """The file or folder a call names, made absolute against the session's working directory."""
    for key in PATH_ARGUMENTS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            path = Path(value).expanduser()
            return path if path.is_absolute() else cwd / path
    return None


def tool_locations(path: Path | None) -> Any:
    """ACP locations for a call that names ``path`` (the editor follows along), None otherwise."""
    from acp.schema import ToolCallLocation

    return [ToolCallLocation(path=str(path))] if path is not None else None


def _short(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def tool_title(name: str, arguments: dict[str, Any], cwd: Path) -> str:
    """A line a person reads in the editor's tool list: what the call does, to what."""
    path = tool_path(arguments, cwd)
    shown = _relative(path, cwd) if path is not None else None
    verb = FILE_VERBS.get(name)
    if verb is not None and shown is not None:
        return f"{verb} {shown}"
    if name == "load_skill" and isinstance(arguments.get("name"), str):
        return f"Load skill {arguments['name']}"
    for key, label in (("command", "Run"), ("pattern", "Search"), ("url", "Fetch"), ("query", "Search the web:"),
                       ("agent", "Delegate to")):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            where = f" in {shown}" if shown and key == "pattern" else ""
            return f"{label} {_short(value)}{where}" if key != "command" else f"`{_short(value)}`"
    if name == "todo":
        return "Update the plan"
    return name


def _relative(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def result_text(result: Any) -> str:
    """The text a tool returned (its output, or its error message), cut for the editor."""
    if hasattr(result, "model_dump"):
        result = result.model_dump(mode="json")
    if isinstance(result, dict):
        output = result.get("output")
        if output is None and isinstance(result.get("error"), dict):
            output = result["error"].get("message")
        result = output
    if result is None:
        return ""
    text = result if isinstance(result, str) else str(result)
    if len(text) <= OUTPUT_LIMIT:
        return text
    return text[:OUTPUT_LIMIT] + f"\n… ({len(text) - OUTPUT_LIMIT:,} more characters)"


def result_succeeded(result: Any) -> bool:
    if hasattr(result, "model_dump"):
        result = result.model_dump(mode="json")
    return bool(result.get("success", True)) if isinstance(result, dict) else True
