"""What `amplifier acp` says before anything heavy is imported: the answer to `initialize`, the session modes and
the command line's options. Standard library only, so the first answer leaves within the interpreter's start."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import __version__

PROTOCOL_VERSION = 1
MODES = (  # id, name, description (sessions/plan_mode.py MODES)
    ("normal", "Normal", "Asks before file edits and commands; saved rules and --approval decide first"),
    ("accept-edits", "Accept edits", "File edits run without asking (protected places are still asked)"),
    ("plan", "Plan", "Reads and thinks; no tool call that writes or runs commands"),
)


class ParamsProblem(ValueError):
    """A request's parameters are wrong in a way the SDK's models do not catch."""


def initialize_result(params: Any) -> dict[str, Any]:
    """The answer to `initialize` as plain JSON: built without the SDK's models so it can be sent before they
    are imported (wire.py), and checked against them by the tests. A newer version than ours is answered with
    ours; the client decides whether it can speak it."""
    version = params.get("protocolVersion") if isinstance(params, dict) else None
    if isinstance(version, bool) or not isinstance(version, int) or not 0 <= version <= 65535:
        raise ParamsProblem("protocolVersion must be a whole number from 0 to 65535")
    return {
        "protocolVersion": PROTOCOL_VERSION,  # the one version we speak, whichever the client offered
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": True},
            "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
        },
        "authMethods": [],
        "agentInfo": {"name": "amplifier", "title": "Amplifier", "version": __version__},
    }


@dataclass
class AcpOptions:
    """`amplifier acp`'s options: they apply to every session the editor opens."""

    profile: str | None = None
    provider: str | None = None
    model: str | None = None
    sandbox: str | None = None
    approval: str = "ask"
    mode: str = "normal"
