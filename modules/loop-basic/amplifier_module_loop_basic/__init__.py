"""loop-basic: placeholder until the module lands."""

from __future__ import annotations

__amplifier_module_type__ = "orchestrator"
