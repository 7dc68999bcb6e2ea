"""The ``--module-config`` JSON the amplifier pytest plugin accepts, read without depending on its fixtures."""

from __future__ import annotations

import json
from typing import Any


def module_config_of(config: Any) -> dict[str, Any]:
    """The mount() config given with ``--module-config`` (``{}`` when absent or not a JSON object)."""
    try:
        raw = config.getoption("module_config", default=None)
    except ValueError:
        raw = None
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
