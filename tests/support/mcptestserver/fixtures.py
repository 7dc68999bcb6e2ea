"""pytest fixtures (registered in the repo's conftest.py): the test MCP server as a real process over Streamable HTTP
or HTTP+SSE, one per test worker: they hold no per-test state except the cancellation flag, which `was_cancelled`
tests read right away."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from warmstart import python_module_command

_SUPPORT = str(Path(__file__).resolve().parent.parent)


def start_http_server(transport: str) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_SUPPORT, env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [*python_module_command("mcptestserver"), "--transport", transport],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, start_new_session=True,
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    if not url.startswith("http://"):
        process.kill()
        raise RuntimeError(f"the MCP test server did not start (said {url!r})")
    return process, url


def stop_server(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def mcp_http_server() -> Iterator[str]:
    """URL of a Streamable HTTP MCP test server."""
    process, url = start_http_server("http")
    yield url
    stop_server(process)


@pytest.fixture(scope="session")
def mcp_sse_server() -> Iterator[str]:
    """URL of an HTTP+SSE (old transport) MCP test server."""
    process, url = start_http_server("sse")
    yield url
    stop_server(process)


def stdio_server_env() -> dict[str, str]:
    """Env entries a stdio server spec needs to import the test server."""
    return {"PYTHONPATH": _SUPPORT}
