"""A tool-using one-shot `amplifier run` in each output format: text (only the answer on a non-terminal stdout),
json (one object) and stream-json (one object per line, nothing else on stdout)."""

from __future__ import annotations

import json

import pytest
from fakeapi import ToolCall, Turn, Usage

WRITE = ToolCall("write_file", {"file_path": "out.txt", "content": "hello\n"})
SCRIPTED_TURNS = [
    {"tool_calls": [{"name": "write_file", "arguments": {"file_path": "out.txt", "content": "hello\n"}}]},
    {"text": "All done: out.txt written.", "match": "out.txt"},
]


def _script_tool_run(server) -> None:
    server.add(Turn(tool_calls=[WRITE]), when_last_user_contains="write")
    server.add(
        Turn(text_chunks=["All done: ", "out.txt ", "written."], usage=Usage(input_tokens=30, output_tokens=6)),
        when_last_tool_result_contains="out.txt",
    )


def test_text_run_prints_only_the_final_answer_on_stdout_and_progress_on_stderr(e2e_api) -> None:
    _script_tool_run(e2e_api.server)
    e2e_api.profile("fake")
    result = e2e_api.run("run", "-P", "fake", "please write the file")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "All done: out.txt written.\n"
    assert (e2e_api.project / "out.txt").read_text() == "hello\n"
    assert "anthropic" in result.stderr and "write_file" in result.stderr  # provider line and tool progress
    second = e2e_api.server.requests[1]
    assert "Created out.txt" in second.last_tool_result_text
    assert "SYSTEM-MARKER" in second.system_text


def test_json_run_prints_one_object_with_session_status_response_usage_model_duration_and_turns(e2e_api) -> None:
    _script_tool_run(e2e_api.server)
    e2e_api.profile("fake-openai", provider="openai", provider_config={"default_model": "gpt-e2e"})
    result = e2e_api.run("run", "-P", "fake-openai", "-o", "json", "please write the file")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)  # the whole of stdout is one JSON document
    assert {"session_id", "status", "response", "usage", "model", "duration_ms", "num_turns"} <= set(record)
    assert record["status"] == "success"
    assert record["response"] == "All done: out.txt written."
    assert record["provider"] == "openai" and record["model"] == "gpt-e2e"
    assert record["num_turns"] == 2
    assert record["usage"]["input_tokens"] >= 30 and record["usage"]["output_tokens"] >= 6
    assert isinstance(record["duration_ms"], int) and record["duration_ms"] > 0
    assert (e2e_api.sessions_dir / record["session_id"] / "metadata.json").exists()
    assert (e2e_api.project / "out.txt").read_text() == "hello\n"


def test_json_run_names_the_provider_that_answered_when_several_are_mounted(e2e_api) -> None:
    for _ in range(2):
        e2e_api.server.add(Turn(text_chunks=["answered"]), when_last_user_contains="which")
    e2e_api.profile("two", provider="anthropic", provider_config={"default_model": "claude-e2e"}, tools=(),
                    extra_providers=[{"module": "provider-openai", "config": {"default_model": "gpt-e2e"}}])
    first = json.loads(e2e_api.run("run", "-P", "two", "-o", "json", "which one").stdout)
    second = json.loads(e2e_api.run("run", "-P", "two", "--provider", "openai", "-o", "json", "which one").stdout)
    assert (first["provider"], first["model"]) == ("anthropic", "claude-e2e")
    assert second.get("error") is None, second
    assert (second["provider"], second["model"], second["response"]) == ("openai", "gpt-e2e", "answered")


def _stream_records(stdout: str) -> list[dict]:
    lines = stdout.splitlines()
    assert lines, "stream-json printed nothing"
    records = []
    for number, line in enumerate(lines, start=1):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pytest.fail(f"stdout line {number} is not JSON: {line!r}")
        assert isinstance(records[-1], dict) and "type" in records[-1], line
    return records


def _assert_stream(records: list[dict], *, profile: str, model: str) -> None:
    init, result = records[0], records[-1]
    assert init["type"] == "init" and result["type"] == "result"
    assert init["profile"] == profile and init["model"] == model
    assert "write_file" in init["tools"]
    types = [record["type"] for record in records]
    assert {"text_delta", "tool_call", "tool_result", "usage"} <= set(types)
    assert types.index("tool_call") < types.index("tool_result") < types.index("text_delta")
    call = records[types.index("tool_call")]
    assert call["name"] == "write_file" and call["input"] == {"file_path": "out.txt", "content": "hello\n"}
    tool_result = records[types.index("tool_result")]
    assert tool_result["id"] == call["id"] and tool_result["success"] is True
    deltas = "".join(record["text"] for record in records if record["type"] == "text_delta")
    assert deltas == result["response"] == "All done: out.txt written."
    assert result["status"] == "success" and result["num_turns"] == 2
    assert {record.get("session_id") for record in records} == {init["session_id"]}


def test_stream_json_from_provider_scripted_is_one_json_object_per_line(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=SCRIPTED_TURNS)
    result = e2e.run("run", "-P", "scripted", "-o", "stream-json", "please write the file")
    assert result.returncode == 0, result.stderr
    _assert_stream(_stream_records(result.stdout), profile="scripted", model="scripted")
    assert (e2e.project / "out.txt").read_text() == "hello\n"


def test_stream_json_against_the_chat_completions_api_is_one_json_object_per_line(e2e_api) -> None:
    _script_tool_run(e2e_api.server)
    e2e_api.profile("fake-chat", provider="openai", provider_config={"api": "chat", "default_model": "gpt-e2e"})
    result = e2e_api.run("run", "-P", "fake-chat", "--output-format", "stream-json", "please write the file")
    assert result.returncode == 0, result.stderr
    assert {request.api for request in e2e_api.server.requests} == {"chat"}
    records = _stream_records(result.stdout)
    _assert_stream(records, profile="fake-chat", model="gpt-e2e")
    usage = [record for record in records if record["type"] == "usage"]
    assert usage[-1]["usage"]["input_tokens"] == 30


def test_text_run_on_a_terminal_streams_the_answer_once(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=SCRIPTED_TURNS)
    status, output = e2e.run_in_terminal("run", "-P", "scripted", "please write the file")
    assert status == 0, output
    assert output.count("All done: out.txt written.") == 1  # streamed by the UI, not printed again by the app
    assert "write_file" in output and "[scripted] scripted" in output


NOISY_HOOK = '''
"""Test hook that writes to stdout from Python and from a child process on every tool call."""
import subprocess
import sys

from amplifier_core import HookResult

__amplifier_module_type__ = "hook"


async def mount(coordinator, config=None):
    async def noisy(event, data):
        print("noise from a hook's print")
        sys.stdout.flush()
        subprocess.run(["echo", "noise from a child process"], check=True)
        return HookResult()

    return coordinator.hooks.register("tool:pre", noisy, name="e2e-noisy")
'''


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_machine_output_stays_pure_when_modules_write_to_stdout(e2e, fmt) -> None:
    package = e2e.project / ".amplifier" / "modules" / "hooks-e2e-noisy" / "amplifier_module_hooks_e2e_noisy"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(NOISY_HOOK.lstrip())
    e2e.profile("noisy", provider="scripted", script=SCRIPTED_TURNS, hooks=("hooks-streaming-ui", "hooks-e2e-noisy"),
                hook_config={"hooks-streaming-ui": {"stream": "stdout"}})
    result = e2e.run("run", "-P", "noisy", "-o", fmt, "please write the file")
    assert result.returncode == 0, result.stderr
    records = _stream_records(result.stdout)  # every stdout line is a JSON record
    assert records[-1]["type"] == "result" and records[-1]["response"] == "All done: out.txt written."
    assert "noise from a hook's print" in result.stderr and "noise from a child process" in result.stderr
    assert "write_file" in result.stderr  # the UI's progress, moved off stdout


def test_a_retried_attempts_deltas_are_discarded_by_the_documented_rule(e2e_api) -> None:
    from fakeapi import Fault, Turn

    e2e_api.server.add(Fault.stream_cut(Turn(text_chunks=["FAILED-ATTEMPT ", "text that never ends"])))
    e2e_api.server.add(Turn(text_chunks=["The real ", "answer."]))
    e2e_api.profile("retrying", tools=())
    result = e2e_api.run("run", "-P", "retrying", "-o", "stream-json", "hi")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    types = [record["type"] for record in records]
    assert "retry" in types
    failed = [r["text"] for r in records[: types.index("retry")] if r["type"] == "text_delta"]
    assert "".join(failed).startswith("FAILED-ATTEMPT")  # the failed attempt really streamed
    assert records[types.index("retry")]["discard_attempt_text"] is True
    kept: list[str] = []
    attempt: list[str] = []
    for record in records:  # a consumer following docs/EVENTS.md
        if record["type"] == "retry" and record["discard_attempt_text"]:
            attempt.clear()
        elif record["type"] in ("usage", "tool_result"):
            kept, attempt = kept + attempt, []
        elif record["type"] == "text_delta":
            attempt.append(record["text"])
    assert "".join(kept) == records[-1]["response"] == "The real answer."
