"""A journaled request and neutral views of its conversation, so rules can match any of the three APIs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ANTHROPIC = "anthropic"
CHAT = "chat"
RESPONSES = "responses"
MODELS = "models"
UNKNOWN = "unknown"


@dataclass
class RecordedRequest:
    """One request as the server saw it. `api` is anthropic, chat, responses, models or unknown."""

    api: str
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw_body: bytes = b""
    rule: Any = None  # the Rule that answered, None when unmatched
    outcome: str = ""  # "turn", "fault:<kind>", "unmatched", "models", "bad_request"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def json(self) -> dict[str, Any]:
        """The parsed JSON body, or {} when the body was empty or not an object."""
        return self.body if isinstance(self.body, dict) else {}

    @property
    def stream(self) -> bool:
        return bool(self.json.get("stream"))

    @property
    def model(self) -> str:
        return str(self.json.get("model") or "fake-model")

    @property
    def retry_count(self) -> int:
        """The SDK's own retry counter (x-stainless-retry-count), 0 on a first attempt."""
        try:
            return int(self.headers.get("x-stainless-retry-count", "0"))
        except ValueError:
            return 0

    @property
    def include_usage(self) -> bool:
        options = self.json.get("stream_options") or {}
        return bool(isinstance(options, dict) and options.get("include_usage"))

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered in the request, whatever the API's tool shape."""
        names = []
        for tool in self.json.get("tools") or []:
            if not isinstance(tool, dict):
                continue
            name = tool.get("name") or (tool.get("function") or {}).get("name")
            if name:
                names.append(str(name))
        return names

    @property
    def system_text(self) -> str:
        """System/developer instructions as one string (Anthropic system, chat system msgs, instructions)."""
        body = self.json
        if self.api == ANTHROPIC:
            return _text_of(body.get("system"))
        if self.api == RESPONSES:
            parts = [_text_of(body.get("instructions"))]
            parts += [_text_of(i.get("content")) for i in _items(body.get("input")) if _role(i) in _SYSTEM_ROLES]
            return "\n".join(p for p in parts if p)
        return "\n".join(_text_of(m.get("content")) for m in _items(body.get("messages")) if _role(m) in _SYSTEM_ROLES)

    @property
    def user_texts(self) -> list[str]:
        """The text of every user-authored message, oldest first (tool results excluded)."""
        return [text for text in (_user_text(self.api, m) for m in self._conversation()) if text]

    @property
    def first_user_text(self) -> str:
        """The opening user prompt: stable across a session's requests, good for telling sessions apart."""
        texts = self.user_texts
        return texts[0] if texts else ""

    @property
    def last_user_text(self) -> str:
        """Text of the final message when the user wrote it; "" when the request ends with tool results."""
        conversation = self._conversation()
        if not conversation:
            return ""
        return _user_text(self.api, conversation[-1])

    @property
    def last_tool_result_text(self) -> str:
        """Text of the tool results that end the conversation ("" when it ends with a user prompt)."""
        results: list[str] = []
        for message in reversed(self._conversation()):
            texts = _tool_result_texts(self.api, message)
            if not texts:
                break
            results = texts + results
            if self.api == ANTHROPIC:
                break  # all results of a turn share one user message
        return "\n".join(results)

    def _conversation(self) -> list[dict[str, Any]]:
        body = self.json
        if self.api == RESPONSES:
            raw = body.get("input")
            if isinstance(raw, str):
                return [{"role": "user", "content": raw}]
            return [i for i in _items(raw) if _role(i) not in _SYSTEM_ROLES]
        return [m for m in _items(body.get("messages")) if _role(m) not in _SYSTEM_ROLES]


_SYSTEM_ROLES = ("system", "developer")


def _items(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _role(message: dict[str, Any]) -> str:
    return str(message.get("role") or "")


def _text_of(content: Any) -> str:
    """Join the text found in a content value: a string or a list of text-bearing parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") in ("text", "input_text", "output_text"):
                parts.append(str(part.get("text") or ""))
        return "".join(parts)
    return ""


def _user_text(api: str, message: dict[str, Any]) -> str:
    if _role(message) != "user":
        return ""
    return _text_of(message.get("content"))


def _tool_result_texts(api: str, message: dict[str, Any]) -> list[str]:
    if api == ANTHROPIC:
        if _role(message) != "user" or not isinstance(message.get("content"), list):
            return []
        return [_text_of(b.get("content")) for b in _items(message["content"]) if b.get("type") == "tool_result"]
    if api == CHAT:
        return [_text_of(message.get("content"))] if _role(message) == "tool" else []
    if message.get("type") == "function_call_output":
        output = message.get("output")
        return [output if isinstance(output, str) else _text_of(output)]
    return []
