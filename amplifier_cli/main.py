"""Console entry point (placeholder until the CLI lands)."""

from __future__ import annotations


def main() -> None:
    print("amplifier 0.1.0")
