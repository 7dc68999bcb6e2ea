"""Read-only messages: shared by every request instead of copied, so every change must be refused, every copy
must be free to change, and they must still serialise, compare and validate like plain ones."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from amplifier_core.message_models import ChatRequest, Message, TextBlock
from amplifier_core.read_only_messages import (
    ReadOnlyDict,
    ReadOnlyList,
    RequestMessages,
    freeze,
    read_only_model,
    request_models,
    thaw,
)


def tool_call_message() -> dict:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": "checking"},
                    {"type": "tool_call", "id": "c1", "name": "grep", "input": {"patterns": [["a", "b"]]}}],
        "tool_calls": [{"id": "c1", "tool": "grep", "arguments": {"patterns": [["a", "b"]]}}],
        "metadata": {"timestamp": "T0", "provider": {"id": "msg_1"}},
    }


DICT_CHANGES = {
    "set": lambda d: d.__setitem__("k", 1), "delete": lambda d: d.__delitem__("role"),
    "update": lambda d: d.update(k=1), "setdefault": lambda d: d.setdefault("k", 1),
    "pop": lambda d: d.pop("role"), "popitem": lambda d: d.popitem(), "clear": lambda d: d.clear(),
    "merge in place": lambda d: d.__ior__({"k": 1}),
}
LIST_CHANGES = {
    "set": lambda v: v.__setitem__(0, 1), "delete": lambda v: v.__delitem__(0), "append": lambda v: v.append(1),
    "extend": lambda v: v.extend([1]), "insert": lambda v: v.insert(0, 1), "pop": lambda v: v.pop(),
    "remove": lambda v: v.remove(v[0]), "clear": lambda v: v.clear(), "sort": lambda v: v.sort(key=str),
    "reverse": lambda v: v.reverse(), "add in place": lambda v: v.__iadd__([1]), "repeat": lambda v: v.__imul__(2),
}


@pytest.mark.parametrize("change", DICT_CHANGES.values(), ids=DICT_CHANGES.keys())
def test_every_dict_change_is_refused_at_every_depth(change):
    original = tool_call_message()
    frozen = freeze(original)
    for target in (frozen, frozen["content"][1], frozen["content"][1]["input"], frozen["metadata"]["provider"]):
        with pytest.raises(TypeError, match="read-only"):
            change(target)
    assert thaw(frozen) == original


@pytest.mark.parametrize("change", LIST_CHANGES.values(), ids=LIST_CHANGES.keys())
def test_every_list_change_is_refused_at_every_depth(change):
    original = tool_call_message()
    frozen = freeze(original)
    for target in (frozen["content"], frozen["tool_calls"], frozen["content"][1]["input"]["patterns"][0]):
        with pytest.raises(TypeError, match="read-only"):
            change(target)
    assert thaw(frozen) == original


def test_freeze_copies_so_the_callers_dict_stays_its_own():
    original = tool_call_message()
    frozen = freeze(original)
    original["content"][0]["text"] = "changed"
    assert frozen["content"][0]["text"] == "checking"
    assert freeze(frozen) is frozen  # already read-only: reused, not copied again


def test_copies_are_plain_and_mutable_and_leave_the_original_alone():
    frozen = freeze(tool_call_message())
    deep = copy.deepcopy(frozen)
    deep["content"][1]["input"]["patterns"][0].append("c")
    shallow = copy.copy(frozen)
    shallow["role"] = "user"
    as_dict = dict(frozen)
    as_dict["extra"] = True
    assert type(deep) is dict and type(deep["content"]) is list and type(shallow) is dict
    assert frozen == freeze(tool_call_message())


def test_read_only_values_serialise_and_pickle_like_plain_ones():
    original = tool_call_message()
    frozen = freeze(original)
    assert json.dumps(frozen) == json.dumps(original)
    restored = pickle.loads(pickle.dumps(frozen))
    assert restored == original and isinstance(restored, ReadOnlyDict)
    assert isinstance(restored["content"], ReadOnlyList)


def test_read_only_model_refuses_assignment_and_container_changes():
    model = read_only_model(freeze(tool_call_message()))
    assert isinstance(model, Message) and isinstance(model.content[0], TextBlock)
    attempts = [
        lambda: setattr(model, "role", "user"),
        lambda: setattr(model.content[0], "text", "changed"),
        lambda: delattr(model, "name"),
        lambda: model.content.append(TextBlock(text="x")),
        lambda: model.content[1].input.update(x=1),
        lambda: model.metadata.__setitem__("x", 1),
        lambda: model.tool_calls.append({}),  # an extra field
    ]
    for attempt in attempts:
        with pytest.raises(TypeError, match="read-only"):
            attempt()
    assert model == Message.model_validate(tool_call_message())


def test_read_only_model_equals_plain_model_both_ways_and_dumps_the_same():
    plain = Message.model_validate(tool_call_message())
    model = read_only_model(freeze(tool_call_message()))
    assert model == plain and plain == model
    assert model != Message.model_validate({**tool_call_message(), "role": "user"})
    assert model.model_dump() == plain.model_dump()
    assert model.model_dump_json() == plain.model_dump_json()
    assert repr(model) == repr(plain)


def test_model_copies_are_plain_mutable_models():
    model = read_only_model(freeze(tool_call_message()))
    updated = model.model_copy(update={"content": "replaced"})
    assert updated.content == "replaced" and model.content[0].text == "checking"
    deep = copy.deepcopy(model)
    deep.content[0].text = "mine"
    deep.content[1].input["patterns"].append("z")
    deep.metadata["touched"] = True
    assert model == Message.model_validate(tool_call_message())


def test_read_only_model_never_seals_the_callers_model():
    plain = Message.model_validate(tool_call_message())
    sealed = read_only_model(plain)
    plain.content[0].text = "still mine"
    assert sealed.content[0].text == "checking"
    assert read_only_model(sealed) is sealed


def test_chat_request_keeps_shared_models_and_serialises_them():
    model = read_only_model(freeze(tool_call_message()))
    request = ChatRequest(messages=[model])
    assert request.messages[0] is model
    assert request.model_dump(mode="json")["messages"][0]["content"][1]["input"] == {"patterns": [["a", "b"]]}


def test_request_messages_hand_their_ready_models_over_once_and_not_after_a_change():
    stored = [freeze({"role": "user", "content": "hi"}), freeze(tool_call_message())]
    models = [read_only_model(message) for message in stored]
    view = RequestMessages(stored, models)
    first = request_models(view)
    assert first is models  # handed over, not copied: the request owns the list from here on
    first.append(Message(role="user", content="mine"))
    again = request_models(view)  # handed over already: built again from the messages, never the changed list
    assert len(again) == 2 and again == models[:2]
    changed = RequestMessages(stored, [read_only_model(message) for message in stored])
    changed.append({"role": "user", "content": "added by an orchestrator"})
    rebuilt = request_models(changed)
    assert [message.content for message in rebuilt][-1] == "added by an orchestrator"


def test_request_models_validates_plain_dicts_and_reports_bad_ones():
    assert request_models([{"role": "user", "content": "hi"}])[0].content == "hi"
    with pytest.raises(ValueError):
        request_models([{"role": "robot", "content": "hi"}])


def test_json_hook_builds_deeply_read_only_messages_equal_to_frozen_ones():
    from amplifier_core.read_only_messages import read_only_json_object

    text = json.dumps(tool_call_message())
    parsed = json.loads(text, object_pairs_hook=read_only_json_object)
    assert parsed == tool_call_message() and freeze(parsed) is parsed
    for container in (parsed, parsed["content"], parsed["content"][1]["input"]["patterns"],
                      parsed["content"][1]["input"]["patterns"][0], parsed["metadata"]["provider"]):
        assert isinstance(container, ReadOnlyDict | ReadOnlyList)
    assert read_only_model(parsed) == Message.model_validate(tool_call_message())
