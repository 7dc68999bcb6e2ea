"""Upstream-shaped module repositories (tests/fixtures/amplifier-module-*) run their own test suites, which
subclass the kernel's behavioural suites, unchanged: a context whose private ``_should_compact`` takes
``(token_count, budget)``, and a provider whose ``list_models`` needs a local server."""

from __future__ import annotations

import ast
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def run_module_suite(pytester: pytest.Pytester, repository: str) -> pytest.RunResult:
    """Copy the module repository under pytester's directory and run its tests/ as its author would, with the
    two plugins such a suite uses (the kernel's and pytest-asyncio) named, and no other one loaded: the plugins this
    environment has for other reasons tripled the run's time."""
    copy = pytester.path / repository
    shutil.copytree(FIXTURES / repository, copy)
    return run_suite(pytester, copy / "tests", "-rA", "-W", "default")


def run_suite(pytester: pytest.Pytester, tests: Path, *args: str) -> pytest.RunResult:
    """pytest on ``tests`` in a new process with only the kernel's plugin and pytest-asyncio."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        return pytester.runpytest_subprocess(str(tests), "-p", "pytest_asyncio.plugin",
                                             "-p", "amplifier_core.pytest_plugin", "-p", "no:cacheprovider",
                                             "-o", "asyncio_default_fixture_loop_scope=function", *args)


def test_context_with_upstream_should_compact_signature_passes_the_behavioural_suite(pytester) -> None:
    result = run_module_suite(pytester, "amplifier-module-context-budgeted")
    result.assert_outcomes(passed=10)
    result.stdout.fnmatch_lines(["*PASSED*test_internal_should_compact_returns_bool*"])


@pytest.fixture
def refusing_host() -> Iterator[str]:
    """A loopback port held by a socket that never listens: every connection to it is refused."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{held.getsockname()[1]}"


class _Tags(BaseHTTPRequestHandler):
    body = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def local_server() -> Iterator[callable]:
    """Start a loopback server answering every GET with the given body; returns its URL."""
    servers: list[ThreadingHTTPServer] = []

    def start(body: bytes) -> str:
        handler = type("Handler", (_Tags,), {"body": body})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_provider_whose_list_models_needs_an_absent_server_passes_as_not_checkable_offline(
    pytester, monkeypatch, refusing_host
) -> None:
    monkeypatch.setenv("LOCAL_SERVER_HOST", refusing_host)
    result = run_module_suite(pytester, "amplifier-module-provider-local-server")
    result.assert_outcomes(passed=5, warnings=1)
    result.stdout.fnmatch_lines(["*not checkable offline*"])


def test_provider_suite_checks_list_models_when_the_server_answers(pytester, monkeypatch, local_server) -> None:
    monkeypatch.setenv("LOCAL_SERVER_HOST", local_server(json.dumps({"models": [{"name": "tiny:1b"}]}).encode()))
    run_module_suite(pytester, "amplifier-module-provider-local-server").assert_outcomes(passed=5)


def test_provider_suite_fails_list_models_that_breaks_on_a_reachable_server(pytester, monkeypatch,
                                                                          local_server) -> None:
    monkeypatch.setenv("LOCAL_SERVER_HOST", local_server(b"this is not json"))
    result = run_module_suite(pytester, "amplifier-module-provider-local-server")
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["*FAILED*test_list_models_returns_list*"])


def _write_repository(root: Path, repository: str, package: str, source: str, base: str) -> None:
    (root / repository / package).mkdir(parents=True)
    (root / repository / package / "__init__.py").write_text(source)
    (root / repository / "tests").mkdir()
    (root / repository / "tests" / "test_behavioral.py").write_text(
        f"from amplifier_core.validation.behavioral import {base}\n\n\nclass TestIt({base}):\n    pass\n")


def test_hook_suite_mounts_the_module_for_every_test_so_its_handlers_see_the_events(pytester) -> None:
    seen = pytester.path / "seen.txt"
    source = ("from pathlib import Path\n"
              "from amplifier_core import HookResult\n\n"
              "async def record(event, data):\n"
              f"    with Path({str(seen)!r}).open('a') as out:\n"
              "        out.write(repr(data) + '\\n')\n"
              "    return HookResult()\n\n"
              "async def mount(coordinator, config):\n"
              "    coordinator.hooks.register('test:event', record, name='record')\n")
    _write_repository(pytester.path, "amplifier-module-hooks-record", "amplifier_module_hooks_record", source,
                      "HookBehaviorTests")
    result = run_suite(pytester, pytester.path / "amplifier-module-hooks-record" / "tests", "-k", "not malformed")
    result.assert_outcomes(passed=6, deselected=1)
    # the coordinator-only tests emitted test:event to the mounted module: twice with data 'test', once empty
    received = [ast.literal_eval(line).get("data") for line in seen.read_text().splitlines()]
    assert sorted(received, key=str) == [None, "test", "test"]


def test_hook_suite_mount_failure_fails_only_the_tests_that_need_the_mount(pytester) -> None:
    source = "async def mount(coordinator, config):\n    raise RuntimeError('needs config')\n"
    _write_repository(pytester.path, "amplifier-module-hooks-needy", "amplifier_module_hooks_needy", source,
                      "HookBehaviorTests")
    result = run_suite(pytester, pytester.path / "amplifier-module-hooks-needy" / "tests")
    result.assert_outcomes(passed=4, errors=3)  # mount_succeeds and the two cleanup tests name hook_cleanup
