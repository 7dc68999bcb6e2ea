"""`python -m amplifier_cli` = the `amplifier` command."""

from __future__ import annotations

from .main import main

main()
