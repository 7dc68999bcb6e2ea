"""OpenTelemetry from the user's environment: an OTLP endpoint in OTEL_EXPORTER_OTLP_ENDPOINT (or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) mounts the bundled hooks-otel, which reads the same variables.

The variables are the user's own, like their API keys, so no trust question applies. An endpoint that a project
ships (in its profile or settings) is a different matter: those files take effect only once the project is
trusted (config/trust.py). A plan that already mounts hooks-otel is left as it is, config and all.
OTEL_SDK_DISABLED=true, the SDK's standard off switch, keeps the module out.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

OTEL_MODULE = "hooks-otel"
ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
DISABLED_VARIABLE = "OTEL_SDK_DISABLED"


def otel_requested(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment names an OTLP endpoint and does not turn the SDK off."""
    source = os.environ if environ is None else environ
    if (source.get(DISABLED_VARIABLE) or "").strip().lower() == "true":
        return False
    return any((source.get(name) or "").strip() for name in ENDPOINT_VARIABLES)


def apply_otel_environment(plan: dict[str, Any], environ: Mapping[str, str] | None = None) -> None:
    """Add hooks-otel to ``plan``'s hooks when the environment asks for telemetry and the plan lacks it."""
    if not otel_requested(environ):
        return
    hooks = list(plan.get("hooks") or [])
    if any(isinstance(entry, dict) and entry.get("module") == OTEL_MODULE for entry in hooks):
        return
    plan["hooks"] = [*hooks, {"module": OTEL_MODULE}]
