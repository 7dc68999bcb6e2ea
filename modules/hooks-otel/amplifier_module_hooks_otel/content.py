"""What of a conversation may leave the machine on a span.

Prompts, answers, tool arguments and tool results only when the user opted in (``capture_content: true`` or
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). Whatever text goes out, captured or not (error
messages too), is masked first: values under secret-named keys (``redact_secrets``), the patterns of
hooks-redaction when it is mounted (capability ``redaction.redact``), and every known secret value
(``amplifier_support.secret_values``: secret-named environment variables and capability ``secrets.values``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import unquote

from amplifier_core.utils import redact_secrets
from amplifier_support.secret_values import SecretValues

logger = logging.getLogger(__name__)

TRUNCATION_MARK = "…[truncated]"
HEADER_VARIABLES = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                    "OTEL_EXPORTER_OTLP_METRICS_HEADERS")


def header_secrets(configured: Mapping[str, str] | None, environ: Mapping[str, str]) -> dict[str, str]:
    """The exporter's header values (typically a collector token) as named secrets: the model's tools may see the
    variables, and what they print must not reach a span. ``KEY=value`` pairs, comma-separated, URL-encoded."""
    found: dict[str, str] = {}
    for variable in HEADER_VARIABLES:
        for pair in (environ.get(variable) or "").split(","):
            key, separator, value = pair.partition("=")
            if separator and value.strip():
                found[f"{variable}:{unquote(key.strip())}"] = unquote(value.strip())
    for key, value in (configured or {}).items():
        found[f"hooks-otel headers.{key}"] = value
    return found


class ContentPolicy:
    """Masks and cuts text for span attributes; ``captured`` answers None unless capture is on."""

    def __init__(self, capture: bool, max_length: int, secrets: SecretValues,
                 redact: Callable[[Any], Any] | None = None) -> None:
        self.capture = capture
        self.max_length = max_length
        self.secrets = secrets
        self.redact = redact

    def masked(self, value: Any) -> Any:
        value = redact_secrets(value)
        if self.redact is not None:
            try:
                value = self.redact(value)
            except Exception as error:  # a broken redactor must not stop the run; the secrets mask still applies
                logger.debug("hooks-otel: redaction.redact failed: %s", error)
        return self.secrets.mask(value)

    def text(self, value: Any) -> str:
        """``value`` as masked text (JSON for structures), cut to ``max_length`` characters."""
        masked = self.masked(value)
        text = masked if isinstance(masked, str) else json.dumps(masked, ensure_ascii=False, default=str)
        if len(text) > self.max_length:
            text = text[: self.max_length] + TRUNCATION_MARK
        return text

    def captured(self, value: Any) -> str | None:
        """``text(value)`` when content capture is on, else None (nothing of it leaves)."""
        if not self.capture or value is None:
            return None
        return self.text(value)


def text_message(role: str, text: str, finish_reason: str | None = None) -> list[dict[str, Any]]:
    """A one-message list in the GenAI conventions' message shape (``gen_ai.input/output.messages``)."""
    message: dict[str, Any] = {"role": role, "parts": [{"type": "text", "content": text}]}
    if finish_reason:
        message["finish_reason"] = finish_reason
    return [message]


def response_messages(response: Any, finish_reason: str | None) -> list[dict[str, Any]] | None:
    """A provider response (``ChatResponse`` as JSON) as GenAI output messages: its text and tool calls."""
    if not isinstance(response, dict):
        return None
    parts: list[dict[str, Any]] = []
    for block in response.get("content") or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and block.get("text"):
            parts.append({"type": "text", "content": block["text"]})
        elif block.get("type") == "tool_call":
            parts.append({"type": "tool_call", "id": block.get("id"), "name": block.get("name"),
                          "arguments": block.get("input", block.get("arguments"))})
    message: dict[str, Any] = {"role": "assistant", "parts": parts}
    if finish_reason:
        message["finish_reason"] = finish_reason
    return [message]
