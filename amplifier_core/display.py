"""The app-supplied system that shows hook ``user_message``s."""

from __future__ import annotations

from typing import Literal, Protocol


class DisplaySystem(Protocol):
    def show_message(
        self, message: str, level: Literal["info", "warning", "error"], source: str = "hook"
    ) -> None: ...
