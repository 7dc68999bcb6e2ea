"""Behaviour of hooks-logging: where events.jsonl goes, what a record holds, which events are logged."""

from __future__ import annotations

import json
import logging
from decimal import Decimal
from pathlib import Path

import amplifier_module_hooks_logging as hooks_logging
import pytest

from amplifier_core.events import ALL_EVENTS
from amplifier_core.message_models import ChatResponse, TextBlock
from amplifier_core.module_config import ModuleConfigError
from amplifier_core.testing import MockCoordinator


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").split("\n") if line]


async def mounted(tmp_path: Path, **config) -> tuple[MockCoordinator, Path]:
    coordinator = MockCoordinator()
    cleanup = await hooks_logging.mount(coordinator, {"log_dir": str(tmp_path / "{session_id}"), **config})
    coordinator.register_cleanup(cleanup)
    return coordinator, tmp_path / "test-session" / "events.jsonl"


async def test_each_event_is_one_flushed_json_line_with_timestamp_ids_and_data(tmp_path):
    coordinator, path = await mounted(tmp_path)
    await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}})
    [record] = records(path)  # readable before close: flushed per line
    assert record["event"] == "tool:pre"
    assert record["session_id"] == "test-session" and record["parent_id"] is None
    assert record["timestamp"].endswith("+00:00")
    assert record["data"] == {"tool_name": "bash", "tool_input": {"command": "ls"}}


async def test_values_that_are_not_json_are_stringified_or_dumped(tmp_path):
    coordinator, path = await mounted(tmp_path)
    cyclic: dict = {}
    cyclic["self"] = cyclic
    response = ChatResponse(content=[TextBlock(text="hello")])
    await coordinator.hooks.emit("llm:response", {
        "cost": Decimal("0.0123"), "obj": object(), "tags": {"a"}, "raw": b"\x00\x01", "path": Path("/x"),
        "response": response, "cyclic": cyclic, "nan": float("nan"),
    })
    data = records(path)[0]["data"]
    assert data["cost"] == "0.0123" and data["tags"] == ["a"] and data["raw"] == "<2 bytes>"
    assert data["path"] == "/x" and data["obj"].startswith("<object object")
    assert data["response"]["content"][0]["text"] == "hello"
    assert data["nan"] == "nan" and "nested deeper" in json.dumps(data["cyclic"])


async def test_stream_deltas_are_not_logged_by_default(tmp_path):
    coordinator, path = await mounted(tmp_path)
    for event in ("content_block:delta", "thinking:delta", "llm:stream_block_delta"):
        await coordinator.hooks.emit(event, {"delta": "x"})
    await coordinator.hooks.emit("content_block:end", {"block": {"type": "text", "text": "x"}})
    assert [record["event"] for record in records(path)] == ["content_block:end"]


async def test_include_deltas_logs_them_in_order_when_their_block_ends(tmp_path):
    coordinator, path = await mounted(tmp_path, include_deltas=True)
    await coordinator.hooks.emit("content_block:delta", {"delta": "x"})
    await coordinator.hooks.emit("content_block:delta", {"delta": "y"})
    await coordinator.hooks.emit("content_block:end", {"block": {"type": "text", "text": "xy"}})
    assert [(record["event"], record["data"].get("delta")) for record in records(path)] == [
        ("content_block:delta", "x"), ("content_block:delta", "y"), ("content_block:end", None)]


async def test_a_secret_streamed_across_deltas_is_masked_in_the_logged_deltas(tmp_path, monkeypatch):
    """The model repeats a key; the stream cuts it into small pieces, each harmless alone but not together."""
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-token-value-77")
    coordinator, path = await mounted(tmp_path, include_deltas=True)
    text = "the key is deploy-token-value-77, and again deploy-token-value-77."
    pieces = [text[index:index + 3] for index in range(0, len(text), 3)]
    for piece in pieces:
        await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "delta": piece})
    await coordinator.hooks.emit("content_block:end", {"block_index": 0})
    logged = [record["data"]["delta"] for record in records(path) if record["event"] == "content_block:delta"]
    assert len(logged) == len(pieces)
    joined = "".join(logged)
    assert joined == "the key is [REDACTED:DEPLOY_TOKEN], and again [REDACTED:DEPLOY_TOKEN]."
    assert not any(piece in path.read_text("utf-8") for piece in ("deploy-t", "token-v", "value-7"))


async def test_deltas_still_held_at_cleanup_are_written(tmp_path):
    coordinator, path = await mounted(tmp_path, include_deltas=True)
    await coordinator.hooks.emit("thinking:delta", {"delta": "hmm"})
    await coordinator.cleanup()
    assert [record["data"]["delta"] for record in records(path)] == ["hmm"]


async def test_registers_for_every_kernel_event_and_declared_ones(tmp_path):
    coordinator = MockCoordinator()
    coordinator.register_contributor("observability.events", "early", lambda: ["early:event"])
    coordinator.register_capability("observability.events", ["old:style"])
    await hooks_logging.mount(coordinator, {"log_dir": str(tmp_path), "additional_events": ["extra:event"]})
    coordinator.register_contributor("observability.events", "late", lambda: ["late:event"])
    await hooks_logging.on_session_ready(coordinator)
    registered = {registration.event for registration in coordinator.hook_registrations}
    expected = set(ALL_EVENTS) - hooks_logging.DELTA_EVENTS
    assert expected | {"early:event", "old:style", "extra:event", "late:event"} == registered
    assert len(coordinator.hook_registrations) == len(registered)  # no duplicates


async def test_directory_comes_from_the_session_dir_capability(tmp_path):
    coordinator = MockCoordinator()
    coordinator.register_capability("session.dir", str(tmp_path / "store"))
    await hooks_logging.mount(coordinator, {})
    await coordinator.hooks.emit("session:start", {})
    assert records(tmp_path / "store" / "events.jsonl")[0]["event"] == "session:start"


async def test_capability_registered_after_mount_is_found_at_session_ready_and_earlier_events_kept(tmp_path):
    coordinator = MockCoordinator()
    await hooks_logging.mount(coordinator, {})
    await coordinator.hooks.emit("session:fork", {"parent": "p"})
    coordinator.register_capability("session.dir", tmp_path)
    await hooks_logging.on_session_ready(coordinator)
    await coordinator.hooks.emit("session:start", {})
    logged = [record["event"] for record in records(tmp_path / "events.jsonl")]
    assert logged == ["session:fork", "session:start"]


async def test_without_any_directory_nothing_is_written_and_a_warning_says_how_to_fix(tmp_path, caplog,
                                                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    coordinator = MockCoordinator()
    await hooks_logging.mount(coordinator, {})
    with caplog.at_level(logging.WARNING):
        await hooks_logging.on_session_ready(coordinator)
    await coordinator.hooks.emit("session:start", {})
    assert "log_dir" in caplog.text and "session.dir" in caplog.text
    assert list(tmp_path.rglob("events.jsonl")) == []


async def test_sensitive_keys_are_redacted_even_without_hooks_redaction(tmp_path):
    coordinator, path = await mounted(tmp_path)
    await coordinator.hooks.emit("session:start", {"config": {"api_key": "abc", "model": "m"}})
    assert records(path)[0]["data"]["config"] == {"api_key": "[REDACTED]", "model": "m"}


async def test_the_redaction_capability_is_applied_to_whole_records(tmp_path):
    coordinator, path = await mounted(tmp_path)
    coordinator.register_capability("redaction.redact",
                                    lambda record: json.loads(json.dumps(record).replace("SECRET", "[X]")))
    response = ChatResponse(content=[TextBlock(text="SECRET inside a model")])
    await coordinator.hooks.emit("llm:response", {"response": response})
    assert "SECRET" not in path.read_text("utf-8")


async def test_runs_after_hooks_redaction_priority(tmp_path):
    coordinator, _ = await mounted(tmp_path)
    priorities = {registration.priority for registration in coordinator.hook_registrations}
    assert priorities == {-900} and -900 > -1000


async def test_cleanup_closes_the_file_and_unregisters(tmp_path):
    coordinator, path = await mounted(tmp_path)
    await coordinator.hooks.emit("session:start", {})
    log = hooks_logging._logs_by_coordinator[coordinator]
    await coordinator.cleanup()
    assert log._file is None
    await coordinator.hooks.emit("session:end", {})
    assert [record["event"] for record in records(path)] == ["session:start"]


async def test_write_failure_disables_logging_with_a_warning_and_never_raises(tmp_path, caplog):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("file", encoding="utf-8")
    coordinator = MockCoordinator()
    with caplog.at_level(logging.WARNING):
        await hooks_logging.mount(coordinator, {"log_dir": str(blocker / "sub")})
        result = await coordinator.hooks.emit("session:start", {})
    assert result.action == "continue" and "cannot open" in caplog.text


async def test_unknown_config_key_is_rejected():
    with pytest.raises(ModuleConfigError, match="did you mean 'log_dir'"):
        await hooks_logging.mount(MockCoordinator(), {"logdir": "x"})


async def test_passes_the_kernel_hook_validator():
    from amplifier_core.validation.hook import HookValidator

    result = await HookValidator().validate(Path(hooks_logging.__file__).parent)
    assert result.passed, result.summary()


async def test_upstream_config_keys_load_with_a_warning_instead_of_losing_the_log(caplog):
    config = {"priority": 100, "session_log_template": "~/.amplifier/{project}/{session_id}/events.jsonl",
              "auto_discover": True, "strip_raw": False, "exclude_events": ["llm:stream_*delta"]}
    await hooks_logging.mount(MockCoordinator(), config)
    for key in ("session_log_template", "auto_discover", "strip_raw", "exclude_events"):
        assert key in caplog.text
    assert hooks_logging.LoggingConfig.model_validate({"exclude_events": []}).include_deltas is True


async def test_secret_values_are_masked_by_name_without_hooks_redaction_and_the_file_is_private(
        tmp_path, monkeypatch):
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-token-value-77")
    coordinator = MockCoordinator()
    coordinator.register_capability("secrets.values", {"PROFILE_KEY": "profile-key-value-1234"})
    coordinator.register_cleanup(await hooks_logging.mount(coordinator, {"log_dir": str(tmp_path / "{session_id}")}))
    path = tmp_path / "test-session" / "events.jsonl"
    await coordinator.hooks.emit("tool:post", {"tool_name": "bash", "tool_response": {
        "output": "deploy-token-value-77 profile-key-value-1234"}})
    text = path.read_text("utf-8")
    assert "deploy-token-value-77" not in text and "profile-key-value-1234" not in text
    assert records(path)[0]["data"]["tool_response"]["output"] == "[REDACTED:DEPLOY_TOKEN] [REDACTED:PROFILE_KEY]"
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700  # a directory it creates is private too
