"""Tool call / result repair: every call answered once, right after its turn; the same history always gives
the same repaired history."""

from __future__ import annotations

from amplifier_module_provider_openai.tool_pairs import assistant_calls, repair_tool_pairs

from amplifier_core.message_models import Message


def msgs(*raw: dict) -> list[Message]:
    return [Message.model_validate(item) for item in raw]


def call_turn(*ids: str) -> dict:
    return {"role": "assistant", "content": [{"type": "tool_call", "id": i, "name": "bash", "input": {"n": i}}
                                             for i in ids]}


def result(call_id: str, text: str = "ok") -> dict:
    return {"role": "tool", "tool_call_id": call_id, "name": "bash", "content": text}


def test_complete_history_is_left_unchanged():
    history = msgs({"role": "user", "content": "go"}, call_turn("a", "b"), result("a"), result("b"))
    repaired = repair_tool_pairs(history)
    assert repaired.messages == history
    assert repaired.repairs == [] and repaired.dropped_result_ids == []


def test_missing_result_gets_a_synthetic_interrupted_result_after_the_existing_ones():
    history = msgs({"role": "user", "content": "go"}, call_turn("a", "b"), result("a"),
                   {"role": "user", "content": "next"})
    repaired = repair_tool_pairs(history)
    roles = [(m.role, m.tool_call_id) for m in repaired.messages]
    assert roles == [("user", None), ("assistant", None), ("tool", "a"), ("tool", "b"), ("user", None)]
    synthetic = repaired.messages[3]
    assert "interrupted" in synthetic.content and synthetic.name == "bash"
    assert [(r.tool_call_id, r.tool_name) for r in repaired.repairs] == [("b", "bash")]


def test_call_at_the_end_of_the_history_is_repaired_too():
    repaired = repair_tool_pairs(msgs({"role": "user", "content": "go"}, call_turn("a")))
    assert [m.role for m in repaired.messages] == ["user", "assistant", "tool"]


def test_orphan_and_duplicate_results_are_dropped():
    history = msgs({"role": "user", "content": "go"}, result("ghost"), call_turn("a"), result("a"), result("a"))
    repaired = repair_tool_pairs(history)
    assert [(m.role, m.tool_call_id) for m in repaired.messages] == [
        ("user", None), ("assistant", None), ("tool", "a")]
    assert repaired.dropped_result_ids == ["ghost", "a"]


def test_a_late_result_after_a_user_message_is_replaced_by_the_synthetic_one_at_the_right_place():
    history = msgs({"role": "user", "content": "go"}, call_turn("a"), {"role": "user", "content": "hurry"},
                   result("a", "late"))
    repaired = repair_tool_pairs(history)
    assert [(m.role, m.tool_call_id) for m in repaired.messages] == [
        ("user", None), ("assistant", None), ("tool", "a"), ("user", None)]
    assert "interrupted" in repaired.messages[2].content


def test_repair_is_deterministic_so_later_requests_see_the_same_history():
    history = msgs({"role": "user", "content": "go"}, call_turn("a"), {"role": "user", "content": "again"})
    first = repair_tool_pairs(history).messages
    second = repair_tool_pairs(history + msgs({"role": "assistant", "content": "ok"})).messages
    assert [m.model_dump() for m in second[: len(first)]] == [m.model_dump() for m in first]


def test_tool_calls_field_written_by_orchestrators_counts_as_calls():
    message = Message.model_validate({"role": "assistant", "content": "calling",
                                      "tool_calls": [{"id": "x", "tool": "read_file", "arguments": {"p": 1}}]})
    [call] = assistant_calls(message)
    assert (call.id, call.name, call.arguments) == ("x", "read_file", {"p": 1})
    repaired = repair_tool_pairs([message])
    assert [m.tool_call_id for m in repaired.messages] == [None, "x"]


def test_tool_result_blocks_in_a_user_message_become_tool_messages():
    history = msgs(call_turn("a"), {"role": "user", "content": [
        {"type": "tool_result", "tool_call_id": "a", "output": {"ok": True}}, {"type": "text", "text": "and?"}]})
    repaired = repair_tool_pairs(history)
    assert [(m.role, m.tool_call_id) for m in repaired.messages] == [
        ("assistant", None), ("tool", "a"), ("user", None)]
    assert repaired.messages[1].content == '{"ok": true}'
    assert repaired.repairs == []
