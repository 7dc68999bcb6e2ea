"""The app-supplied system that answers hook ``ask_user`` requests."""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable


class ApprovalTimeoutError(Exception):
    """No answer arrived within the request's timeout."""


@runtime_checkable
class ApprovalSystem(Protocol):
    async def request_approval(
        self, prompt: str, options: list[str], timeout: float, default: Literal["allow", "deny"]
    ) -> str: ...
