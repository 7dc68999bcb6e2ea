"""Message conversion in both directions, for every block type, plus tool-sequence repair and caching."""

from __future__ import annotations

import re
from decimal import Decimal

from amplifier_module_provider_anthropic.convert import (
    add_cache_breakpoints,
    block_from_wire,
    block_to_wire,
    chat_response_from_wire,
    final_tool_turn_lacks_thinking,
    messages_to_wire,
    tool_choice_to_wire,
    tools_to_wire,
    usage_from_wire,
)

from amplifier_core.message_models import (
    ImageBlock,
    Message,
    ReasoningBlock,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    response_text,
)


def msgs(*dicts: dict) -> list[Message]:
    return [Message.model_validate(d) for d in dicts]


# -- kernel block -> wire ------------------------------------------------------------------------------


def test_text_block_to_wire_keeps_text():
    assert block_to_wire(TextBlock(text="hello")) == {"type": "text", "text": "hello"}


def test_blank_text_block_is_dropped_because_the_api_rejects_empty_text():
    assert block_to_wire(TextBlock(text="  \n")) is None


def test_thinking_block_to_wire_keeps_text_and_signature_verbatim():
    signature = "EqQBCkYIBxgCKkD+/=="
    wire = block_to_wire(ThinkingBlock(thinking="step 1\nstep 2 ", signature=signature, visibility="internal"))
    assert wire == {"type": "thinking", "thinking": "step 1\nstep 2 ", "signature": signature}


def test_unsigned_thinking_from_another_provider_is_not_sent():
    assert block_to_wire(ThinkingBlock(thinking="openai reasoning", content=["enc", "rs_1"])) is None


def test_redacted_thinking_block_to_wire_keeps_data():
    assert block_to_wire(RedactedThinkingBlock(data="opaque==")) == {"type": "redacted_thinking", "data": "opaque=="}


def test_tool_call_block_to_wire_is_tool_use():
    wire = block_to_wire(ToolCallBlock(id="toolu_1", name="write_file", input={"path": "a.txt"}))
    assert wire == {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {"path": "a.txt"}}


def test_tool_result_block_to_wire_is_tool_result():
    wire = block_to_wire(ToolResultBlock(tool_call_id="toolu_1", output="ok"))
    assert wire == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}


def test_tool_result_with_structured_output_is_serialized_as_json():
    wire = block_to_wire(ToolResultBlock(tool_call_id="t", output={"files": 2}))
    assert wire["content"] == '{"files": 2}'


def test_base64_image_block_to_wire():
    source = {"type": "base64", "media_type": "image/jpeg", "data": "AAAA"}
    assert block_to_wire(ImageBlock(source=source)) == {"type": "image", "source": source}


def test_untyped_image_source_is_treated_as_base64_and_url_source_as_url():
    assert block_to_wire(ImageBlock(source={"media_type": "image/png", "data": "QQ"}))["source"] == {
        "type": "base64", "media_type": "image/png", "data": "QQ"}
    assert block_to_wire(ImageBlock(source={"url": "https://x/y.png"}))["source"] == {
        "type": "url", "url": "https://x/y.png"}


def test_openai_reasoning_block_is_not_sent():
    assert block_to_wire(ReasoningBlock(content=["enc"], summary=[])) is None


# -- wire -> kernel block ------------------------------------------------------------------------------


def test_wire_text_becomes_text_block():
    assert block_from_wire({"type": "text", "text": "hi"}) == TextBlock(text="hi")


def test_wire_thinking_becomes_thinking_block_with_signature():
    block = block_from_wire({"type": "thinking", "thinking": "hmm", "signature": "sig=="})
    assert block == ThinkingBlock(thinking="hmm", signature="sig==")


def test_wire_redacted_thinking_becomes_redacted_thinking_block():
    assert block_from_wire({"type": "redacted_thinking", "data": "xx"}) == RedactedThinkingBlock(data="xx")


def test_wire_tool_use_becomes_tool_call_block():
    block = block_from_wire({"type": "tool_use", "id": "toolu_9", "name": "bash", "input": {"command": "ls"}})
    assert block == ToolCallBlock(id="toolu_9", name="bash", input={"command": "ls"})


def test_unknown_server_block_types_are_skipped():
    assert block_from_wire({"type": "web_search_tool_result", "content": []}) is None


def test_thinking_round_trip_is_byte_for_byte():
    wire = {"type": "thinking", "thinking": "a\u00e9 b", "signature": "S1g/+=="}
    assert block_to_wire(block_from_wire(wire)) == wire


# -- whole conversations ---------------------------------------------------------------------------------


def test_system_messages_are_merged_into_one_system_prompt():
    conversation = messages_to_wire(msgs(
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "hi"},
        {"role": "system", "content": [{"type": "text", "text": "Use British spelling."}]},
    ))
    assert conversation.system == "You are terse.\n\nUse British spelling."
    assert conversation.messages == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_no_system_messages_gives_no_system_prompt():
    assert messages_to_wire(msgs({"role": "user", "content": "hi"})).system is None


def _tool_turn() -> list[dict]:
    return [
        {"role": "user", "content": "make two files"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "plan", "signature": "sig-A"},
            {"type": "text", "text": "Writing."},
            {"type": "tool_call", "id": "t1", "name": "write_file", "input": {"path": "a"}},
            {"type": "tool_call", "id": "t2", "name": "write_file", "input": {"path": "b"}},
        ], "tool_calls": [{"id": "t1", "tool": "write_file", "arguments": {"path": "a"}},
                          {"id": "t2", "tool": "write_file", "arguments": {"path": "b"}}]},
    ]


def test_consecutive_tool_results_are_batched_into_one_user_message_in_call_order():
    conversation = messages_to_wire(msgs(
        *_tool_turn(),
        {"role": "tool", "tool_call_id": "t2", "name": "write_file", "content": "wrote b"},
        {"role": "tool", "tool_call_id": "t1", "name": "write_file", "content": "wrote a"},
    ))
    assert [m["role"] for m in conversation.messages] == ["user", "assistant", "user"]
    assert conversation.messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "wrote a"},
        {"type": "tool_result", "tool_use_id": "t2", "content": "wrote b"},
    ]
    assert conversation.repairs == []


def test_assistant_blocks_keep_order_with_thinking_first_and_no_duplicate_tool_use():
    conversation = messages_to_wire(msgs(*_tool_turn(), {"role": "tool", "tool_call_id": "t1", "content": "x"},
                                         {"role": "tool", "tool_call_id": "t2", "content": "y"}))
    assert [b["type"] for b in conversation.messages[1]["content"]] == ["thinking", "text", "tool_use", "tool_use"]
    assert conversation.messages[1]["content"][0]["signature"] == "sig-A"


def test_tool_calls_listed_only_in_tool_calls_become_tool_use_blocks():
    conversation = messages_to_wire(msgs(
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "Running.",
         "tool_calls": [{"id": "c1", "tool": "bash", "arguments": {"c": 1}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
    ))
    assert conversation.messages[1]["content"] == [
        {"type": "text", "text": "Running."},
        {"type": "tool_use", "id": "c1", "name": "bash", "input": {"c": 1}},
    ]


def test_tool_call_without_result_gets_a_synthetic_error_result_and_is_reported():
    conversation = messages_to_wire(msgs(
        *_tool_turn(),
        {"role": "tool", "tool_call_id": "t1", "content": "wrote a"},
        {"role": "user", "content": "what happened?"},
    ))
    results = conversation.messages[2]["content"]
    assert results[0] == {"type": "tool_result", "tool_use_id": "t1", "content": "wrote a"}
    assert results[1]["tool_use_id"] == "t2" and results[1]["is_error"] is True
    assert "interrupted" in results[1]["content"]
    assert results[2] == {"type": "text", "text": "what happened?"}
    assert [(r.tool_call_id, r.tool_name) for r in conversation.repairs] == [("t2", "write_file")]


def test_repair_is_deterministic_so_later_requests_stay_repaired():
    history = [*_tool_turn(), {"role": "user", "content": "continue"},
               {"role": "assistant", "content": "ok"}, {"role": "user", "content": "next"}]
    first = messages_to_wire(msgs(*history))
    later = messages_to_wire(msgs(*history, {"role": "assistant", "content": "sure"}, {"role": "user", "content": "x"}))
    assert later.messages[: len(first.messages)] == first.messages
    assert {r.tool_call_id for r in later.repairs} == {"t1", "t2"}


def test_results_are_found_even_when_a_user_message_was_injected_before_them():
    conversation = messages_to_wire(msgs(
        *_tool_turn(),
        {"role": "user", "content": "<system-reminder>note</system-reminder>"},
        {"role": "tool", "tool_call_id": "t1", "content": "a"},
        {"role": "tool", "tool_call_id": "t2", "content": "b"},
    ))
    assert conversation.repairs == []
    content = conversation.messages[2]["content"]
    assert [b["type"] for b in content] == ["tool_result", "tool_result", "text"]


def test_orphan_tool_result_is_dropped():
    conversation = messages_to_wire(msgs(
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "ghost", "content": "???"},
        {"role": "assistant", "content": "hello"},
    ))
    assert conversation.messages == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
    ]
    assert conversation.dropped_result_ids == ["ghost"]


def test_duplicate_tool_result_is_dropped():
    conversation = messages_to_wire(msgs(
        *_tool_turn(),
        {"role": "tool", "tool_call_id": "t1", "content": "first"},
        {"role": "tool", "tool_call_id": "t1", "content": "second"},
        {"role": "tool", "tool_call_id": "t2", "content": "b"},
    ))
    assert conversation.messages[2]["content"][0]["content"] == "first"
    assert conversation.dropped_result_ids == ["t1"]


def test_trailing_assistant_tool_call_gets_a_synthetic_result():
    conversation = messages_to_wire(msgs(*_tool_turn()))
    assert conversation.messages[-1]["role"] == "user"
    assert len(conversation.repairs) == 2


def test_consecutive_user_messages_are_merged_so_roles_alternate():
    conversation = messages_to_wire(msgs({"role": "user", "content": "one"}, {"role": "user", "content": "two"}))
    assert conversation.messages == [{"role": "user", "content": [{"type": "text", "text": "one"},
                                                                  {"type": "text", "text": "two"}]}]


def test_user_image_and_text_blocks_are_sent():
    conversation = messages_to_wire(msgs({"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}},
    ]}))
    assert [b["type"] for b in conversation.messages[0]["content"]] == ["text", "image"]


def test_tool_result_blocks_inside_user_messages_are_placed_after_their_call():
    conversation = messages_to_wire(msgs(
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_call", "id": "k", "name": "bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_call_id": "k", "output": "done"}]},
    ))
    assert conversation.messages[2]["content"] == [{"type": "tool_result", "tool_use_id": "k", "content": "done"}]


def test_redacted_thinking_in_history_is_sent_back():
    conversation = messages_to_wire(msgs(
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "R=="}, {"type": "text", "text": "a"}]},
    ))
    assert conversation.messages[1]["content"][0] == {"type": "redacted_thinking", "data": "R=="}


def test_legacy_thinking_block_key_is_used_when_content_has_no_thinking():
    conversation = messages_to_wire(msgs(
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "answer", "thinking_block": {"type": "thinking", "thinking": "t",
                                                                     "signature": "s"}},
    ))
    assert conversation.messages[1]["content"][0] == {"type": "thinking", "thinking": "t", "signature": "s"}


# -- tools, caching, usage -------------------------------------------------------------------------------


def test_tool_specs_become_anthropic_tool_definitions():
    spec = ToolSpec(name="read_file", description="Read a file", parameters={"type": "object", "properties": {}})
    assert tools_to_wire([spec]) == [{"name": "read_file", "description": "Read a file",
                                      "input_schema": {"type": "object", "properties": {}}}]


def test_native_tool_spec_passes_through():
    spec = ToolSpec.model_validate({"name": "web_search", "parameters": {}, "type": "web_search_20250305",
                                    "max_uses": 3})
    assert tools_to_wire([spec]) == [{"name": "web_search", "type": "web_search_20250305", "max_uses": 3}]


def test_tool_choice_mapping():
    assert tool_choice_to_wire("auto") == {"type": "auto"}
    assert tool_choice_to_wire("required") == {"type": "any"}
    assert tool_choice_to_wire("bash") == {"type": "tool", "name": "bash"}
    assert tool_choice_to_wire({"type": "function", "function": {"name": "x"}}) == {"type": "tool", "name": "x"}


def test_cache_breakpoints_mark_system_tools_last_message_and_previous_user_turn():
    messages = messages_to_wire(msgs(
        {"role": "user", "content": "one"}, {"role": "assistant", "content": "two"},
        {"role": "user", "content": "three"},
    )).messages
    tools = [{"name": "a", "input_schema": {}}, {"name": "b", "input_schema": {}}]
    system, cached_tools, cached = add_cache_breakpoints("sys", tools, messages)
    assert system == [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]
    assert "cache_control" not in cached_tools[0] and cached_tools[1]["cache_control"] == {"type": "ephemeral"}
    assert cached[2]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert cached[0]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in cached[1]["content"][-1]
    assert "cache_control" not in messages[2]["content"][-1], "inputs must not be modified"
    marks = str([system, cached_tools, cached]).count("cache_control")
    assert marks == 4


def test_cache_breakpoints_skip_thinking_blocks():
    messages = [{"role": "assistant", "content": [{"type": "text", "text": "x"},
                                                  {"type": "thinking", "thinking": "t", "signature": "s"}]}]
    _, _, cached = add_cache_breakpoints(None, [], messages)
    assert cached[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in cached[0]["content"][1]


def test_usage_input_is_gross_of_cache_reads_with_cache_fields_separate():
    usage = usage_from_wire({"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100,
                             "cache_creation_input_tokens": 20}, "claude-sonnet-4-5-20250929")
    assert (usage.input_tokens, usage.output_tokens) == (110, 5)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (100, 20)
    # 10*3 + 5*15 + 100*0.3 + 20*3.75 per million
    assert usage.cost_usd == Decimal("0.000210")


def test_cost_is_none_for_an_unknown_model():
    assert usage_from_wire({"input_tokens": 1, "output_tokens": 1}, "mystery-model").cost_usd is None


def test_chat_response_from_wire_builds_blocks_tool_calls_and_finish_reason():
    response = chat_response_from_wire({
        "id": "msg_1", "model": "claude-haiku-4-5", "stop_reason": "tool_use",
        "content": [{"type": "thinking", "thinking": "t", "signature": "s"},
                    {"type": "redacted_thinking", "data": "r"},
                    {"type": "text", "text": "ok"},
                    {"type": "tool_use", "id": "tu", "name": "bash", "input": {"command": "ls"}}],
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }, model="claude-haiku-4-5", streamed=False)
    assert [b.type for b in response.content] == ["thinking", "redacted_thinking", "text", "tool_call"]
    assert response.tool_calls[0].model_dump() == {"id": "tu", "name": "bash", "arguments": {"command": "ls"}}
    assert response.finish_reason == "tool_use"
    assert response.metadata == {"streamed": False, "model": "claude-haiku-4-5", "anthropic:message_id": "msg_1"}
    assert response_text(response) == "ok"


# -- histories written by another provider ----------------------------------------------------------------


def test_tool_call_ids_from_other_providers_are_made_valid_for_anthropic_and_stay_paired():
    # OpenAI-compatible servers (e.g. Kimi) return ids like "functions.read_file:0"; Anthropic accepts only
    # [A-Za-z0-9_-] in tool_use ids and answers 400 otherwise.
    conversation = messages_to_wire(msgs(
        {"role": "user", "content": "read"},
        {"role": "assistant", "content": [
            {"type": "tool_call", "id": "functions.read_file:0", "name": "read_file", "input": {"p": "a"}},
            {"type": "tool_call", "id": "functions.read_file:1", "name": "read_file", "input": {"p": "b"}}]},
        {"role": "tool", "tool_call_id": "functions.read_file:0", "name": "read_file", "content": "A"},
        {"role": "tool", "tool_call_id": "functions.read_file:1", "name": "read_file", "content": "B"},
    ))
    uses = [b["id"] for b in conversation.messages[1]["content"]]
    results = [b["tool_use_id"] for b in conversation.messages[2]["content"]]
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", call_id) for call_id in uses)
    assert len(set(uses)) == 2
    assert results == uses
    assert [b["content"] for b in conversation.messages[2]["content"]] == ["A", "B"]


def test_valid_tool_call_ids_are_sent_unchanged():
    conversation = messages_to_wire(msgs(*_tool_turn()))
    assert [b["id"] for b in conversation.messages[1]["content"] if b["type"] == "tool_use"] == ["t1", "t2"]


def test_empty_tool_result_is_sent_without_empty_text_content():
    conversation = messages_to_wire(msgs(
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_call", "id": "toolu_e", "name": "bash", "input": {}}]},
        {"role": "tool", "tool_call_id": "toolu_e", "name": "bash", "content": ""},
    ))
    assert conversation.messages[2]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_e"}]


def test_final_tool_turn_without_leading_thinking_is_detected():
    # With thinking on, the API rejects a final assistant tool_use turn that does not start with thinking
    # (a history written by another provider, or with thinking off); such a request must go without thinking.
    from_openai = messages_to_wire(msgs(
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "openai summary", "content": ["enc", "rs_1"]},
            {"type": "tool_call", "id": "call_1", "name": "bash", "input": {}}]},
        {"role": "tool", "tool_call_id": "call_1", "name": "bash", "content": "ok"},
    ))
    assert final_tool_turn_lacks_thinking(from_openai.messages)
    signed = messages_to_wire(msgs(
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "mine", "signature": "sig"},
            {"type": "tool_call", "id": "toolu_1", "name": "bash", "input": {}}]},
        {"role": "tool", "tool_call_id": "toolu_1", "name": "bash", "content": "ok"},
    ))
    assert not final_tool_turn_lacks_thinking(signed.messages)
    finished = messages_to_wire(msgs(
        *[m.model_dump() for m in from_openai_history()],
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "next"},
    ))
    assert not final_tool_turn_lacks_thinking(finished.messages)


def from_openai_history() -> list[Message]:
    return msgs(
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_call", "id": "call_1", "name": "bash", "input": {}}]},
        {"role": "tool", "tool_call_id": "call_1", "name": "bash", "content": "ok"},
    )
