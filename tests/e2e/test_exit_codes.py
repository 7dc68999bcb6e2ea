"""Exit codes of `amplifier run`: 1 for a provider failure after retries, 2 for anything the user must fix
(with a one-line error naming what and how, never a traceback). 0 and 130 are covered by the run and
interrupt tests."""

from __future__ import annotations

import json

import pytest
from fakeapi import Fault

from amplifier_cli.sessions.store import SessionStore


def _assert_clean_error(stderr: str) -> None:
    assert "Error:" in stderr and "Traceback" not in stderr, stderr


def test_server_errors_after_retries_exit_1_with_an_error_result(e2e_api) -> None:
    e2e_api.server.add(Fault.status(500, message="upstream exploded"), repeat=True)
    e2e_api.profile("fake-openai", provider="openai", tools=())
    result = e2e_api.run("run", "-P", "fake-openai", "-o", "json", "hello")
    assert result.returncode == 1, result.stderr
    assert len(e2e_api.server.requests) == 2  # first attempt + max_retries 1
    record = json.loads(result.stdout)
    assert record["status"] == "error" and "upstream exploded" in record["error"]
    assert "upstream exploded" in result.stderr


def test_rejected_key_exits_1_naming_the_key_variable(e2e_api) -> None:
    e2e_api.server.add(Fault.status(401, message="invalid x-api-key"), repeat=True)
    e2e_api.profile("fake", tools=())
    result = e2e_api.run("run", "-P", "fake", "hello")
    assert result.returncode == 1
    assert "ANTHROPIC_API_KEY" in result.stderr and result.stdout == ""
    assert len(e2e_api.server.requests) == 1  # authentication errors are not retried


@pytest.mark.parametrize(
    ("args", "profile_text", "expected"),
    [
        (["-P", "nope"], None, "nope"),
        (["-P", "broken"], "session: {orchestrator: loop-basic, context: context-simple}\ntoolz: []\n", "toolz"),
        (["-P", "scripted", "--provider", "nonesuch"], None, "nonesuch"),
        (["--resume", "0000dead"], None, "0000dead"),
        (["-P", "scripted", "--session-id", "../../escaped"], None, "--session-id must be a UUID"),
    ],
    ids=["missing-profile", "broken-profile", "unknown-provider", "missing-session", "session-id-not-a-uuid"],
)
def test_configuration_errors_exit_2_naming_the_problem(e2e, args, profile_text, expected) -> None:
    e2e.profile("scripted", provider="scripted", script=["hi"])
    if profile_text is not None:
        (e2e.project / ".amplifier" / "profiles" / "broken.yaml").write_text(profile_text)
    result = e2e.run("run", *args, "hello")
    assert result.returncode == 2, result.stderr
    _assert_clean_error(result.stderr)
    assert expected in result.stderr
    assert result.stdout == ""


def test_ambiguous_session_prefix_exits_2_listing_the_candidates(e2e) -> None:
    store = SessionStore(e2e.sessions_dir)
    for session_id in ("abcd0000-0000-4000-8000-000000000001", "abcd1111-0000-4000-8000-000000000002"):
        store.create(cwd=e2e.project, project=e2e.project, session_id=session_id, profile="scripted")
    e2e.profile("scripted", provider="scripted", script=["hi"])
    result = e2e.run("run", "--resume", "abcd", "hello")
    assert result.returncode == 2
    _assert_clean_error(result.stderr)
    assert "abcd0000-0000-4000-8000-000000000001" in result.stderr
    assert "abcd1111-0000-4000-8000-000000000002" in result.stderr


def test_no_usable_provider_exits_2_naming_the_keys_to_set(e2e) -> None:
    result = e2e.run("run", "-P", "minimal", "hello")  # bundled: anthropic or openai; clean_env removed every key
    assert result.returncode == 2
    _assert_clean_error(result.stderr)
    assert "ANTHROPIC_API_KEY" in result.stderr and "OPENAI_API_KEY" in result.stderr
    assert e2e.session_dirs() == []  # a session that never started leaves nothing behind


def test_machine_output_reports_a_configuration_error_as_a_result_record(e2e) -> None:
    result = e2e.run("run", "-P", "nope", "-o", "stream-json", "hello")
    assert result.returncode == 2
    record = json.loads(result.stdout)
    assert record["type"] == "result" and record["status"] == "error" and "nope" in record["error"]


def test_no_prompt_and_nothing_piped_exits_2(e2e) -> None:
    result = e2e.run("run", "-P", "demo")
    assert result.returncode == 2
    assert "no prompt" in result.stderr
