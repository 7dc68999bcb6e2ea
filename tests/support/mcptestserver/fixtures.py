"""pytest fixtures (registered in the repo's conftest.py): the test MCP server as a real process over Streamable HTTP
or HTTP+SSE, one per test worker: they hold no per-test state except the cancellation flag, which `was_cancelled`
tests read right away."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from warmstart import python_module_command

_SUPPORT = str(Path(__file__).resolve().parent.parent)


def start_http_server(transport: str, *arguments: str) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_SUPPORT, env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [*python_module_command("mcptestserver"), "--transport", transport, *arguments],
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


@pytest.fixture
def mcp_oauth_server() -> Iterator[str]:
    """URL of a Streamable HTTP MCP test server behind its own loopback OAuth authorization server (oauth.py),
    fresh for each test (it holds the registrations and tokens)."""
    process, url = start_http_server("oauth")
    yield url
    stop_server(process)


def browser_command() -> str:
    """A ``BROWSER`` value that runs the stand-in of browser.py: it follows the authorize redirect to the client's
    loopback callback, as a user who approves would."""
    return f"{sys.executable} -I -S {Path(__file__).with_name('browser.py')} %s"


def stdio_server_env() -> dict[str, str]:
    """Env entries a stdio server spec needs to import the test server."""
    return {"PYTHONPATH": _SUPPORT}
