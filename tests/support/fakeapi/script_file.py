"""Load a script file (YAML or JSON) into server rules, for the standalone `python -m fakeapi`.

The format is described in README.md next to this file; errors name the entry and key at fault.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .script import Fault, ToolCall, Turn, Usage
from .server import FakeAPIServer

TURN_KEYS = {
    "text",
    "text_chunks",
    "thinking",
    "signature",
    "redacted_thinking",
    "tool_calls",
    "usage",
    "stop_reason",
    "chunk_delay",
    "chunk_gate",
    "model",
    "ping",
}
RULE_KEYS = {
    "when_last_user_contains",
    "when_last_tool_result_contains",
    "when_first_user_contains",
    "api",
    "times",
    "repeat",
    "delay",
    "gate",
}
FAULT_KINDS = {"status", "stream_error", "stream_cut", "malformed_sse", "drop"}


class ScriptError(ValueError):
    """A script file that cannot be loaded; the message says which entry and key, and what is allowed."""


def load_script(path: Path, server: FakeAPIServer) -> None:
    """Read `path` and add its rules to `server` (and its `models` list when given)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        data = json.loads(text)
    else:
        import yaml  # only the standalone runner needs YAML

        data = yaml.safe_load(text)
    if isinstance(data, dict):
        unknown = set(data) - {"rules", "models"}
        if unknown:
            raise ScriptError(f"{path}: unknown top-level key(s) {sorted(unknown)}; use 'rules' and 'models'")
        if "models" in data:
            server.models = [str(m) for m in data["models"]]
        entries = data.get("rules") or []
    else:
        entries = data or []
    if not isinstance(entries, list):
        raise ScriptError(f"{path}: expected a list of rules (or a mapping with 'rules'), got {type(entries).__name__}")
    for number, entry in enumerate(entries, start=1):
        add_entry(server, entry, where=f"{path} rule #{number}")


def add_entry(server: FakeAPIServer, entry: Any, where: str) -> None:
    """Add one rule given as a mapping: turn keys or a `fault`, plus optional matcher keys."""
    if not isinstance(entry, dict):
        raise ScriptError(f"{where}: expected a mapping, got {entry!r}")
    unknown = set(entry) - TURN_KEYS - RULE_KEYS - {"fault"}
    if unknown:
        raise ScriptError(
            f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(TURN_KEYS | RULE_KEYS | {'fault'})}"
        )
    rule_options = {k: entry[k] for k in RULE_KEYS if k in entry}
    gate_name = rule_options.pop("gate", None)
    gate = server.gate(str(gate_name)) if gate_name is not None else None
    if "fault" in entry:
        extra = set(entry) & TURN_KEYS
        if extra:
            raise ScriptError(f"{where}: a fault entry cannot also have turn keys {sorted(extra)}")
        reply: Turn | Fault = _fault(server, entry["fault"], where)
    else:
        reply = _turn(server, entry, where)
    server.add(reply, gate=gate, **rule_options)


def _turn(server: FakeAPIServer, entry: dict[str, Any], where: str) -> Turn:
    fields = {k: v for k, v in entry.items() if k in TURN_KEYS}
    try:
        if "tool_calls" in fields:
            fields["tool_calls"] = [_tool_call(call) for call in fields["tool_calls"]]
        if "usage" in fields:
            fields["usage"] = Usage(**fields["usage"])
        if "chunk_gate" in fields:
            fields["chunk_gate"] = server.gate(str(fields["chunk_gate"]))
        return Turn(**fields)
    except (TypeError, ValueError) as error:
        raise ScriptError(f"{where}: {error}") from error


def _tool_call(call: Any) -> ToolCall:
    if not isinstance(call, dict) or "name" not in call:
        raise ValueError(f"tool call {call!r} needs at least a 'name' (and usually 'arguments')")
    return ToolCall(**call)


def _fault(server: FakeAPIServer, spec: Any, where: str) -> Fault:
    if isinstance(spec, str):
        spec = {"kind": spec}
    if isinstance(spec, int):
        spec = {"kind": "status", "status": spec}
    if not isinstance(spec, dict) or spec.get("kind", "status") not in FAULT_KINDS:
        raise ScriptError(f"{where}: fault must be one of {sorted(FAULT_KINDS)} (or a status code), got {spec!r}")
    options = dict(spec)
    kind = options.pop("kind", "status")
    try:
        if "turn" in options:
            options["turn"] = _turn(server, options["turn"], where + " fault turn")
        if kind == "status":
            return Fault.status(int(options.pop("status", 500)), **options)
        return getattr(Fault, kind)(**options)
    except TypeError as error:
        raise ScriptError(f"{where}: bad option for fault {kind!r}: {error}") from error
