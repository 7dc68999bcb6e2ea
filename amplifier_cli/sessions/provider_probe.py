"""Mount one provider by itself (as a session would: same resolver, ${VAR} expansion, key store) to ask it
something cheap: `provider test` (one tiny completion) and `provider models` (its model list)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from amplifier_core import AmplifierSession

from ..config.env_refs import expand_for_mount
from ..config.key_store import load_key_store
from ..config.settings import Settings
from ..errors import ConfigError
from ..plans.module_preflight import no_provider_message


@asynccontextmanager
async def mounted_provider(settings: Settings, entry: dict[str, Any], profile_name: str) -> AsyncIterator[Any]:
    from ..plans.sources import make_resolver

    load_key_store(settings.paths)
    plan = {"session": {"orchestrator": {"module": "loop-basic"}, "context": {"module": "context-simple"}},
            "providers": [entry]}
    session = AmplifierSession(plan)
    await session.coordinator.mount("module-source-resolver", make_resolver(settings))
    session.loader.prepare_config = expand_for_mount
    from .native_modules import process_wrapper  # a native provider is confined here too (the default sandbox)

    session.loader.wrap_process = process_wrapper(None, str(settings.paths.cwd))
    try:
        await session.initialize()
        providers = session.coordinator.get("providers") or {}
        if not providers:
            raise ConfigError.single(no_provider_message(plan, profile_name), key_path="providers")
        yield next(iter(providers.values()))
    finally:
        await session.cleanup()


@dataclass
class ProbeResult:
    ok: bool
    kind: str  # ok | auth | network | model | rate-limit | other
    message: str
    model: str | None
    elapsed_ms: int


def classify(error: BaseException) -> str:
    """One word for what failed: the kernel's LLM error classes (providers map their SDK errors to them)."""
    from amplifier_core import llm_errors

    if isinstance(error, llm_errors.AuthenticationError):
        return "auth"
    if isinstance(error, llm_errors.NotFoundError):
        return "model"
    if isinstance(error, llm_errors.RateLimitError):
        return "rate-limit"
    if isinstance(error, llm_errors.NetworkError | llm_errors.LLMTimeoutError | llm_errors.ProviderUnavailableError
                  | OSError):
        return "network"
    if isinstance(error, llm_errors.InvalidRequestError) and "model" in str(error).lower():
        return "model"
    return "other"


async def probe(provider: Any) -> ProbeResult:
    """One small completion ("Reply with OK", a few tokens at most)."""
    from amplifier_core.message_models import ChatRequest, Message, response_text

    model = _model_of(provider)
    started = time.monotonic()
    try:
        response = await provider.complete(ChatRequest(messages=[Message(role="user", content="Reply with OK.")],
                                                       max_output_tokens=16))
    except Exception as error:  # every failure is the answer; classified for the one-line report
        return ProbeResult(False, classify(error), str(error).splitlines()[0] if str(error) else type(error).__name__,
                           model, int((time.monotonic() - started) * 1000))
    text = response_text(response) if hasattr(response, "content") else str(getattr(response, "text", "") or "")
    return ProbeResult(True, "ok", text.strip()[:60], model, int((time.monotonic() - started) * 1000))


def _model_of(provider: Any) -> str | None:
    config = getattr(provider, "config", None)
    return getattr(config, "default_model", None) or getattr(provider, "default_model", None)


async def model_names(provider: Any) -> list[dict[str, Any]]:
    models = await provider.list_models()
    rows = []
    for item in models:
        ident = getattr(item, "id", str(item))
        rows.append({"id": ident, "name": getattr(item, "display_name", None) or ident})
    return rows
