"""`/compact [what to keep]`: replace the conversation with a summary the session's own model writes, now.

Asked through the kernel's APIs only (the mounted `context` and `providers`, `context:pre_compact` and
`context:post_compact` on the hooks, with `trigger: manual`),
never by importing a context module: any context manager that can get and set messages can be compacted. The
summary becomes one system message (metadata `source: compact-summary`) after the profile's system messages;
the provider call is an ordinary `complete`, so its tokens and cost count in `/cost` like any other request.
The first message after it carries the boundary flag (store/transcript.py): with the app's recording context the
transcript keeps the conversation before it, and resume continues from the boundary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from amplifier_core.message_models import response_text

SUMMARY_SOURCE = "compact-summary"
CHARS_PER_TOKEN = 4  # the same rough measure as the bundled context managers' estimates
TOOL_TEXT_LIMIT = 2_000  # characters of one tool result shown to the summarizer
SUMMARY_MAX_TOKENS = 2_048
SUMMARIZER = ("You summarize a conversation between a user and an AI assistant so that the assistant can continue "
              "it from the summary alone. Keep: the user's goals and constraints, decisions made, files and "
              "commands involved, what was done and what is still open. Be concise; plain text.")


class CompactionRefused(Exception):
    """Nothing to compact, or no summary could be made; the message says which."""


@dataclass
class CompactionReceipt:
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int
    summary: str

    def event_data(self) -> dict[str, Any]:
        """The `context:post_compact` payload (amplifier_support.compaction_receipt reads it)."""
        return {"trigger": "manual", "messages_before": self.messages_before, "messages_after": self.messages_after,
                "tokens_before": self.tokens_before, "tokens_after": self.tokens_after, "summary": self.summary,
                "message_count": self.messages_after, "token_count": self.tokens_after}


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """Characters / 4 of what the model reads (content and tool calls), as the context managers estimate."""
    total = 0
    for message in messages:
        content = message.get("content")
        total += len(content) if isinstance(content, str) else len(json.dumps(content, default=str))
        if message.get("tool_calls"):
            total += len(json.dumps(message["tool_calls"], default=str))
    return total // CHARS_PER_TOKEN


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict):
            if block.get("type") == "text":
                parts.append(str(block.get("text") or ""))
            elif block.get("type") == "tool_call":
                parts.append(f"[calls {block.get('name')}({json.dumps(block.get('input'), default=str)[:300]})]")
    return "\n".join(part for part in parts if part)


def conversation_text(messages: list[dict[str, Any]]) -> str:
    """The conversation as plain text for the summarizer (tool results cut to TOOL_TEXT_LIMIT characters)."""
    lines = []
    for message in messages:
        role = str(message.get("role"))
        text = _text_of(message.get("content"))
        if role == "tool":
            text = text if len(text) <= TOOL_TEXT_LIMIT else text[:TOOL_TEXT_LIMIT] + " [...]"
            lines.append(f"TOOL RESULT ({message.get('name') or 'tool'}): {text}")
        elif role == "system":
            lines.append(f"EARLIER SUMMARY: {text}")
        else:
            lines.append(f"{role.upper()}: {text}")
    return "\n\n".join(lines)


def _is_summary(message: dict[str, Any]) -> bool:
    metadata = message.get("metadata")
    return isinstance(metadata, dict) and metadata.get("source") == SUMMARY_SOURCE


def _marked_boundary(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of ``messages``, the first flagged as the compaction boundary and no other (an earlier
    compaction's flag on a kept instruction is dropped)."""
    from .store import COMPACT_BOUNDARY

    marked = []
    for index, message in enumerate(messages):
        metadata = {key: value for key, value in (message.get("metadata") or {}).items() if key != COMPACT_BOUNDARY}
        if index == 0:
            metadata[COMPACT_BOUNDARY] = True
        marked.append({**{key: value for key, value in message.items() if key != "metadata"},
                       **({"metadata": metadata} if metadata else {})})
    return marked


async def compact_now(coordinator: Any, provider_name: str | None, keep: str = "") -> CompactionReceipt:
    """Summarize the conversation with the session's provider and replace it with the summary."""
    from amplifier_core.message_models import ChatRequest, Message

    context = coordinator.get("context")
    messages = await context.get_messages()
    instructions = [m for m in messages if m.get("role") == "system" and not _is_summary(m)]
    conversation = [m for m in messages if m.get("role") != "system" or _is_summary(m)]
    if not any(m.get("role") in ("user", "assistant") for m in conversation):
        raise CompactionRefused("nothing to compact yet: the conversation has no messages")
    providers = coordinator.get("providers") or {}
    provider = providers.get(provider_name) if provider_name else None
    if provider is None and providers:
        provider = next(iter(providers.values()))
    if provider is None:
        raise CompactionRefused("no provider is mounted to write the summary")
    hooks = getattr(coordinator, "hooks", None)
    if hooks is not None:  # as a context manager's own compaction does; hooks read trigger "manual" and the ask
        await hooks.emit("context:pre_compact", {"trigger": "manual", "custom_instructions": keep,
                                                 "message_count": len(messages),
                                                 "token_count": estimate_tokens(messages)})
    ask = "Summarize the conversation below." + (f" Be sure to keep: {keep}." if keep else "")
    request = ChatRequest(messages=[Message(role="system", content=SUMMARIZER),
                                    Message(role="user", content=f"{ask}\n\n<conversation>\n"
                                                                 f"{conversation_text(conversation)}\n</conversation>")],
                          max_output_tokens=SUMMARY_MAX_TOKENS)
    try:
        response = await provider.complete(request)
    except Exception as error:  # any provider failure: the conversation stays as it was
        raise CompactionRefused(f"the model could not write the summary ({type(error).__name__}: {error}); "
                                "the conversation is unchanged") from None
    summary = response_text(response).strip()
    if not summary:
        raise CompactionRefused("the model returned an empty summary; the conversation is unchanged")
    summary_message = {"role": "system", "metadata": {"source": SUMMARY_SOURCE},
                       "content": "Summary of the conversation so far (made by /compact; continue from it):\n"
                                  + summary}
    kept = _marked_boundary([*instructions, summary_message])
    replace = getattr(context, "replace_after_compaction", None)  # the app's recording context: the file keeps all
    try:
        await (replace(kept) if callable(replace) else context.set_messages(kept))
    except OSError as error:  # the transcript could not take the summary: nothing changed
        raise CompactionRefused(f"{error.filename or 'the transcript'}: {error.strerror or error}; the "
                                "conversation is unchanged") from None
    receipt = CompactionReceipt(len(messages), len(kept), estimate_tokens(messages), estimate_tokens(kept), summary)
    if hooks is not None:
        await hooks.emit("context:post_compact", receipt.event_data())
    return receipt
