"""`amplifier run` with the model's shell commands offline by default: a host on `sandbox.network.allow` in the
user's settings is reached through the proxy, an unlisted one is refused when nobody can answer (the tool result
names it), and a project's allow list counts only once the project is trusted. Real processes, the installed
command, a real HTTP server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import yaml
from fakeapi import ToolCall, Turn
from testkit.loopback_http import text_server


@pytest.fixture
def port() -> Iterator[int]:
    with text_server(b"reached-the-server\n") as port:
        yield port


def _curl_run(e2e_api, host: str, port: int, *options: str):
    e2e_api.server.add(Turn(tool_calls=[ToolCall("bash", {"command": f"curl -fsS -m 10 http://{host}:{port}/"})]))
    e2e_api.server.add(Turn(text="done"))
    e2e_api.profile("shell", tools=("tool-bash",), hooks=("hooks-streaming-ui",), user=True)
    result = e2e_api.run("run", "-P", "shell", *options, "fetch it")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    return e2e_api.server.requests[-1].last_tool_result_text


def _settings(path, hosts: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"sandbox": {"network": {"allow": hosts}}}), encoding="utf-8")


def test_a_host_on_the_users_allow_list_is_reached_and_an_unlisted_one_refused_headless(e2e_api, port: int) -> None:
    _settings(e2e_api.home / "config" / "settings.yaml", ["127.0.0.1"])
    assert "reached-the-server" in _curl_run(e2e_api, "127.0.0.1", port)
    for options in ((), ("--approval", "allow")):  # a blanket answer for tools is nobody answering for a host
        refused = _curl_run(e2e_api, "localhost", port, *options)
        assert "reached-the-server" not in refused, options
        assert "[network: refused localhost: not on sandbox.network.allow" in refused, options


def test_a_projects_allow_list_counts_only_once_the_project_is_trusted(e2e_api, port: int) -> None:
    _settings(e2e_api.project / ".amplifier" / "settings.yaml", ["127.0.0.1"])
    e2e_api.trust_project = False
    untrusted = _curl_run(e2e_api, "127.0.0.1", port)
    assert "reached-the-server" not in untrusted and "[network: refused 127.0.0.1" in untrusted
    e2e_api.trust_project = True
    assert "reached-the-server" in _curl_run(e2e_api, "127.0.0.1", port)
