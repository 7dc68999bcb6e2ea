"""Behaviour of context-persistent: the JSONL file, resume, corrupt lines, atomic rewrites, compaction."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import amplifier_module_context_persistent as persistent
import pytest
from amplifier_module_context_persistent import PersistentContextConfig, PersistentContextManager, read_jsonl_messages

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_core.module_config import ModuleConfigError
from amplifier_support.compacting_context import SimpleContextManager

SIGNATURE = "Eq\u00e9+/== \"sig\"\n\\u2028 \u2028 end"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def opened(path: Path, **config) -> PersistentContextManager:
    manager = PersistentContextManager(path, PersistentContextConfig(**config), hooks=HookRegistry())
    manager.open()
    return manager


async def test_each_added_message_is_one_flushed_line(tmp_path):
    path = tmp_path / "deep" / "ctx.jsonl"
    manager = opened(path)
    await manager.add_message({"role": "user", "content": "line one\nline two"})
    assert [message["content"] for message in lines(path)] == ["line one\nline two"]
    await manager.add_message({"role": "assistant", "content": "reply"})
    assert len(path.read_text("utf-8").splitlines()) == 2
    manager.close()


async def test_resume_from_file_restores_history_byte_for_byte(tmp_path):
    path = tmp_path / "ctx.jsonl"
    block = {"type": "thinking", "thinking": "hm", "signature": SIGNATURE}
    thinking = {"role": "assistant", "content": [block]}
    first = opened(path)
    await first.add_message({"role": "system", "content": "sys"})
    await first.add_message({"role": "user", "content": "q \u00e9"})
    await first.add_message(thinking)
    first.close()
    second = opened(path)
    restored = await second.get_messages()
    assert second.loaded_from_file is True
    assert [message["role"] for message in restored] == ["system", "user", "assistant"]
    assert restored[2]["content"][0]["signature"] == SIGNATURE
    await second.add_message({"role": "user", "content": "after resume"})
    assert len(lines(path)) == 4
    second.close()


def test_unicode_line_separators_are_escaped_so_each_physical_line_is_one_message():
    line = persistent.encode_message({"role": "user", "content": "a\u2028b\u2029c\x85d\ne"})
    assert line.endswith("\n") and len(line.splitlines()) == 1
    assert json.loads(line)["content"] == "a\u2028b\u2029c\x85d\ne"


async def test_corrupt_line_is_skipped_with_a_warning_naming_file_and_line(tmp_path, caplog):
    path = tmp_path / "ctx.jsonl"
    path.write_text('{"role": "user", "content": "ok"}\n{not json\n[1, 2]\n'
                    '{"role": "assistant", "content": "b"}\n', encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        manager = opened(path)
    assert [message["content"] for message in await manager.get_messages()] == ["ok", "b"]
    assert f"{path} line 2" in caplog.text and f"{path} line 3" in caplog.text
    manager.close()


async def test_torn_last_line_does_not_swallow_the_next_message(tmp_path, caplog):
    path = tmp_path / "ctx.jsonl"
    path.write_text('{"role": "user", "content": "ok"}\n{"role": "assist', encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        manager = opened(path)
    await manager.add_message({"role": "user", "content": "next"})
    manager.close()
    with caplog.at_level(logging.WARNING):
        again = opened(path)
    assert [message["content"] for message in await again.get_messages()] == ["ok", "next"]
    again.close()


async def test_requests_do_not_reread_the_file(tmp_path, monkeypatch):
    path = tmp_path / "ctx.jsonl"
    manager = opened(path)
    await manager.add_message({"role": "user", "content": "hi"})

    def fail(*_args, **_kwargs):
        raise AssertionError("file re-read")

    monkeypatch.setattr(persistent, "read_jsonl_messages", fail)
    monkeypatch.setattr(Path, "read_bytes", fail)
    for _ in range(3):
        assert len(await manager.get_messages_for_request()) == 1
    assert len(await manager.get_messages()) == 1
    manager.close()


async def test_set_messages_rewrites_the_file_atomically_via_replace(tmp_path, monkeypatch):
    path = tmp_path / "ctx.jsonl"
    manager = opened(path)
    await manager.add_message({"role": "user", "content": "old"})
    replaced = []
    real_replace = persistent.os.replace
    monkeypatch.setattr(persistent.os, "replace", lambda src, dst: (replaced.append((src, dst)),
                                                                     real_replace(src, dst)))
    await manager.set_messages([{"role": "user", "content": "new 1"},
                                {"role": "assistant", "content": "new 2"}])
    assert [message["content"] for message in lines(path)] == ["new 1", "new 2"]
    assert len(replaced) == 1 and Path(replaced[0][1]) == path and Path(replaced[0][0]).parent == tmp_path
    await manager.add_message({"role": "user", "content": "appended"})
    assert [message["content"] for message in lines(path)] == ["new 1", "new 2", "appended"]
    assert sorted(item.name for item in tmp_path.iterdir()) == ["ctx.jsonl"]
    manager.close()


async def test_set_messages_with_the_loaded_history_leaves_the_file_alone(tmp_path, monkeypatch):
    path = tmp_path / "ctx.jsonl"
    first = opened(path)
    await first.add_message({"role": "user", "content": "a"})
    first.close()
    second = opened(path)
    monkeypatch.setattr(persistent.os, "replace", lambda *_: pytest.fail("rewrote an unchanged history"))
    await second.set_messages(await second.get_messages())
    second.close()


async def test_clear_empties_the_file(tmp_path):
    path = tmp_path / "ctx.jsonl"
    manager = opened(path)
    await manager.add_message({"role": "user", "content": "a"})
    await manager.clear()
    assert path.read_text("utf-8") == ""
    await manager.add_message({"role": "user", "content": "b"})
    assert [message["content"] for message in lines(path)] == ["b"]
    manager.close()


async def test_fsync_per_message_when_configured(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(persistent.os, "fsync", lambda fd: synced.append(fd))
    manager = opened(tmp_path / "ctx.jsonl", fsync=True)
    await manager.add_message({"role": "user", "content": "a"})
    await manager.add_message({"role": "user", "content": "b"})
    assert len(synced) == 2
    manager.close()


async def test_no_fsync_per_message_by_default(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(persistent.os, "fsync", lambda fd: synced.append(fd))
    manager = opened(tmp_path / "ctx.jsonl")
    await manager.add_message({"role": "user", "content": "a"})
    assert synced == []
    manager.close()


async def test_shares_context_simple_compaction_and_keeps_the_file_whole(tmp_path):
    registry = HookRegistry()
    seen = []

    async def record(event, data):
        seen.append(event)
        return HookResult()

    registry.register("context:post_compact", record)
    manager = PersistentContextManager(tmp_path / "ctx.jsonl", PersistentContextConfig(max_tokens=1000),
                                       hooks=registry)
    manager.open()
    assert isinstance(manager, SimpleContextManager)
    await manager.add_message({"role": "system", "content": "sys"})
    for turn in range(20):
        await manager.add_message({"role": "user", "content": f"q{turn} " + "x" * 300})
        await manager.add_message({"role": "assistant", "content": f"a{turn} " + "y" * 300})
    view = await manager.get_messages_for_request()
    assert len(view) < 41 and seen == ["context:post_compact"]
    assert len(lines(tmp_path / "ctx.jsonl")) == 41
    manager.close()


# -- mount -------------------------------------------------------------------------------------------------

async def test_mount_uses_config_path_with_session_id_and_cleanup_closes(tmp_path):
    coordinator = ModuleCoordinator(session=None)
    cleanup = await persistent.mount(coordinator, {"path": str(tmp_path / "{session_id}.jsonl")})
    manager = coordinator.get("context")
    assert isinstance(manager, PersistentContextManager)
    assert manager.path == tmp_path / "session.jsonl"
    cleanup()
    assert manager._descriptor is None


async def test_mount_takes_the_path_from_the_session_transcript_capability(tmp_path):
    coordinator = ModuleCoordinator(session=None)
    coordinator.register_capability("session.transcript_path", tmp_path / "from-app.jsonl")
    cleanup = await persistent.mount(coordinator, {})
    await coordinator.get("context").add_message({"role": "user", "content": "x"})
    assert len(lines(tmp_path / "from-app.jsonl")) == 1
    cleanup()


async def test_mount_announces_the_file_it_writes_so_the_app_need_not_write_it_too(tmp_path):
    coordinator = ModuleCoordinator(session=None)
    cleanup = await persistent.mount(coordinator, {"path": str(tmp_path / "ctx.jsonl")})
    assert coordinator.get_capability("context.transcript_path") == str(tmp_path / "ctx.jsonl")
    cleanup()


async def test_relative_path_is_resolved_against_the_working_dir_capability(tmp_path):
    coordinator = ModuleCoordinator(session=None)
    coordinator.register_capability("session.working_dir", str(tmp_path))
    cleanup = await persistent.mount(coordinator, {"path": "sub/ctx.jsonl"})
    assert coordinator.get("context").path == tmp_path / "sub" / "ctx.jsonl"
    cleanup()


async def test_upstream_transcript_path_key_is_read_as_path(tmp_path):
    coordinator = ModuleCoordinator(session=None)
    cleanup = await persistent.mount(coordinator, {"transcript_path": str(tmp_path / "up.jsonl")})
    assert coordinator.get("context").path == tmp_path / "up.jsonl"
    cleanup()


async def test_mount_without_any_path_explains_how_to_fix_it():
    with pytest.raises(ModuleConfigError, match=r"set `path:`.*session\.transcript_path"):
        await persistent.mount(ModuleCoordinator(session=None), {})


async def test_unknown_key_is_rejected():
    with pytest.raises(ModuleConfigError, match="did you mean 'fsync'"):
        await persistent.mount(ModuleCoordinator(session=None), {"fsnyc": True})


async def test_passes_the_kernel_context_validator(tmp_path):
    from amplifier_core.validation.context import ContextValidator

    package = Path(persistent.__file__).parent
    result = await ContextValidator().validate(package, config={"path": str(tmp_path / "v.jsonl")})
    assert result.passed, result.summary()


async def test_the_file_is_private_and_holds_secret_values_masked_while_memory_keeps_them(tmp_path, monkeypatch):
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-token-value-77")
    coordinator = ModuleCoordinator(session=None)
    coordinator.register_capability("session.transcript_path", tmp_path / "t.jsonl")
    coordinator.register_capability("secrets.values", {"PROFILE_KEY": "profile-key-value-1"})
    cleanup = await persistent.mount(coordinator, {})
    context = coordinator.get("context")
    await context.add_message({"role": "tool", "content": "deploy-token-value-77 profile-key-value-1"})
    await context.set_messages([{"role": "user", "content": "again deploy-token-value-77"}])
    await context.add_message({"role": "assistant", "content": "ok profile-key-value-1"})
    cleanup()
    text = (tmp_path / "t.jsonl").read_text("utf-8")
    assert "deploy-token-value-77" not in text and "profile-key-value-1" not in text
    assert [m["content"] for m in lines(tmp_path / "t.jsonl")] == ["again [REDACTED:DEPLOY_TOKEN]",
                                                                   "ok [REDACTED:PROFILE_KEY]"]
    assert (await context.get_messages())[0]["content"] == "again deploy-token-value-77"
    assert (tmp_path / "t.jsonl").stat().st_mode & 0o777 == 0o600


async def test_every_line_carries_schema_version_and_fits_the_published_transcript_schema(tmp_path):
    from testkit.event_schemas import assert_transcript_valid

    path = tmp_path / "transcript.jsonl"
    manager = opened(path)
    await manager.add_message({"role": "system", "content": "sys"})
    await manager.add_message({"role": "user", "content": "hello"})
    await manager.add_message({"role": "assistant", "content": [{"type": "text", "text": "hi"}],
                               "tool_calls": [{"id": "c1", "tool": "read_file", "arguments": {"path": "a"}}]})
    await manager.add_message({"role": "tool", "content": "data", "tool_call_id": "c1", "name": "read_file"})
    assert [line["schema_version"] for line in lines(path)] == [1, 1, 1, 1]
    assert_transcript_valid(path)
    await manager.set_messages([{"role": "user", "content": "rewritten"}])  # a whole-file rewrite too
    assert lines(path) == [{"schema_version": 1, "role": "user", "content": "rewritten"}]
    assert_transcript_valid(path)
    manager.close()
    resumed = opened(path)
    assert await resumed.get_messages() == [{"role": "user", "content": "rewritten"}]  # not a message field
    resumed.close()


async def test_a_write_the_disk_refuses_is_one_error_naming_the_file_and_leaves_no_half_line(tmp_path):
    path = tmp_path / "t.jsonl"
    manager = PersistentContextManager(path)
    manager.open()
    await manager.add_message({"role": "user", "content": "kept"})
    before = path.read_bytes()
    full = os.open("/dev/full", os.O_WRONLY)  # every write now fails: no space left on device
    os.dup2(full, manager._descriptor)
    os.close(full)
    with pytest.raises(OSError, match=r"could not save the last message to the transcript .*No space left") as raised:
        await manager.add_message({"role": "assistant", "content": "x" * 100_000})
    assert raised.value.filename == str(path)
    manager.close()  # nothing buffered is left to fail again on close
    assert path.read_bytes() == before
    assert [message["content"] for message in read_jsonl_messages(path)] == ["kept"]


async def test_a_compaction_is_appended_and_a_resume_continues_from_it(tmp_path):
    path = tmp_path / "t.jsonl"
    manager = PersistentContextManager(path)
    manager.open()
    for message in ({"role": "system", "content": "sys"}, {"role": "user", "content": "before"},
                    {"role": "assistant", "content": "answer"}):
        await manager.add_message(message)
    kept = [{"role": "system", "content": "sys", "metadata": {"compact_boundary": True}},
            {"role": "system", "content": "summary"}]
    await manager.replace_after_compaction(kept)
    await manager.add_message({"role": "user", "content": "after"})
    manager.close()
    assert [m["content"] for m in read_jsonl_messages(path)] == ["sys", "before", "answer", "sys", "summary", "after"]
    resumed = PersistentContextManager(path)
    resumed.open()
    assert [m["content"] for m in await resumed.get_messages()] == ["sys", "summary", "after"]
    resumed.close()
