"""amplifier's app layer: commands, settings, profiles, sources, sessions and the REPL (policy)."""

from __future__ import annotations

__version__ = "0.1.0"
