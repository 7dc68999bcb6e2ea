"""Budgets end a run before it overspends: --max-total-tokens and --max-cost (and `budget:` in a profile or
settings) stop the turn after the running step with exit code 3 and `"stop_reason": "budget"`; a sub-agent's
spending counts against its parent; a cost limit on a model of unknown price refuses to start; the stopped
session can be resumed."""

from __future__ import annotations

import json

import yaml
from fakeapi import ToolCall, Turn, Usage


def _profile(e2e, name: str = "fake", *, extra: dict | None = None, tools: tuple[str, ...] = ("tool-filesystem",)):
    path = e2e.profile(name, tools=tools)
    if extra:
        document = yaml.safe_load(path.read_text())
        document.update(extra)
        path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def _script_write_then_done(server) -> None:
    server.add(Turn(tool_calls=[ToolCall("write_file", {"path": "a.txt", "content": "one"})],
                    usage=Usage(input_tokens=1000, output_tokens=100)), when_last_user_contains="write")
    server.add(Turn(text="Done.", usage=Usage(input_tokens=1200, output_tokens=10)),
               when_last_tool_result_contains="a.txt")


def test_max_total_tokens_stops_after_the_step_with_exit_3_and_the_json_reason(e2e_api) -> None:
    _profile(e2e_api)
    _script_write_then_done(e2e_api.server)
    result = e2e_api.run("run", "-P", "fake", "-o", "json", "--max-total-tokens", "1000", "write a.txt")
    assert result.returncode == 3, result.stderr
    record = json.loads(result.stdout)
    assert record["stop_reason"] == "budget" and record["status"] == "budget"
    assert record["budget"] == {"budget": "max_total_tokens", "limit": "1000", "used": "1100"}
    assert "token budget reached" in result.stderr
    assert len(e2e_api.server.requests) == 1  # the second call was never made

    # the transcript stays whole: resuming the session answers a new prompt
    e2e_api.server.add(Turn(text="Resumed fine."))
    resumed = e2e_api.run("run", "--resume", record["session_id"], "-P", "fake", "go on")
    assert resumed.returncode == 0, resumed.stderr
    assert "Resumed fine." in resumed.stdout
    last = e2e_api.server.requests[-1].json
    tool_uses = [block for message in last["messages"] if isinstance(message["content"], list)
                 for block in message["content"] if block.get("type") == "tool_use"]
    results = [block for message in last["messages"] if isinstance(message["content"], list)
               for block in message["content"] if block.get("type") == "tool_result"]
    assert len(tool_uses) == len(results)  # no tool call left unanswered


def test_max_cost_stops_with_exit_3_in_stream_json(e2e_api) -> None:
    _profile(e2e_api)
    _script_write_then_done(e2e_api.server)
    # claude-sonnet-4-6 at 3/15 USD per million: 1000 in + 100 out = 0.0045 USD
    result = e2e_api.run("run", "-P", "fake", "-o", "stream-json", "--max-cost", "0.004", "write a.txt")
    assert result.returncode == 3, result.stderr
    final = json.loads(result.stdout.strip().splitlines()[-1])
    assert final["stop_reason"] == "budget"
    assert final["budget"]["budget"] == "max_cost" and final["budget"]["limit"] == "0.004"
    assert final["budget"]["used"] == "0.004500"
    assert "cost budget reached" in result.stderr


def test_a_cost_limit_on_a_model_of_unknown_price_refuses_to_start(e2e_api) -> None:
    _profile(e2e_api)
    result = e2e_api.run("run", "-P", "fake", "-m", "fake-model-x", "--max-cost", "1", "hello")
    assert result.returncode == 2
    assert "fake-model-x" in result.stderr and "pricing:" in result.stderr and "Traceback" not in result.stderr
    assert e2e_api.server.requests == []


def test_a_profile_prices_its_model_and_holds_a_budget_block(e2e_api) -> None:
    _profile(e2e_api, extra={"pricing": {"fake-model-x": {"input": 1000, "output": 1000}},
                             "budget": {"max_cost": 0.5}})
    _script_write_then_done(e2e_api.server)
    result = e2e_api.run("run", "-P", "fake", "-m", "fake-model-x", "-o", "json", "write a.txt")
    assert result.returncode == 3, result.stderr
    record = json.loads(result.stdout)
    assert record["budget"] == {"budget": "max_cost", "limit": "0.5", "used": "1.100000"}


def test_a_settings_budget_applies_to_continue_and_a_wider_flag_does_not_widen_it(e2e_api) -> None:
    _profile(e2e_api)
    e2e_api.server.add(Turn(text="first", usage=Usage(input_tokens=10, output_tokens=5)))
    first = e2e_api.run("run", "-P", "fake", "hello")
    assert first.returncode == 0, first.stderr
    (e2e_api.project / ".amplifier" / "settings.yaml").write_text("budget:\n  max_total_tokens: 500\n")
    _script_write_then_done(e2e_api.server)
    result = e2e_api.run("continue", "-P", "fake", "-o", "json", "--max-total-tokens", "100000", "write a.txt")
    assert result.returncode == 3, result.stderr
    assert json.loads(result.stdout)["budget"]["limit"] == "500"


def test_a_sub_agents_spending_counts_against_the_parents_budget(e2e_api) -> None:
    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text("---\ndescription: helper\n---\nCHILD-MARK: help.\n")
    _profile(e2e_api, tools=("tool-filesystem", "tool-task"))
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "helper", "instruction": "write b.txt"})],
                    usage=Usage(input_tokens=100, output_tokens=10)),
               when=lambda request: "CHILD-MARK" not in request.system_text and request.last_user_text == "go")
    server.add(Turn(tool_calls=[ToolCall("write_file", {"path": "b.txt", "content": "two"})],
                    usage=Usage(input_tokens=5000, output_tokens=100)),
               when=lambda request: "CHILD-MARK" in request.system_text)
    server.add(Turn(text="child done", usage=Usage(input_tokens=10, output_tokens=1)),
               when=lambda request: "CHILD-MARK" in request.system_text, repeat=True)
    server.add(Turn(text="parent done"), when=lambda request: "CHILD-MARK" not in request.system_text, repeat=True)
    result = e2e_api.run("run", "-P", "fake", "-o", "json", "--max-total-tokens", "2000", "go")
    assert result.returncode == 3, result.stderr
    record = json.loads(result.stdout)
    assert record["budget"]["budget"] == "max_total_tokens" and int(record["budget"]["used"]) >= 5210
    parent_calls = [r for r in server.requests if "CHILD-MARK" not in r.system_text]
    assert len(parent_calls) == 1  # the parent never called the model again


def test_a_bad_budget_in_settings_exits_2_naming_file_and_key(e2e_api) -> None:
    _profile(e2e_api)
    (e2e_api.project / ".amplifier" / "settings.yaml").write_text("budget:\n  max_cost: -1\n")
    result = e2e_api.run("run", "-P", "fake", "hello")
    assert result.returncode == 2
    assert "settings.yaml" in result.stderr and "max_cost" in result.stderr and "Traceback" not in result.stderr


def test_max_turns_ends_the_turn_with_its_wrap_up_and_exit_3(e2e_api) -> None:
    _profile(e2e_api)
    e2e_api.server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "x"})]),
                       when_last_user_contains="write", repeat=True)
    e2e_api.server.add(Turn(text="Summary so far."), repeat=True)
    result = e2e_api.run("run", "-P", "fake", "-o", "json", "--max-turns", "1", "write a.txt")
    assert result.returncode == 3, result.stderr
    record = json.loads(result.stdout)
    assert record["stop_reason"] == "budget" and record["budget"]["budget"] == "max_turns"
    assert record["budget"]["limit"] == "1" and record["response"] == "Summary so far."
    assert "turn budget reached" in result.stderr
