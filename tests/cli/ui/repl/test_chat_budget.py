"""A budget given to the chat (`amplifier run --max-total-tokens N` with no prompt, in a terminal) stops the turn
that reaches it, says which budget, and refuses further model calls in that chat."""

from __future__ import annotations

from pathlib import Path

from fakeapi import ToolCall, Turn, Usage


def test_the_chat_stops_at_its_token_budget_and_makes_no_more_calls(spawn_chat, fake_api, chat_project: Path) -> None:
    fake_api.add(Turn(tool_calls=[ToolCall("write_file", {"path": "a.txt", "content": "x"})],
                      usage=Usage(input_tokens=900, output_tokens=200)), when_last_user_contains="write")
    fake_api.add(Turn(text="never-sent"), repeat=True)
    chat = spawn_chat("run", "--max-total-tokens", "1000")
    chat.ready()
    chat.exchange("write a file", "token budget reached: used 1100 tokens of 1000 tokens")
    chat.exchange("and another", "no more model calls in this chat")
    assert chat.exit() == 0
    assert len(fake_api.requests) == 1


def test_slash_fork_continues_in_a_copy_up_to_the_turn_under_the_same_sandbox(spawn_chat, fake_api,
                                                                              chat_project: Path) -> None:
    fake_api.add(Turn(text="said-one"), when_last_user_contains="first")
    fake_api.add(Turn(text="said-two"), when_last_user_contains="second")
    fake_api.add(Turn(text="said-three"), when_last_user_contains="third")
    chat = spawn_chat("run", "--sandbox", "read-only")
    chat.ready()
    chat.exchange("first", "said-one")
    chat.exchange("second", "said-two")
    chat.exchange("/fork 1", "now in the fork")
    chat.exchange("third", "said-three")
    chat.send_line("/status")
    status = chat.expect("sandbox: ") + chat.prompt()
    assert "read-only (Landlock ABI" in status  # --sandbox holds in the session switched to
    assert chat.exit() == 0
    assert fake_api.requests[-1].user_texts == ["first", "third"]


def test_slash_rewind_shows_the_diff_asks_and_keeps_hand_edits(spawn_chat, fake_api, chat_project: Path) -> None:
    (chat_project / "a.txt").write_text("mine\n")
    (chat_project / "b.txt").write_text("beta\n")
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "rm b.txt && echo made > c.txt"})]),
                 when_last_user_contains="change")
    fake_api.add(Turn(text="changed-them"), when_last_tool_result_contains="")
    fake_api.add(Turn(text="fresh-start"), when_last_user_contains="again")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("change files")
    chat.expect("choose 1-4")
    chat.child.send("1")
    chat.expect("changed-them")
    chat.prompt()
    assert not (chat_project / "b.txt").exists() and (chat_project / "c.txt").exists()
    (chat_project / "a.txt").write_text("mine, edited by hand\n")
    chat.send_line("/rewind 1")
    shown = chat.expect("[1] Rewind")
    assert "b.txt" in shown and "c.txt" in shown and "loses" in shown
    chat.child.send("1")
    shown = chat.expect("[1] Keep my changes")
    assert "Changed by hand since the session's last tool: a.txt" in shown
    chat.child.send("1")
    chat.expect("kept your changes to a.txt")
    chat.prompt()
    assert (chat_project / "b.txt").read_text() == "beta\n" and not (chat_project / "c.txt").exists()
    assert (chat_project / "a.txt").read_text() == "mine, edited by hand\n"
    chat.exchange("again", "fresh-start")
    assert chat.exit() == 0
    assert fake_api.requests[-1].user_texts == ["again"]
