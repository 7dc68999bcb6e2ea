"""`amplifier provider test|models`: mount the provider a session would use and ask it (a probe, its models)."""

from __future__ import annotations

import asyncio
from typing import Any

from ..config.paths import AmplifierPaths
from ..config.provider_settings import provider_id
from ..plans.provider_listing import provider_entry


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def test_provider(name: str | None, bundle: str | None = None, paths: AmplifierPaths | None = None) -> dict[str, Any]:
    from .provider_probe import mounted_provider, probe

    settings, entry, profile = provider_entry(name, bundle, _paths(paths))

    async def work() -> Any:
        async with mounted_provider(settings, entry, profile) as provider:
            return await probe(provider)

    result = asyncio.run(work())
    return {"provider": provider_id(entry["module"]), "ok": result.ok, "kind": result.kind,
            "message": result.message, "model": result.model, "elapsed_ms": result.elapsed_ms}


def list_models(name: str | None, bundle: str | None = None, paths: AmplifierPaths | None = None) -> list[dict]:
    from .provider_probe import model_names, mounted_provider

    settings, entry, profile = provider_entry(name, bundle, _paths(paths))

    async def work() -> list[dict[str, Any]]:
        async with mounted_provider(settings, entry, profile) as provider:
            return await model_names(provider)

    return asyncio.run(work())
