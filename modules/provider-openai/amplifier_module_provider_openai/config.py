"""The provider's typed configuration, parsed once in mount(); unknown keys are rejected by the base class."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from amplifier_core.module_config import ModuleConfig

API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
DEFAULT_MODEL = "gpt-5.1"
# Sent as the key when a base_url points at a local OpenAI-compatible server and no key was given: the SDK
# insists on some key, and servers such as Ollama, vLLM, llama.cpp and LM Studio ignore it.
PLACEHOLDER_KEY = "not-needed"


class OpenAIConfig(ModuleConfig):
    api_key: str | None = None
    base_url: str | None = None
    api: Literal["responses", "chat"] = "responses"
    default_model: str = DEFAULT_MODEL
    # None: not sent, so the server's own limit applies (local servers reject limits above their context).
    max_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    reasoning_effort: str | None = None
    reasoning_summary: Literal["auto", "concise", "detailed"] | None = "auto"
    parallel_tool_calls: bool = True
    stream: bool = True
    timeout: float = Field(default=600.0, gt=0)
    max_retries: int = Field(default=5, ge=0)
    min_retry_delay: float = Field(default=1.0, ge=0)
    max_retry_delay: float = Field(default=60.0, ge=0)
    retry_jitter: bool = True
    priority: int = 100
