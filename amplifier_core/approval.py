"""The app-supplied system that answers hook ``ask_user`` requests."""

from __future__ import annotations

from typing import Literal, Protocol


class ApprovalTimeoutError(Exception):
    """No answer arrived within the request's timeout."""


class ApprovalSystem(Protocol):
    async def request_approval(
        self, prompt: str, options: list[str], timeout: float, default: Literal["allow", "deny"]
    ) -> str: ...
