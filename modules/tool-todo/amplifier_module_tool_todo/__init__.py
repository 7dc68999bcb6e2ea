"""tool-todo: the session's task list, so the model can plan multi-step work and the user can watch it.

The list is replaced whole on every write (no partial-update ambiguity) and saved as ``todo.json`` in the
session's directory (capability ``session.dir``) so it survives resume.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from amplifier_core import ToolResult
from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_support.capability_names import OBSERVABILITY_EVENTS, SESSION_DIR

__amplifier_module_type__ = "tool"

logger = logging.getLogger(__name__)

TODO_UPDATED_EVENT = "todo:updated"
STATUSES = ("pending", "in_progress", "completed")


class TodoConfig(ModuleConfig):
    file_name: str = "todo.json"
    max_items: int = 100


class TodoItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    content: str
    status: Literal["pending", "in_progress", "completed"] = "pending"
    activeForm: str | None = None  # upstream's key name


class TodoTool:
    """`todo {action: write|list, todos?}`: write replaces the whole list; list returns it."""

    name = "todo"
    description = (
        "Keep a task list for multi-step work. action=write replaces the WHOLE list with `todos` "
        "(each {content, status: pending|in_progress|completed, activeForm?}); action=list returns it. "
        "Keep at most one item in_progress; mark items completed as soon as they are done."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["write", "list", "create", "update"]},
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string"},
                        "status": {"type": "string", "enum": list(STATUSES)},
                        "activeForm": {"type": "string"},
                    },
                    "required": ["content", "status"],
                },
            },
        },
        "required": ["action"],
    }

    def __init__(self, config: TodoConfig, coordinator: Any) -> None:
        self._config = config
        self._coordinator = coordinator
        self._items: list[TodoItem] | None = None

    @property
    def items(self) -> list[TodoItem]:
        if self._items is None:
            self._items = self._load()
        return self._items

    def _path(self) -> Path | None:
        session_dir = self._coordinator.get_capability(SESSION_DIR)
        return Path(session_dir) / self._config.file_name if session_dir else None

    def _load(self) -> list[TodoItem]:
        path = self._path()
        if path is None or not path.exists():
            return []
        try:
            return [TodoItem.model_validate(item) for item in json.loads(path.read_text(encoding="utf-8"))]
        except (OSError, ValueError, ValidationError) as error:
            logger.warning("tool-todo: ignoring unreadable %s (%s)", path, error)
            return []

    def _save(self) -> None:
        path = self._path()
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps([item.model_dump(exclude_none=True) for item in self.items], indent=2)
        handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=".todo-", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as temp:
            temp.write(payload)
        os.replace(temp_name, path)

    def _summary(self) -> dict[str, Any]:
        counts = {status: sum(item.status == status for item in self.items) for status in STATUSES}
        return {"todos": [item.model_dump(exclude_none=True) for item in self.items], "counts": counts}

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        action = (input or {}).get("action", "list")
        if action == "list":
            return ToolResult(success=True, output=self._summary())
        if action not in ("write", "create", "update"):
            return _error(f"unknown action {action!r}: use 'write' (replace the list) or 'list'")
        raw = input.get("todos")
        if not isinstance(raw, list):
            return _error("'todos' must be a list of {content, status} objects (the complete new list)")
        if len(raw) > self._config.max_items:
            return _error(f"too many items ({len(raw)}); at most {self._config.max_items}")
        items: list[TodoItem] = []
        for index, item in enumerate(raw):
            try:
                items.append(TodoItem.model_validate(item))
            except ValidationError as error:
                first = error.errors()[0]
                field = ".".join(str(part) for part in first["loc"])
                where = f"todos[{index}].{field}" if field else f"todos[{index}]"
                return _error(f"invalid todo item at {where}: {first['msg']}")
        in_progress = sum(item.status == "in_progress" for item in items)
        if in_progress > 1:
            return _error(f"{in_progress} items are in_progress; keep at most one in_progress at a time")
        self._items = items
        try:
            self._save()
        except OSError as error:
            logger.warning("tool-todo: could not save the list: %s", error)
        summary = self._summary()
        await self._coordinator.hooks.emit(TODO_UPDATED_EVENT, {"todos": summary["todos"]})
        return ToolResult(success=True, output=summary)


def _error(message: str) -> ToolResult:
    return ToolResult(success=False, error={"message": message})


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    settings = parse_module_config(TodoConfig, config, "tool-todo")
    tool = TodoTool(settings, coordinator)
    await coordinator.mount("tools", tool, name=tool.name)
    coordinator.register_contributor(OBSERVABILITY_EVENTS, "tool-todo", lambda: [TODO_UPDATED_EVENT])
    return None
