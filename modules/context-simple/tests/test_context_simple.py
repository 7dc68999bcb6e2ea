"""Behaviour of context-simple: history storage, request views, compaction policy, budget and estimates."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import amplifier_module_context_simple as context_simple
import pytest
from amplifier_module_context_simple import (
    SimpleContextConfig,
    SimpleContextManager,
    estimate_message_tokens,
)

import amplifier_support.compacting_context.history as compacting_history
import amplifier_support.compacting_context.manager as compacting
from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult, ProviderInfo
from amplifier_core.module_config import ModuleConfigError

SIGNATURE = "EqQBCkYIARgCKkD+/== sig\u00e9 \\u00e9 \"quoted\"\n tail"


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def tool_turn(call_id: str, payload: str) -> list[dict]:
    return [
        {"role": "assistant",
         "content": [{"type": "thinking", "thinking": "plan " + payload, "signature": SIGNATURE},
                     {"type": "tool_call", "id": call_id, "name": "read_file", "input": {"path": payload}}],
         "tool_calls": [{"id": call_id, "tool": "read_file", "arguments": {"path": payload}}]},
        {"role": "tool", "tool_call_id": call_id, "name": "read_file", "content": payload * 3},
    ]


class Recorder:
    def __init__(self, registry: HookRegistry) -> None:
        self.events: list[tuple[str, dict]] = []
        for event in (compacting.PRE_COMPACT, compacting.POST_COMPACT):
            registry.register(event, self.record)

    async def record(self, event: str, data: dict) -> HookResult:
        self.events.append((event, dict(data)))
        return HookResult()


async def filled(manager: SimpleContextManager, turns: int, size: int = 400) -> None:
    await manager.add_message({"role": "system", "content": "You are helpful."})
    for turn in range(turns):
        await manager.add_message(user(f"question {turn} " + "q" * size))
        for message in tool_turn(f"call_{turn}", f"file{turn} " + "x" * size):
            await manager.add_message(message)
        await manager.add_message(assistant(f"answer {turn} " + "a" * size))


def small_manager(**config) -> tuple[SimpleContextManager, Recorder]:
    registry = HookRegistry()
    recorder = Recorder(registry)
    settings = {"max_tokens": 2000, **config}
    return SimpleContextManager(SimpleContextConfig(**settings), hooks=registry), recorder


def strip_notice(view: list[dict]) -> list[dict]:
    return [message for message in view
            if (message.get("metadata") or {}).get("source") != compacting.NOTICE_SOURCE]


# -- storage ------------------------------------------------------------------------------------------

async def test_add_then_get_round_trips_and_stamps_a_timestamp_without_touching_the_callers_dict():
    manager = SimpleContextManager()
    original = user("hello")
    await manager.add_message(original)
    [stored] = await manager.get_messages()
    assert stored["content"] == "hello" and stored["role"] == "user"
    assert stored["metadata"]["timestamp"].endswith("+00:00")
    assert "metadata" not in original


async def test_existing_timestamp_is_kept():
    manager = SimpleContextManager()
    await manager.add_message({"role": "user", "content": "x", "metadata": {"timestamp": "T0", "k": 1}})
    [stored] = await manager.get_messages()
    assert stored["metadata"] == {"timestamp": "T0", "k": 1}


async def test_changing_returned_messages_does_not_change_history():
    manager = SimpleContextManager()
    await manager.add_message(assistant("keep"))
    returned = await manager.get_messages()
    returned[0]["content"][0]["text"] = "changed"  # get_messages() is the caller's own mutable copy
    view = await manager.get_messages_for_request()
    with pytest.raises(TypeError, match="read-only"):
        view[0]["role"] = "user"  # a request view shares the stored messages, which refuse changes
    assert (await manager.get_messages())[0]["content"][0]["text"] == "keep"
    assert (await manager.get_messages())[0]["role"] == "assistant"


MUTATIONS = {
    "mark a block": lambda message: message["content"][0].__setitem__("cache_control", {"type": "ephemeral"}),
    "append a block": lambda message: message["content"].append({"type": "text", "text": "added"}),
    "sort blocks": lambda message: message["content"].sort(key=str),
    "change a tool argument": lambda message: message["tool_calls"][0]["arguments"].update(path="elsewhere"),
    "touch metadata": lambda message: message["metadata"].setdefault("touched", True),
    "drop a key": lambda message: message.pop("content"),
    "replace content in place": lambda message: message["content"].__iadd__([{"type": "text", "text": "x"}]),
}


@pytest.mark.parametrize("mutation", MUTATIONS.values(), ids=MUTATIONS.keys())
async def test_changing_nested_content_of_a_request_view_raises_and_leaves_history_whole(mutation):
    """Providers mark blocks in place (e.g. cache_control on the last block): views share the stored messages
    instead of copying them, so every change is refused, in full and in compacted views."""
    for manager, turns in ((SimpleContextManager(), 1), (small_manager()[0], 12)):
        await filled(manager, turns)
        before = await manager.get_messages()
        view = await manager.get_messages_for_request()
        assert len(view) < len(before) if turns > 1 else len(view) == len(before)
        targets = [message for message in view if message.get("tool_calls") and message.get("metadata")]
        assert targets
        for message in targets:
            with pytest.raises(TypeError, match="read-only"):
                mutation(message)
        assert await manager.get_messages() == before


async def test_copies_of_view_messages_are_free_to_change():
    import copy

    manager = SimpleContextManager()
    await filled(manager, 2)
    before = await manager.get_messages()
    view = await manager.get_messages_for_request()
    deep = copy.deepcopy(view[2])
    deep["content"][0]["cache_control"] = {"type": "ephemeral"}
    shallow = dict(view[2])
    shallow["role"] = "user"
    view.append({"role": "user", "content": "only in this request"})  # the list itself is the caller's
    assert await manager.get_messages() == before
    assert len(await manager.get_messages_for_request()) == len(before)


async def test_request_models_are_shared_read_only_and_validated_once(monkeypatch):
    """The loop's ChatRequest reuses the models built when each message arrived; they refuse changes too."""
    from amplifier_core import read_only_messages
    from amplifier_core.message_models import Message

    manager = SimpleContextManager()
    await filled(manager, 3)
    validations = []
    real = Message.model_validate
    monkeypatch.setattr(Message, "model_validate", lambda *a, **k: validations.append(1) or real(*a, **k))
    first = read_only_messages.request_models(await manager.get_messages_for_request())
    second = read_only_messages.request_models(await manager.get_messages_for_request())
    assert validations == []
    assert all(a is b for a, b in zip(first, second, strict=True))
    with pytest.raises(TypeError, match="read-only"):
        first[2].content[0].text = "changed"
    with pytest.raises(TypeError, match="read-only"):
        first[2].content.append(first[2].content[0])
    assert first[2] == Message.model_validate((await manager.get_messages())[2])


async def test_changing_a_message_after_adding_it_does_not_change_history():
    manager = SimpleContextManager()
    message = assistant("keep")
    await manager.add_message(message)
    message["content"][0]["text"] = "changed"
    assert (await manager.get_messages())[0]["content"][0]["text"] == "keep"


async def test_non_dict_message_is_ignored_with_a_warning(caplog):
    manager = SimpleContextManager()
    with caplog.at_level(logging.WARNING):
        await manager.add_message("not a message")  # type: ignore[arg-type]
    assert await manager.get_messages() == []
    assert "add_message" in caplog.text


async def test_set_messages_replaces_and_clear_empties():
    manager = SimpleContextManager()
    await manager.add_message(user("old"))
    await manager.set_messages([user("a"), assistant("b")])
    assert [message["role"] for message in await manager.get_messages()] == ["user", "assistant"]
    await manager.clear()
    assert await manager.get_messages() == []
    assert await manager.get_messages_for_request() == []


# -- request views ----------------------------------------------------------------------------------

async def test_view_is_the_whole_history_when_under_the_threshold():
    manager, recorder = small_manager(max_tokens=100_000)
    await filled(manager, 3)
    assert await manager.get_messages_for_request() == await manager.get_messages()
    assert recorder.events == []


async def test_compacted_view_is_smaller_and_stored_history_is_unchanged():
    manager, _ = small_manager()
    await filled(manager, 12)
    before = await manager.get_messages()
    view = await manager.get_messages_for_request()
    assert len(view) < len(before)
    assert await manager.get_messages() == before
    kept = strip_notice(view)
    assert all(message in before for message in kept)
    assert sum(estimate_message_tokens(message) for message in kept) <= 2000 * 0.5


async def test_system_messages_are_always_kept_including_ones_in_the_middle():
    manager, _ = small_manager()
    await filled(manager, 6)
    await manager.add_message({"role": "system", "content": "mid-history reminder"})
    await filled(manager, 6)
    view = strip_notice(await manager.get_messages_for_request())
    history = await manager.get_messages()
    assert [m for m in view if m["role"] == "system"] == [m for m in history if m["role"] == "system"]


async def test_latest_user_message_is_kept_even_when_it_alone_exceeds_the_target():
    manager, _ = small_manager()
    await filled(manager, 4)
    await manager.add_message(user("latest " + "z" * 6000))
    view = await manager.get_messages_for_request()
    assert view[-1]["content"].startswith("latest ")


async def test_latest_user_message_is_kept_when_its_turn_has_grown_large():
    manager, _ = small_manager()
    await filled(manager, 3)
    await manager.add_message(user("the current question"))
    for index in range(10):
        for message in tool_turn(f"late_{index}", f"late{index} " + "y" * 400):
            await manager.add_message(message)
    view = await manager.get_messages_for_request()
    assert any(message.get("content") == "the current question" for message in view)
    assert view[-1]["tool_call_id"] == "late_9"


async def test_tool_calls_and_their_results_are_kept_or_dropped_together():
    manager, _ = small_manager()
    await filled(manager, 12)
    for budget in (600, 900, 1500, 3000):
        view = await manager.get_messages_for_request(token_budget=budget)
        call_ids = {call["id"] for message in view for call in message.get("tool_calls") or []}
        result_ids = {message["tool_call_id"] for message in view if message["role"] == "tool"}
        assert call_ids == result_ids
        manager._sticky_cut = None


async def test_messages_injected_between_a_call_and_its_result_stay_in_the_calls_group():
    manager, _ = small_manager()
    await filled(manager, 6)
    call, result = tool_turn("mid", "mid " + "m" * 400)
    await manager.add_message(call)
    await manager.add_message(user("injected by a hook while the tool ran"))
    await manager.add_message(result)
    await manager.add_message(assistant("done"))
    for budget in (300, 700, 1200):
        manager._sticky_cut = None
        view = await manager.get_messages_for_request(token_budget=budget)
        kept = {message.get("tool_call_id") for message in view if message["role"] == "tool"}
        calls = {c["id"] for message in view for c in message.get("tool_calls") or []}
        assert kept == calls


async def test_view_after_the_system_messages_starts_with_a_user_message():
    manager, _ = small_manager()
    await filled(manager, 12)
    view = strip_notice(await manager.get_messages_for_request())
    first = next(message for message in view if message["role"] != "system")
    assert first["role"] == "user"


async def test_thinking_signatures_survive_compaction_byte_for_byte():
    manager, _ = small_manager()
    await filled(manager, 12)
    view = await manager.get_messages_for_request()
    signatures = [block["signature"] for message in view if isinstance(message.get("content"), list)
                  for block in message["content"] if block.get("type") == "thinking"]
    assert signatures and all(signature == SIGNATURE for signature in signatures)
    assert all(json.dumps(signature) == json.dumps(SIGNATURE) for signature in signatures)


async def test_omission_notice_says_how_many_messages_were_left_out_and_sits_after_system_messages():
    manager, _ = small_manager()
    await filled(manager, 12)
    view = await manager.get_messages_for_request()
    history = await manager.get_messages()
    notices = [m for m in view if (m.get("metadata") or {}).get("source") == compacting.NOTICE_SOURCE]
    assert len(notices) == 1 and notices[0]["role"] == "system"
    omitted = len(history) - (len(view) - 1)
    assert f"{omitted} earlier messages" in notices[0]["content"]
    assert view.index(notices[0]) == 1


async def test_omission_notice_can_be_turned_off():
    manager, _ = small_manager(compaction_notice=False)
    await filled(manager, 12)
    view = await manager.get_messages_for_request()
    assert strip_notice(view) == view


async def test_compaction_emits_pre_and_post_compact_with_counts():
    manager, recorder = small_manager()
    await filled(manager, 12)
    view = await manager.get_messages_for_request()
    names = [name for name, _ in recorder.events]
    assert names == [compacting.PRE_COMPACT, compacting.POST_COMPACT]
    pre, post = recorder.events[0][1], recorder.events[1][1]
    assert pre["message_count"] == 1 + 12 * 4 and pre["budget"] == 2000
    assert post["messages_before"] == 1 + 12 * 4
    assert post["messages_after"] == len(view) - 1
    assert post["messages_omitted"] == post["messages_before"] - post["messages_after"]
    assert post["tokens_after"] < post["tokens_before"] == pre["token_count"]


async def test_compacted_view_is_reused_on_later_requests_so_the_prefix_stays_stable():
    manager, recorder = small_manager()
    await filled(manager, 12)
    first = await manager.get_messages_for_request()
    await manager.add_message(user("short follow-up"))
    second = await manager.get_messages_for_request()
    assert second[: len(first)] == first
    assert second[-1]["content"] == "short follow-up"
    assert len(recorder.events) == 2  # no second compaction


async def test_view_is_recompacted_once_the_reused_view_outgrows_the_threshold():
    manager, recorder = small_manager()
    await filled(manager, 12)
    await manager.get_messages_for_request()
    await filled(manager, 3)
    view = await manager.get_messages_for_request()
    assert len(recorder.events) == 4
    assert sum(estimate_message_tokens(m) for m in strip_notice(view)) <= 2000 * 0.92


async def test_underlying_history_changes_reset_the_reused_view():
    manager, _ = small_manager()
    await filled(manager, 12)
    await manager.get_messages_for_request()
    await manager.set_messages((await manager.get_messages())[:5])
    assert len(await manager.get_messages_for_request()) == 5


# -- budget -------------------------------------------------------------------------------------------

class InfoProvider:
    name = "fake"

    def __init__(self, context_window: int, max_output_tokens: int) -> None:
        self.defaults = {"context_window": context_window, "max_output_tokens": max_output_tokens}

    def get_info(self) -> ProviderInfo:
        return ProviderInfo(id="fake", display_name="Fake", defaults=self.defaults)


class ModelInfoProvider(InfoProvider):
    async def get_model_info(self):
        return {"context_window": 3000, "max_output_tokens": 500}


async def budget_seen(manager: SimpleContextManager, **kwargs) -> int:
    recorder = Recorder(manager._hooks)
    await filled(manager, 20)
    await manager.get_messages_for_request(**kwargs)
    return recorder.events[0][1]["budget"]


async def test_budget_comes_from_provider_info_defaults_minus_output_and_margin():
    manager = SimpleContextManager(SimpleContextConfig(), hooks=HookRegistry())
    assert await budget_seen(manager, provider=InfoProvider(4000, 1000)) == 4000 - 1000 - 1000


async def test_model_info_is_preferred_over_provider_defaults():
    manager = SimpleContextManager(SimpleContextConfig(safety_margin_tokens=100), hooks=HookRegistry())
    assert await budget_seen(manager, provider=ModelInfoProvider(9000, 1000)) == 3000 - 500 - 100


async def test_explicit_max_tokens_caps_the_provider_budget():
    manager = SimpleContextManager(SimpleContextConfig(max_tokens=1500), hooks=HookRegistry())
    assert await budget_seen(manager, provider=InfoProvider(10_000, 1000)) == 1500


async def test_explicit_token_budget_wins():
    manager = SimpleContextManager(SimpleContextConfig(max_tokens=1500), hooks=HookRegistry())
    assert await budget_seen(manager, token_budget=1200, provider=InfoProvider(10_000, 1000)) == 1200


async def test_provider_without_window_falls_back_to_max_tokens():
    manager = SimpleContextManager(SimpleContextConfig(max_tokens=2500), hooks=HookRegistry())
    assert await budget_seen(manager, provider=object()) == 2500


# -- token estimates -----------------------------------------------------------------------------------

def test_estimate_counts_text_not_metadata_or_signatures():
    plain = {"role": "assistant", "content": [{"type": "text", "text": "x" * 400}]}
    decorated = {**plain, "metadata": {"timestamp": "2025-01-01T00:00:00", "blob": "m" * 4000},
                 "content": [*plain["content"],
                             {"type": "thinking", "thinking": "", "signature": "s" * 4000}]}
    assert estimate_message_tokens(plain) == estimate_message_tokens(decorated) == 4 + 100


def test_estimate_counts_thinking_text_tool_arguments_and_results():
    thinking = {"role": "assistant", "content": [{"type": "thinking", "thinking": "t" * 80}]}
    call = {"role": "assistant", "content": [],
            "tool_calls": [{"id": "c", "tool": "bash", "arguments": {"command": "c" * 100}}]}
    result = {"role": "tool", "tool_call_id": "c", "content": "r" * 40}
    assert estimate_message_tokens(thinking) == 4 + 20
    assert estimate_message_tokens(call) > 4 + 25
    assert estimate_message_tokens(result) == 4 + 10


def test_tool_calls_listed_both_as_blocks_and_tool_calls_count_once():
    arguments = {"command": "c" * 100}
    block = {"type": "tool_call", "id": "c", "name": "bash", "input": arguments}
    both = {"role": "assistant", "content": [block],
            "tool_calls": [{"id": "c", "tool": "bash", "arguments": arguments}]}
    only_list = {"role": "assistant", "content": [], "tool_calls": both["tool_calls"]}
    assert estimate_message_tokens(both) == estimate_message_tokens(only_list)


async def test_each_message_is_estimated_once_however_many_requests(monkeypatch):
    calls = []
    real = context_simple.estimate_message_tokens

    def counting(message):
        calls.append(1)
        return real(message)

    monkeypatch.setattr(compacting_history, "estimate_message_tokens", counting)
    manager, _ = small_manager()
    await filled(manager, 10)
    for _ in range(5):
        await manager.get_messages_for_request()
    assert len(calls) == 1 + 10 * 4


# -- config and mount ------------------------------------------------------------------------------------

def test_unknown_config_key_is_rejected_naming_the_closest_key():
    with pytest.raises(ModuleConfigError, match=r"max_token.*did you mean 'max_tokens'"):
        context_simple.parse_module_config(SimpleContextConfig, {"max_token": 5}, "context-simple")


def test_target_usage_above_threshold_is_rejected():
    with pytest.raises(ModuleConfigError, match="target_usage"):
        context_simple.parse_module_config(SimpleContextConfig, {"target_usage": 0.95}, "context-simple")


def test_upstream_only_keys_are_accepted_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING):
        parsed = SimpleContextConfig.model_validate(
            {"protected_recent": 0.3, "truncate_chars": 250, "compaction_notice_enabled": False})
    assert parsed.compaction_notice is False
    assert "protected_recent" in caplog.text and "truncate_chars" in caplog.text


async def test_mount_puts_a_manager_wired_to_the_coordinators_hooks_at_context():
    coordinator = ModuleCoordinator(session=None)
    await context_simple.mount(coordinator, {"max_tokens": 1234})
    manager = coordinator.get("context")
    assert isinstance(manager, SimpleContextManager)
    assert manager.config.max_tokens == 1234 and manager._hooks is coordinator.hooks


async def test_should_compact_reports_whether_the_configured_budget_is_exceeded():
    manager, _ = small_manager()
    assert await manager._should_compact() is False
    await filled(manager, 12)
    assert await manager._should_compact() is True
    await manager._compact_internal()
    assert len(await manager.get_messages()) == 1 + 12 * 4


async def test_passes_the_kernel_context_validator():
    from amplifier_core.validation.context import ContextValidator

    package = Path(context_simple.__file__).parent
    result = await ContextValidator().validate(package)
    assert result.passed, result.summary()
