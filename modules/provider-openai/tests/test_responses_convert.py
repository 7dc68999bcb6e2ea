"""Kernel messages <-> Responses API items, for every block type in both directions."""

from __future__ import annotations

from amplifier_module_provider_openai.responses_convert import (
    block_from_item,
    chat_response_from_responses,
    messages_to_responses,
    tool_choice_to_responses,
    tools_to_responses,
)

from amplifier_core.message_models import Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolSpec

ENCRYPTED = "gAAAAB+/opaque==\n\u00e9"


def convert(*raw: dict):
    return messages_to_responses([Message.model_validate(item) for item in raw])


# -- request direction --------------------------------------------------------------------------------


def test_system_and_developer_messages_become_instructions():
    converted = convert({"role": "system", "content": "Be brief."}, {"role": "developer", "content": "Repo: x"},
                        {"role": "user", "content": "hi"})
    assert converted.instructions == "Be brief.\n\nRepo: x"
    assert converted.items == [{"role": "user", "content": "hi"}]


def test_user_text_and_image_blocks_become_input_parts():
    converted = convert({"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "AAAA"}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
    ]})
    assert converted.items == [{"role": "user", "content": [
        {"type": "input_text", "text": "what is this?"},
        {"type": "input_image", "image_url": "data:image/jpeg;base64,AAAA", "detail": "auto"},
        {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "auto"},
    ]}]


def test_thinking_block_with_reasoning_state_is_sent_back_byte_for_byte():
    converted = convert({"role": "user", "content": "q"}, {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "summary", "content": [ENCRYPTED, "rs_1"]},
        {"type": "text", "text": "answer"}]})
    assert converted.items[1] == {"type": "reasoning", "id": "rs_1",
                                  "summary": [{"type": "summary_text", "text": "summary"}],
                                  "encrypted_content": ENCRYPTED}
    assert converted.items[2] == {"role": "assistant", "content": "answer"}
    assert converted.carries_reasoning


def test_reasoning_block_is_sent_back_as_a_reasoning_item():
    converted = convert({"role": "assistant", "content": [
        {"type": "reasoning", "content": [ENCRYPTED, "rs_2"], "summary": [{"text": "a"}, "b"]},
        {"type": "text", "text": "x"}]})
    assert converted.items[0]["summary"] == [{"type": "summary_text", "text": "a"},
                                             {"type": "summary_text", "text": "b"}]


def test_thinking_without_openai_state_and_redacted_thinking_are_not_sent():
    converted = convert({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "anthropic thought", "signature": "sig"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "x"}]})
    assert converted.items == [{"role": "assistant", "content": "x"}]
    assert not converted.carries_reasoning


def test_reasoning_not_followed_by_output_is_dropped():
    converted = convert({"role": "assistant", "content": [
        {"type": "text", "text": "x"}, {"type": "thinking", "thinking": "t", "content": [ENCRYPTED, "rs_3"]}]})
    assert converted.items == [{"role": "assistant", "content": "x"}]


def test_parallel_tool_calls_and_their_results_become_function_call_items():
    converted = convert(
        {"role": "assistant", "content": [
            {"type": "text", "text": "two calls"},
            {"type": "tool_call", "id": "c1", "name": "read_file", "input": {"path": "a"}},
            {"type": "tool_call", "id": "c2", "name": "read_file", "input": {"path": "b"}}],
         "tool_calls": [{"id": "c1", "tool": "read_file", "arguments": {"path": "a"}},
                        {"id": "c2", "tool": "read_file", "arguments": {"path": "b"}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "A"},
        {"role": "tool", "tool_call_id": "c2", "name": "read_file", "content": "B"},
    )
    assert converted.items == [
        {"role": "assistant", "content": "two calls"},
        {"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": '{"path": "a"}'},
        {"type": "function_call", "call_id": "c2", "name": "read_file", "arguments": '{"path": "b"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "A"},
        {"type": "function_call_output", "call_id": "c2", "output": "B"},
    ]


def test_string_assistant_content_with_tool_calls_field_keeps_the_calls():
    converted = convert({"role": "assistant", "content": "",
                         "tool_calls": [{"id": "c9", "tool": "bash", "arguments": {"command": "ls"}}]})
    assert converted.items == [{"type": "function_call", "call_id": "c9", "name": "bash",
                                "arguments": '{"command": "ls"}'}]


def test_tool_specs_and_tool_choice_use_the_flat_responses_shape():
    tools = tools_to_responses([ToolSpec(name="bash", description="run", parameters={"type": "object"})])
    assert tools == [{"type": "function", "name": "bash", "description": "run", "parameters": {"type": "object"}}]
    assert tool_choice_to_responses("any") == "required"
    assert tool_choice_to_responses("bash") == {"type": "function", "name": "bash"}
    assert tool_choice_to_responses({"type": "tool", "name": "bash"}) == {"type": "function", "name": "bash"}


# -- response direction -------------------------------------------------------------------------------


def test_reasoning_item_becomes_a_thinking_block_holding_encrypted_content_and_id():
    block = block_from_item({"type": "reasoning", "id": "rs_1", "encrypted_content": ENCRYPTED,
                             "summary": [{"type": "summary_text", "text": "one"},
                                         {"type": "summary_text", "text": "two"}]})
    assert block == ThinkingBlock(thinking="one\n\ntwo", content=[ENCRYPTED, "rs_1"], visibility="internal")


def test_raw_reasoning_text_is_used_when_there_is_no_summary():
    block = block_from_item({"type": "reasoning", "id": "rs_1", "summary": [],
                             "content": [{"type": "reasoning_text", "text": "raw thoughts"}]})
    assert block.thinking == "raw thoughts"


def test_message_and_function_call_items_become_text_and_tool_call_blocks():
    assert block_from_item({"type": "message", "content": [{"type": "output_text", "text": "hi"},
                                                           {"type": "refusal", "refusal": "!"}]}) == TextBlock(
        text="hi!")
    assert block_from_item({"type": "function_call", "call_id": "c1", "id": "fc_1", "name": "f",
                            "arguments": '{"a": 1}'}) == ToolCallBlock(id="c1", name="f", input={"a": 1})
    assert block_from_item({"type": "web_search_call", "id": "ws"}) is None


def test_invalid_tool_arguments_become_an_empty_dict():
    assert block_from_item({"type": "function_call", "call_id": "c", "name": "f", "arguments": "{oops"}).input == {}


def test_whole_response_maps_usage_gross_input_cached_reasoning_and_finish_reason():
    response = chat_response_from_responses({
        "id": "resp_1", "status": "completed", "model": "gpt-5",
        "output": [
            {"type": "reasoning", "id": "rs", "encrypted_content": "e", "summary": []},
            {"type": "message", "content": [{"type": "output_text", "text": "ok"}]},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"},
        ],
        "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 60}, "output_tokens": 20,
                  "output_tokens_details": {"reasoning_tokens": 7}, "total_tokens": 120},
    }, streamed=False)
    assert [b.type for b in response.content] == ["thinking", "text", "tool_call", "tool_call"]
    assert [(c.id, c.name) for c in response.tool_calls] == [("c1", "f"), ("c2", "g")]
    assert (response.usage.input_tokens, response.usage.cache_read_tokens, response.usage.reasoning_tokens,
            response.usage.output_tokens) == (100, 60, 7, 20)
    assert response.finish_reason == "tool_calls"
    assert response.metadata["openai:response_id"] == "resp_1"
    assert response.metadata["streamed"] is False


def test_incomplete_response_reports_length():
    response = chat_response_from_responses({"status": "incomplete", "output": [],
                                             "incomplete_details": {"reason": "max_output_tokens"}}, streamed=True)
    assert response.finish_reason == "length"
    assert response.metadata["openai:incomplete_reason"] == "max_output_tokens"


def test_response_blocks_round_trip_into_the_next_request_unchanged():
    response = chat_response_from_responses({"status": "completed", "output": [
        {"type": "reasoning", "id": "rs_9", "encrypted_content": ENCRYPTED,
         "summary": [{"type": "summary_text", "text": "s"}]},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"x": [1, 2]}'},
    ]}, streamed=False)
    assistant = {"role": "assistant", "content": [b.model_dump() for b in response.content],
                 "tool_calls": [{"id": "c1", "tool": "f", "arguments": {"x": [1, 2]}}]}
    converted = convert(assistant, {"role": "tool", "tool_call_id": "c1", "content": "done"})
    assert converted.items[0]["encrypted_content"] == ENCRYPTED
    assert converted.items[1] == {"type": "function_call", "call_id": "c1", "name": "f",
                                  "arguments": '{"x": [1, 2]}'}
