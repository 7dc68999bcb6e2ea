"""Importing the answering provider's SDK in a background thread as soon as the plan is known.

`import anthropic` alone takes most of a one-shot run's time before its first request, and the bundled
providers import their SDK only when they first call the model. Started here, the import overlaps
module resolution, mounting and the first turn's set-up (whenever they wait on files or the disk); the
provider's own import then finds the module loaded, or waits for the same import to finish. Only the SDK of
the provider that will answer (credentials present, lowest priority) is imported: a second SDK would
compete for the interpreter and delay the first.

The SDK's import builds thousands of classes, all long-lived: the cyclic garbage collector is paused while it
runs (it would rescan the growing heap over and over; about 12% of the import) and what the process holds
by then is moved out of its reach with ``gc.freeze()``, so later collections do not rescan it either. For the
same import, `sdk_finder.SDKFinder` finds the SDK's submodules with less per-module overhead than the standard
finder (same modules, same attributes); it answers only while the import runs.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .sdk_finder import SDKFinder

# Bundled provider module id -> (SDK package, environment variables any one of which lets it mount).
PROVIDER_SDKS: dict[str, tuple[str, tuple[str, ...]]] = {
    "provider-anthropic": ("anthropic", ("ANTHROPIC_API_KEY",)),
    "provider-openai": ("openai", ("OPENAI_API_KEY", "OPENAI_BASE_URL")),
}
DEFAULT_PRIORITY = 100

_started: set[str] = set()
_lock = threading.Lock()
_finder: SDKFinder | None = None


def _priority(config: dict[str, Any]) -> float:
    value = config.get("priority")
    try:
        return float(value) if value is not None and not isinstance(value, bool) else DEFAULT_PRIORITY
    except (TypeError, ValueError):
        return DEFAULT_PRIORITY


def answering_sdk(plan: dict[str, Any], environ: Mapping[str, str] | None = None) -> str | None:
    """The SDK package of the bundled provider that will most likely answer: among the plan's providers
    that can mount (an ``api_key``/``base_url`` in their config or one of their environment variables), the
    one with the lowest priority (the loop's rule). None when that is not a bundled SDK provider."""
    environ = os.environ if environ is None else environ
    candidates: list[tuple[float, int, str | None]] = []
    for position, entry in enumerate(plan.get("providers") or []):
        module_id = entry.get("module") if isinstance(entry, dict) else entry
        config = (entry.get("config") if isinstance(entry, dict) else None) or {}
        config = config if isinstance(config, dict) else {}
        sdk, variables = PROVIDER_SDKS.get(str(module_id), (None, ()))
        if sdk is not None and not (config.get("api_key") or config.get("base_url")
                                    or any(environ.get(name) for name in variables)):
            continue  # it will not mount
        candidates.append((_priority(config), position, sdk))
    return min(candidates)[2] if candidates else None


def _sdk_finder() -> SDKFinder:
    """The process's one SDKFinder, put at the front of sys.meta_path the first time (and left there: see
    SDKFinder on why it is never taken out)."""
    global _finder
    with _lock:
        if _finder is None:
            from .sdk_finder import SDKFinder

            _finder = SDKFinder()
            sys.meta_path.insert(0, _finder)
        return _finder


def start_sdk_import(plan: dict[str, Any]) -> threading.Thread | None:
    """Import the answering provider's SDK in a daemon thread (once per process); returns the thread."""
    sdk = answering_sdk(plan)
    if sdk is None or sdk in sys.modules:
        return None
    with _lock:
        if sdk in _started:
            return None
        _started.add(sdk)

    def work() -> None:
        finder = _sdk_finder()
        collecting = gc.isenabled()
        if collecting:
            gc.disable()
        finder.answer_for(sdk)
        try:
            importlib.import_module(sdk)
        except Exception:  # the provider imports it again when it needs it, and reports the failure then
            pass
        finally:
            finder.stop_answering(sdk)
            if collecting:
                gc.freeze()
                gc.enable()

    thread = threading.Thread(target=work, name=f"amplifier-import-{sdk}", daemon=True)
    thread.start()
    return thread
