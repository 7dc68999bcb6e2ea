"""Getting the slow imports out of the way while the user types: the kernel and the app's session layer
first (the session is opened as soon as they are in), then the SDK of every provider the profile mounts (as
each declares it). A provider that asks for its SDK before the warm-up finished just waits for the same import."""

from __future__ import annotations

import importlib
import threading
from concurrent.futures import Future
from typing import Any

from ...config.module_facts import entry_module_id, facts_of


def provider_sdks(plan: dict[str, Any]) -> list[str]:
    """The SDK packages the plan's providers declare (`[provider] sdk` in their amplifier-module.toml)."""
    names = []
    for entry in plan.get("providers") or []:
        sdk = facts_of(entry_module_id(entry)).sdk
        if sdk and sdk not in names:
            names.append(sdk)
    return names


def _plan_sdks(request: Any, paths: Any) -> list[str]:
    from ...config.settings import load_settings
    from ...plans.plan import build_plan

    built = build_plan(load_settings(paths), request.profile, provider=request.provider, model=request.model,
                       paths=paths)
    return provider_sdks(built.plan)


def start_warmup(request: Any, paths: Any) -> Future[None]:
    """Start the warm-up thread; the returned future resolves once the session layer is imported (it never
    fails: any error shows up again, properly reported, when the session is opened)."""
    core_ready: Future[None] = Future()

    def work() -> None:
        sdks: list[str] = []
        try:
            importlib.import_module("amplifier_cli.sessions.factory")
            importlib.import_module("amplifier_cli.plans.sources")
            sdks = _plan_sdks(request, paths)
        except Exception:
            pass
        finally:
            core_ready.set_result(None)
        for name in sdks:
            try:
                importlib.import_module(name)
            except Exception:
                pass

    threading.Thread(target=work, name="amplifier-warmup", daemon=True).start()
    return core_ready
