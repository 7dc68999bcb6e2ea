"""Asking the user whether to trust a project: the list of what trusting would do (config/trust.py), then one
question. Shared by `amplifier trust` and the chat, which asks before anything of the project runs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from ..config.paths import AmplifierPaths
from ..config.trust import ProjectTrust, describe, trust_project

QUESTION = "Trust this project and let these take effect? [y]es / [N]o, continue without them: "


def ask_to_trust(paths: AmplifierPaths, state: ProjectTrust, *, read: Callable[[str], str] = input,
                 out: TextIO | None = None) -> bool:
    """Show what trusting would do and ask; record the trust on yes. No (the default), end of input or Ctrl-C
    keep the project untrusted."""
    stream = out or sys.stderr
    stream.write("\n".join(describe(state)) + "\n")
    stream.flush()
    try:
        answer = read(QUESTION)
    except (EOFError, KeyboardInterrupt):
        stream.write("\n")
        answer = ""
    if answer.strip().lower() not in ("y", "yes", "t", "trust"):
        stream.write("Not trusted: the project's servers, hooks, modules and settings above are ignored.\n")
        return False
    trust_project(paths, state)
    stream.write("Trusted. A change to any of these asks again.\n")
    return True
