"""Client side of the control endpoints, for tests that run the server in another process."""

from __future__ import annotations

import json
import urllib.request
from typing import Any


def release_gate(base_url: str, name: str, timeout: float = 5.0) -> None:
    """Set the named gate (`chunk_gate:`/`gate:` in a script file) of a standalone server."""
    request = urllib.request.Request(f"{base_url.rstrip('/')}/_fakeapi/gates/{name}", method="POST")
    with urllib.request.urlopen(request, timeout=timeout):
        pass


def fetch_journal(base_url: str, timeout: float = 5.0) -> list[dict[str, Any]]:
    """The standalone server's request journal (api, method, path, headers, body, outcome, rule)."""
    with urllib.request.urlopen(f"{base_url.rstrip('/')}/_fakeapi/requests", timeout=timeout) as response:
        return json.load(response)
