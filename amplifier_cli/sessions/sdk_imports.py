"""Importing the answering provider's SDK in a background thread as soon as the plan is known.

`import anthropic` alone takes most of a one-shot run's time before its first request, and the bundled
providers import their SDK only when they first call the model. Started here, the import overlaps
module resolution, mounting and the first turn's set-up (whenever they wait on files or the disk); the
provider's own import then finds the module loaded, or waits for the same import to finish. Only the SDK of
the provider that will answer (credentials present; amplifier_support.provider_choice) is imported: a second SDK would
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
import sys
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..config.module_facts import entry_module_id, facts_of
from ..plans.answering_provider import answering_entry

if TYPE_CHECKING:
    from .sdk_finder import SDKFinder

_started: set[str] = set()
_lock = threading.Lock()
_finder: SDKFinder | None = None


def answering_sdk(plan: dict[str, Any], environ: Mapping[str, str] | None = None) -> str | None:
    """The SDK package (`[provider] sdk` of its amplifier-module.toml) of the provider that will answer: the
    shared rule over the plan's providers that can mount. None when that provider declares no SDK."""
    entry = answering_entry(plan, mountable_only=True, environ=environ)
    return facts_of(entry_module_id(entry)).sdk if entry is not None else None


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
