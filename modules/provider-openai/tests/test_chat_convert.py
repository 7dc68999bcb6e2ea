"""Kernel messages <-> Chat Completions messages, for every block type in both directions."""

from __future__ import annotations

from amplifier_module_provider_openai.chat_convert import (
    chat_response_from_completion,
    messages_to_chat,
    tool_choice_to_chat,
    tools_to_chat,
)

from amplifier_core.message_models import Message, ToolSpec


def convert(*raw: dict):
    return messages_to_chat([Message.model_validate(item) for item in raw])


# -- request direction --------------------------------------------------------------------------------


def test_system_and_developer_messages_merge_into_one_leading_system_message():
    wire = convert({"role": "user", "content": "hi"}, {"role": "system", "content": "A"},
                   {"role": "developer", "content": "B"})
    assert wire == [{"role": "system", "content": "A\n\nB"}, {"role": "user", "content": "hi"}]


def test_consecutive_user_messages_are_merged():
    wire = convert({"role": "user", "content": "one"}, {"role": "user", "content": [{"type": "text", "text": "two"}]})
    assert wire == [{"role": "user", "content": "one\n\ntwo"}]


def test_images_make_user_content_a_list_of_parts():
    wire = convert({"role": "user", "content": [
        {"type": "text", "text": "see"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QQ=="}}]})
    assert wire == [{"role": "user", "content": [
        {"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,QQ=="}}]}]


def test_assistant_text_and_parallel_tool_calls_with_their_results():
    wire = convert(
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "not sent", "content": ["enc", "rs"]},
            {"type": "redacted_thinking", "data": "not sent"},
            {"type": "text", "text": "reading"},
            {"type": "tool_call", "id": "c1", "name": "read_file", "input": {"path": "a"}},
            {"type": "tool_call", "id": "c2", "name": "read_file", "input": {"path": "b"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "A"},
        {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "B"}]},
    )
    assert wire == [
        {"role": "assistant", "content": "reading", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a"}'}},
            {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "b"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "A"},
        {"role": "tool", "tool_call_id": "c2", "content": "B"},
    ]


def test_assistant_with_only_tool_calls_sends_null_content():
    wire = convert({"role": "assistant", "content": "", "tool_calls": [{"id": "c", "tool": "f", "arguments": {}}]})
    assert wire == [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]


def test_consecutive_assistant_messages_are_merged():
    wire = convert({"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"})
    assert wire == [{"role": "assistant", "content": "a\n\nb"}]


def test_empty_text_blocks_add_no_blank_lines_to_assistant_or_system_text():
    # Anthropic histories carry thinking (not sent here) and may carry empty text blocks beside it.
    wire = convert(
        {"role": "system", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "rules"}]},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"},
                                          {"type": "text", "text": ""}, {"type": "text", "text": "Done"}]},
    )
    assert wire[0] == {"role": "system", "content": "rules"}
    assert wire[2] == {"role": "assistant", "content": "Done"}


def test_tool_specs_and_tool_choice_use_the_nested_function_shape():
    assert tools_to_chat([ToolSpec(name="f", parameters={"type": "object"}, description="d")]) == [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}, "description": "d"}}]
    assert tool_choice_to_chat("f") == {"type": "function", "function": {"name": "f"}}
    assert tool_choice_to_chat("auto") == "auto"


# -- response direction -------------------------------------------------------------------------------


def test_completion_maps_text_reasoning_tool_calls_usage_and_finish_reason():
    response = chat_response_from_completion({
        "id": "chatcmpl-1", "model": "qwen3",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "calling", "reasoning_content": "thinking out loud",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
                           {"id": "", "type": "function", "function": {"name": "g", "arguments": ""}}]}}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59,
                  "prompt_tokens_details": {"cached_tokens": 30}, "completion_tokens_details": {"reasoning_tokens": 4}},
    }, streamed=False)
    assert [b.type for b in response.content] == ["thinking", "text", "tool_call", "tool_call"]
    assert response.content[0].thinking == "thinking out loud"
    assert response.tool_calls[0].arguments == {"a": 1}
    assert response.tool_calls[1].id.startswith("call_") and response.tool_calls[1].arguments == {}
    assert (response.usage.input_tokens, response.usage.cache_read_tokens, response.usage.reasoning_tokens) == (
        50, 30, 4)
    assert response.finish_reason == "tool_calls"


def test_usage_without_details_leaves_cache_and_reasoning_unknown():
    response = chat_response_from_completion({"choices": [{"finish_reason": "stop", "message": {"content": "x"}}],
                                              "usage": {"prompt_tokens": 3, "completion_tokens": 1}}, streamed=False)
    assert response.usage.cache_read_tokens is None and response.usage.reasoning_tokens is None
    assert response.usage.total_tokens == 4


def test_response_round_trips_into_the_next_request():
    response = chat_response_from_completion({"choices": [{"finish_reason": "tool_calls", "message": {
        "content": None, "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": '{"k": "v"}'}}]}}]},
        streamed=False)
    assistant = {"role": "assistant", "content": [b.model_dump() for b in response.content]}
    assert convert(assistant) == [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"k": "v"}'}}]}]
