"""provider-scripted: plays turns in order or by match, builds complete responses (thinking, text, tool
calls, usage), raises scripted errors, streams with the STREAMING.md events, and explains every script
mistake with its source and entry number."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from amplifier_module_provider_scripted import ScriptedProvider, mount

from amplifier_core import events
from amplifier_core.llm_errors import ConfigurationError, RateLimitError
from amplifier_core.message_models import ChatRequest, Message, response_text
from amplifier_core.module_config import ModuleConfigError
from amplifier_core.testing import MockCoordinator
from amplifier_core.validation import ProviderValidator

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "amplifier_module_provider_scripted"


async def mounted(config: dict[str, Any], coordinator: MockCoordinator | None = None) -> ScriptedProvider:
    coordinator = coordinator or MockCoordinator()
    await mount(coordinator, config)
    return coordinator.get("providers", "scripted")


def ask(*messages: tuple[str, str], stream: bool = False) -> ChatRequest:
    return ChatRequest(messages=[Message(role=role, content=text) for role, text in messages], stream=stream)


def record(coordinator: MockCoordinator) -> list[tuple[str, dict[str, Any]]]:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def capture(event: str, data: dict[str, Any]) -> None:
        seen.append((event, dict(data)))

    for name in events.ALL_EVENTS:
        coordinator.hooks.register(name, capture, name="recorder")
    return seen


async def test_turns_play_in_order_with_text_thinking_signature_and_tool_calls() -> None:
    provider = await mounted({"script": [
        {"thinking": "hmm", "signature": "sig", "text": "let me look",
         "tool_calls": [{"name": "read_file", "arguments": {"path": "a"}, "id": "t1"}]},
        "done",
    ]})
    first = await provider.complete(ask(("user", "q")))
    assert [block.type for block in first.content] == ["thinking", "text", "tool_call"]
    assert first.content[0].signature == "sig" and first.finish_reason == "tool_use"
    assert provider.parse_tool_calls(first)[0].model_dump() == {"id": "t1", "name": "read_file",
                                                                 "arguments": {"path": "a"}}
    second = await provider.complete(ask(("user", "q"), ("tool", "contents")))
    assert response_text(second) == "done" and second.tool_calls is None and second.finish_reason == "end_turn"


async def test_tool_calls_without_id_get_unique_ids() -> None:
    provider = await mounted({"script": [{"tool_calls": [{"name": "a"}, {"name": "a"}]}]})
    response = await provider.complete(ask(("user", "q")))
    assert len({call.id for call in response.tool_calls}) == 2
    assert [block.id for block in response.content] == [call.id for call in response.tool_calls]


async def test_match_picks_the_turn_whose_pattern_matches_the_last_user_or_tool_message() -> None:
    provider = await mounted({"script": [
        {"text": "ordered one"},
        {"text": "about files", "match": "file"},
        {"text": "regex hit", "match": r"error \d+"},
    ]})
    assert response_text(await provider.complete(ask(("user", "got error 42")))) == "regex hit"
    assert response_text(await provider.complete(ask(("user", "x"), ("tool", "file listing")))) == "about files"
    assert response_text(await provider.complete(ask(("user", "anything")))) == "ordered one"


async def test_match_ignores_injected_system_reminders() -> None:
    provider = await mounted({"script": [{"text": "seen the tool", "match": "tool output"}]})
    request = ask(("tool", "tool output"), ("user", "<system-reminder>be brief</system-reminder>"))
    assert response_text(await provider.complete(request)) == "seen the tool"


async def test_running_out_of_turns_is_a_configuration_error_naming_the_request() -> None:
    provider = await mounted({"script": ["only one", {"text": "never", "match": "zzz"}]})
    await provider.complete(ask(("user", "first")))
    with pytest.raises(ConfigurationError) as raised:
        await provider.complete(ask(("user", "second question")))
    message = str(raised.value)
    assert "no turn left for request #2 (last user message: 'second question')" in message
    assert "['zzz']" in message and "repeat_last" in message


async def test_repeat_last_replays_the_last_turn() -> None:
    provider = await mounted({"script": ["again"], "repeat_last": True})
    assert [response_text(await provider.complete(ask(("user", "q")))) for _ in range(3)] == ["again"] * 3


async def test_echo_when_done_quotes_each_message_back_once_the_script_is_over() -> None:
    provider = await mounted({"script": ["scripted first"], "echo_when_done": True})
    answers = [response_text(await provider.complete(ask(("user", question)))) for question in ("one", "two", "three")]
    assert answers[0] == "scripted first"
    assert 'You said: "two"' in answers[1] and 'You said: "three"' in answers[2]


async def test_echo_when_done_and_repeat_last_together_are_refused() -> None:
    with pytest.raises(ModuleConfigError, match="repeat_last or echo_when_done"):
        await mounted({"script": ["x"], "echo_when_done": True, "repeat_last": True})


async def test_error_turns_raise_the_named_kernel_error_and_are_consumed() -> None:
    provider = await mounted({"script": [{"error": {"type": "RateLimitError", "message": "busy"}}, "ok"]})
    with pytest.raises(RateLimitError, match="busy") as raised:
        await provider.complete(ask(("user", "q")))
    assert raised.value.retryable is True and raised.value.provider == "scripted"
    assert response_text(await provider.complete(ask(("user", "q")))) == "ok"


async def test_usage_is_scripted_or_estimated_from_text() -> None:
    provider = await mounted({"script": [
        {"text": "a", "usage": {"input_tokens": 10, "output_tokens": 3, "cost_usd": "0.002"}},
        {"text": "x" * 40},
    ]})
    scripted = (await provider.complete(ask(("user", "q")))).usage
    assert (scripted.input_tokens, scripted.output_tokens, scripted.total_tokens) == (10, 3, 13)
    assert str(scripted.cost_usd) == "0.002"
    estimated = (await provider.complete(ask(("user", "y" * 400)))).usage
    assert (estimated.input_tokens, estimated.output_tokens, estimated.cost_usd) == (100, 10, None)


async def test_stop_reason_and_model_are_reported() -> None:
    provider = await mounted({"script": [{"text": "cut", "stop_reason": "max_tokens"}]})
    request = ask(("user", "q"))
    request.model = "pretend-model"
    response = await provider.complete(request)
    assert response.finish_reason == "max_tokens" and response.metadata["model"] == "pretend-model"


async def test_streaming_emits_streaming_md_events_in_small_chunks_in_block_order() -> None:
    coordinator = MockCoordinator()
    seen = record(coordinator)
    provider = await mounted({"script": [{"thinking": "ponder", "text": "hello world",
                                          "tool_calls": [{"name": "t", "arguments": {"k": "v"}, "id": "c1"}]}],
                              "stream_chunk_size": 4}, coordinator)
    response = await provider.complete(ask(("user", "q"), stream=True))
    assert response.metadata["streamed"] is True
    names = [name for name, _ in seen]
    assert names[0] == "llm:request" and names[-1] == "llm:response"
    assert names[1:6] == ["llm:stream_block_start", "content_block:start", "thinking:delta", "thinking:delta",
                          "thinking:final"]
    text_deltas = [d["delta"] for n, d in seen if n == "content_block:delta" and d["block_type"] == "text"]
    assert text_deltas == ["hell", "o wo", "rld"]
    args = "".join(d["delta"] for n, d in seen if n == "content_block:delta" and d["block_type"] == "tool_call")
    assert json.loads(args) == {"k": "v"}
    starts = [d for n, d in seen if n == "content_block:start"]
    assert [(d["block_index"], d["block_type"]) for d in starts] == [(0, "thinking"), (1, "text"), (2, "tool_call")]
    assert starts[2]["tool_call_id"] == "c1" and starts[2]["tool_name"] == "t"
    ends = [d for n, d in seen if n == "content_block:end"]
    assert ends[1]["block"] == {"type": "text", "text": "hello world"}
    assert all(d["provider"] == "scripted" for n, d in seen if n.startswith(("content_block", "thinking")))
    assert "content_block:delta" not in [n for n, d in seen if d.get("block_index") == 0]


async def test_not_streaming_emits_no_deltas_and_says_so() -> None:
    coordinator = MockCoordinator()
    seen = record(coordinator)
    provider = await mounted({"script": ["plain"]}, coordinator)
    response = await provider.complete(ask(("user", "q")))
    assert response.metadata["streamed"] is False
    assert [name for name, _ in seen] == ["llm:request", "llm:response"]


async def test_script_file_yaml_relative_to_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "turns.yaml").write_text("- text: from yaml\n- tool_calls:\n  - name: bash\n    arguments: {}\n")
    coordinator = MockCoordinator()
    coordinator.register_capability("session.working_dir", str(tmp_path))
    provider = await mounted({"script_file": "turns.yaml"}, coordinator)
    assert response_text(await provider.complete(ask(("user", "q")))) == "from yaml"


async def test_script_file_json_with_a_script_key(tmp_path: Path) -> None:
    path = tmp_path / "turns.json"
    path.write_text(json.dumps({"script": [{"text": "from json"}]}))
    provider = await mounted({"script_file": str(path)})
    assert response_text(await provider.complete(ask(("user", "q")))) == "from json"


async def test_parse_error_in_a_file_names_the_file_and_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("- text: fine\n- txt: typo\n")
    with pytest.raises(ModuleConfigError, match=r"bad\.yaml, entry #2: unknown key 'txt' \(did you mean 'text'\?\)"):
        await mounted({"script_file": str(path)})


async def test_broken_yaml_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("- text: ok\n- text: [unclosed\n")
    with pytest.raises(ModuleConfigError, match=r"broken\.yaml is not valid YAML \(line \d+"):
        await mounted({"script_file": str(path)})


async def test_missing_script_file_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(ModuleConfigError, match=r"script_file .*nowhere\.yaml does not exist"):
        await mounted({"script_file": str(tmp_path / "nowhere.yaml")})


@pytest.mark.parametrize(("entry", "expected"), [
    ({"error": {"type": "RateLimitEror", "message": "m"}}, "did you mean 'RateLimitError'"),
    ({"tool_calls": [{"nme": "x"}]}, "unknown key 'tool_calls.0.nme' (did you mean 'name'?)"),
    ({"match": "x"}, "at least one of text, thinking, tool_calls or error"),
    ({"text": "t", "signature": "s"}, "signature is only valid together with thinking"),
])
async def test_inline_script_errors_name_the_entry_and_the_problem(entry: dict[str, Any], expected: str) -> None:
    with pytest.raises(ModuleConfigError) as raised:
        await mounted({"script": ["fine", entry]})
    assert "config `script`, entry #2" in str(raised.value) and expected in str(raised.value)


async def test_script_and_script_file_together_are_rejected() -> None:
    with pytest.raises(ModuleConfigError, match="not both"):
        await mounted({"script": ["a"], "script_file": "b.yaml"})


async def test_info_models_and_priority() -> None:
    provider = await mounted({"script": [], "priority": 5, "context_window": 1000, "max_output_tokens": 100})
    info = provider.get_info()
    assert info.id == "scripted" and info.display_name == "Scripted model (no LLM)"
    assert info.defaults["context_window"] == 1000 and provider.priority == 5
    [model] = await provider.list_models()
    assert (model.context_window, model.max_output_tokens) == (1000, 100)


async def test_provider_scripted_passes_the_provider_validator() -> None:
    result = await ProviderValidator().validate(PACKAGE_DIR)
    assert result.passed, [check for check in result.checks if not check.passed]
