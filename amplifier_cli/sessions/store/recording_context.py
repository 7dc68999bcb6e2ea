"""Wraps whatever context manager the profile mounted so every message it receives is also appended to
the session's transcript as it arrives. Works with any ContextManager, ours or upstream's."""

from __future__ import annotations

from typing import Any

from .transcript import TranscriptWriter


class RecordingContext:
    def __init__(self, inner: Any, writer: TranscriptWriter) -> None:
        self._inner = inner
        self._writer = writer

    @property
    def inner(self) -> Any:
        return self._inner

    async def add_message(self, message: dict[str, Any]) -> None:
        await self._inner.add_message(message)
        self._writer.append(message)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        await self._inner.set_messages(messages)
        self._writer.rewrite(await self._inner.get_messages())

    async def replace_after_compaction(self, messages: list[dict[str, Any]]) -> None:
        """The context becomes ``messages`` (the first one marked as the boundary); the transcript keeps what it
        holds and gains them, so the conversation before the summary can still be shown, rewound to and forked."""
        self._writer.append_all(messages)  # first: when the disk refuses, the conversation stays as it was
        await self._inner.set_messages(messages)

    async def restore(self, messages: list[dict[str, Any]]) -> None:
        """Give the inner context the messages read from this transcript, without writing them back: on a
        plain resume the file already holds exactly these lines."""
        await self._inner.set_messages(messages)

    async def clear(self) -> None:
        await self._inner.clear()
        self._writer.rewrite(await self._inner.get_messages())

    async def get_messages_for_request(self, token_budget: int | None = None, provider: Any | None = None) -> Any:
        return await self._inner.get_messages_for_request(token_budget=token_budget, provider=provider)

    async def get_messages(self) -> list[dict[str, Any]]:
        return await self._inner.get_messages()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
