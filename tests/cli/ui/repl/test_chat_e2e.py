"""The interactive chat end to end: the installed `amplifier` in a pty, the fake Anthropic API behind it."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import yaml
from fakeapi import ToolCall, Turn

from .conftest import wait_until_read


def transcript_of(home: Path) -> list[dict]:
    [session_dir] = [path for path in (home / "data" / "sessions").iterdir() if path.is_dir()]
    lines = (session_dir / "transcript.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line]


def test_several_turns_stream_text_before_each_turn_ends(spawn_chat, fake_api) -> None:
    gate = threading.Event()
    fake_api.add(Turn(text_chunks=["alpha-chunk ", "omega-chunk"], chunk_gate=gate), when_last_user_contains="one")
    fake_api.add(Turn(text="second-answer"), when_last_user_contains="two")
    chat = spawn_chat()  # `amplifier` with no arguments in a terminal is the chat
    chat.ready()
    chat.send_line("turn one")
    chat.expect("alpha-chunk")  # shown while the server still holds the rest of the answer
    gate.set()
    chat.expect("omega-chunk")
    chat.prompt()
    chat.exchange("turn two", "second-answer")
    assert chat.exit() == 0
    assert fake_api.requests[-1].user_texts == ["turn one", "turn two"]


def test_approval_deny_then_allow_once_then_always_allow_is_saved_and_reused(
    spawn_chat, fake_api, chat_project: Path
) -> None:
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "touch one.txt"})]), when_last_user_contains="first")
    fake_api.add(Turn(text="model-saw-denial"), when_last_tool_result_contains="Denied")
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "touch two.txt && echo made-two"})]),
                 when_last_user_contains="second")
    fake_api.add(Turn(text="model-saw-two"), when_last_tool_result_contains="made-two")
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "echo run >> runs.txt && echo ran-it"})]),
                 when_last_user_contains="third", times=2)
    fake_api.add(Turn(text="model-saw-run"), when_last_tool_result_contains="ran-it", times=2)
    chat = spawn_chat()
    chat.ready()

    chat.send_line("first")
    shown = chat.expect("choose 1-4")
    assert "Approval needed" in shown and "Tool: bash" in shown and "touch one.txt" in shown
    assert "Risk: medium (touch one.txt: changes files)" in shown  # the label says what the command does
    assert "[1] Allow once" in shown and "[2] Always allow" in shown
    chat.child.send("3")
    chat.expect("model-saw-denial")
    chat.prompt()
    assert not (chat_project / "one.txt").exists()

    chat.send_line("second")
    chat.expect("choose 1-4")
    chat.child.send("1")
    chat.expect("model-saw-two")
    chat.prompt()
    assert (chat_project / "two.txt").exists()

    chat.send_line("third")
    chat.expect("choose 1-4")
    chat.child.send("2")
    chat.expect("saved rule in")
    chat.expect("model-saw-run")
    chat.prompt()
    chat.send_line("third again")
    before = chat.expect("model-saw-run")
    assert "Approval needed" not in before
    chat.prompt()
    assert chat.exit() == 0
    assert (chat_project / "runs.txt").read_text() == "run\nrun\n"
    remembered = yaml.safe_load((Path(os.environ["AMPLIFIER_HOME"]) / "config" / "project-approvals.yaml").read_text())
    assert remembered[str(chat_project.resolve())]["rules"] == [
        {"tool": "bash", "command": "echo run >> runs.txt", "action": "allow"}]
    assert not (chat_project / ".amplifier" / "settings.local.yaml").exists()  # the project stays as trusted


def test_ctrl_c_stops_a_slow_answer_and_a_tool_then_the_chat_goes_on_and_continue_shows_it(
    spawn_chat, fake_api, amplifier_home: Path, chat_project: Path
) -> None:
    running = chat_project / "running.fifo"
    os.mkfifo(running)
    never = threading.Event()
    fake_api.add(Turn(text_chunks=["stream-start ", "never-shown"], chunk_gate=never),
                 when_last_user_contains="slow-stream")
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "echo go > running.fifo && sleep 30 && echo slept"})]),
                 when_last_user_contains="slow-tool")
    fake_api.add(Turn(text="after-interrupt-answer"), when_last_user_contains="after")
    chat = spawn_chat()
    chat.ready()

    chat.send_line("slow-stream please")
    chat.expect("stream-start")
    chat.child.sendcontrol("c")
    chat.expect("Interrupted")
    chat.prompt()

    chat.send_line("slow-tool please")
    chat.expect("sleep 30")  # the tool line
    wait_until_read(running)  # the command itself is running now (the tool line comes just before)
    chat.child.sendcontrol("c")
    chat.expect("Stopping after the running tool")
    chat.child.sendcontrol("c")
    chat.expect("Interrupted")
    chat.prompt()

    chat.exchange("after that", "after-interrupt-answer")
    assert chat.exit() == 0

    messages = transcript_of(amplifier_home)
    calls = {call["id"] for message in messages for call in message.get("tool_calls") or []}
    results = {message["tool_call_id"] for message in messages if message["role"] == "tool"}
    assert calls and calls == results  # every tool call has its result, interrupted ones included
    assert [m["content"] for m in messages if m["role"] == "user"] == [
        "slow-stream please", "slow-tool please", "after that"]

    resumed = spawn_chat("continue")
    history = resumed.expect("· session ")
    assert "Resumed session" in history and "slow-tool please" in history
    assert "after-interrupt-answer" in history
    resumed.prompt()
    assert resumed.exit() == 0


def test_slash_commands(spawn_chat, fake_api, chat_project: Path, amplifier_home: Path) -> None:
    (chat_project / "AGENTS.md").write_text("Project rule: be brief.\n")
    fake_api.add(Turn(text="first-reply"), when_last_user_contains="hello")
    fake_api.add(Turn(text="other-model-reply"), when_last_user_contains="switched")
    chat = spawn_chat()
    chat.ready()
    chat.exchange("hello", "first-reply")

    chat.send_line("/help")
    assert "/model" in chat.expect("Ctrl-D exits")
    chat.prompt()
    chat.send_line("/status")
    status = chat.expect("tools: ")
    assert "profile: chat-test" in status and "model: claude-test" in status and "tokens: in" in status
    chat.expect("bash")
    shown = chat.expect("instructions: ") + chat.prompt()
    assert "AGENTS.md" in shown.replace("\r\n", "").replace("\n", "")  # the long path may be wrapped
    chat.exchange("/tools", "bash_output")
    chat.exchange("/model claude-other", "Model for the next turns: anthropic · claude-other")
    chat.exchange("switched now", "other-model-reply")
    assert fake_api.requests[-1].model == "claude-other"

    chat.exchange("/save notes/chat.md", "Saved the conversation")
    saved = (chat_project / "notes" / "chat.md").read_text()
    assert "## You" in saved and "hello" in saved and "other-model-reply" in saved
    chat.exchange("/save chat.json", "Saved the conversation")
    assert json.loads((chat_project / "chat.json").read_text())["messages"][0]["role"] == "system"

    chat.send_line("/clear")
    chat.expect("kept 2 system message(s)")  # the profile's instruction and AGENTS.md
    chat.prompt()
    assert [message["role"] for message in transcript_of(amplifier_home)] == ["system", "system"]

    chat.exchange("/stauts", "Did you mean /status?")
    chat.exchange("/resume", "No other sessions")
    assert chat.exit() == 0


def test_file_mentions_shell_commands_and_multi_line_input(spawn_chat, fake_api, chat_project: Path) -> None:
    (chat_project / "notes.txt").write_text("the-file-content\n")
    fake_api.add(Turn(text="ok-answer"), repeat=True)
    chat = spawn_chat("run")
    chat.ready()

    chat.exchange("summarise @notes.txt", "ok-answer")
    assert "the-file-content" in fake_api.requests[-1].last_user_text

    chat.exchange("read @missing.txt", "no such file")
    chat.exchange("!echo shell-$((6*7))", "shell-42")
    assert len(fake_api.requests) == 1  # neither was sent to the model

    chat.child.send("line one")
    chat.child.sendcontrol("j")
    chat.child.send("line two\x1b\r")  # Alt-Enter
    chat.exchange("line three", "ok-answer")
    assert fake_api.requests[-1].last_user_text == "line one\nline two\nline three"

    chat.child.send("\x1b[200~pasted one\rpasted two\x1b[201~")  # bracketed paste keeps its newline
    chat.exchange("", "ok-answer")
    assert fake_api.requests[-1].last_user_text == "pasted one\npasted two"

    chat.child.send("discard this")
    chat.child.sendcontrol("c")  # clears the line
    chat.exchange("kept input", "ok-answer")
    assert fake_api.requests[-1].last_user_text == "kept input"

    chat.child.sendcontrol("r")  # reverse search through the history
    chat.child.send("line t")
    chat.expect("line two")  # the entry found (the match itself is drawn highlighted)
    chat.child.send("\r")  # takes the found entry into the line
    chat.exchange("", "ok-answer")
    assert fake_api.requests[-1].last_user_text == "line one\nline two\nline three"

    chat.child.sendcontrol("d")
    chat.child.expect("amplifier continue")
    chat.child.expect(__import__("pexpect").EOF)
    chat.child.close()
    assert chat.child.exitstatus == 0


def test_ctrl_c_still_stops_a_tool_that_was_approved_in_the_chat(spawn_chat, fake_api, chat_project) -> None:
    started = chat_project / "started.fifo"
    os.mkfifo(started)
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "echo go >> started.fifo && sleep 30"})]),
                 when_last_user_contains="approved-tool")
    fake_api.add(Turn(text="next-turn-answer"), when_last_user_contains="next")
    fake_api.add(Turn(text="never-asked-again"), when_last_tool_result_contains="")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("approved-tool please")
    chat.expect("choose 1-4")
    chat.child.send("1")
    chat.expect("→ Allow once")
    # Only once the approved command runs is the question surely gone and the terminal back in the turn's
    # hands (before that, ^C may still be read as a key by the closing question).
    wait_until_read(started)
    chat.child.sendcontrol("c")  # the approval question has closed; Ctrl-C belongs to the turn again
    chat.expect("Stopping")
    chat.child.sendcontrol("c")
    chat.expect("Interrupted")
    chat.prompt()
    chat.exchange("next", "next-turn-answer")
    assert chat.exit() == 0
    assert all("never-asked-again" not in str(request.json) for request in fake_api.requests)


def test_ctrl_c_at_an_approval_question_denies_and_stops_the_turn(spawn_chat, fake_api, chat_project) -> None:
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "touch asked.txt"})]),
                 when_last_user_contains="ask-me")
    fake_api.add(Turn(text="next-turn-answer"), when_last_user_contains="next")
    fake_api.add(Turn(text="model-asked-after-denial"), when_last_tool_result_contains="")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("ask-me please")
    chat.expect("choose 1-4")
    chat.child.sendcontrol("c")
    shown = chat.prompt()
    assert "Deny" in shown and "model-asked-after-denial" not in shown
    assert len(fake_api.requests) == 1  # the denial was recorded, the model was not asked to carry on
    assert not (chat_project / "asked.txt").exists()
    chat.exchange("next", "next-turn-answer")
    assert chat.exit() == 0


def test_output_of_a_parallel_tool_lands_above_an_open_approval_question(spawn_chat, fake_api) -> None:
    gate = threading.Event()
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "touch asked.txt"}),
                                  ToolCall("bash", {"command": "echo parallel-done"})]),
                 when_last_user_contains="both")
    fake_api.add(Turn(text="after-both", chunk_gate=gate), when_last_tool_result_contains="")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("both please")
    chat.child.expect_exact("bash: parallel-done", timeout=20)  # the read-only call finished during the question
    raw = chat.child.before
    question = raw.rfind("choose 1-4:")
    if question != -1:  # the result line was written after the question: it must not share its line
        between = raw[question:]
        assert "\n" in between or "\x1b[J" in between or "\x1b[K" in between, repr(between)
    chat.child.send("3")
    gate.set()
    chat.expect("after-both")
    chat.prompt()
    assert chat.exit() == 0


def test_the_user_can_run_a_command_once_outside_the_sandbox_and_status_shows_it(
    spawn_chat, fake_api, chat_project: Path
) -> None:
    import shutil
    import tempfile

    outside = Path(tempfile.mkdtemp(prefix="amplifier-repl-sandbox-", dir="/var/tmp"))  # no write root
    try:
        command = f"touch {outside}/x && echo made-x"
        fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": command})]), when_last_user_contains="go",
                     times=2)
        fake_api.add(Turn(text="model-saw-made"), when_last_tool_result_contains="made-x")
        fake_api.add(Turn(text="model-saw-block"), when_last_tool_result_contains="Blocked by the sandbox")
        chat = spawn_chat()
        chat.ready()
        chat.send_line("/status")
        status = chat.expect("sandbox: ") + chat.prompt()
        assert "workspace-write (Landlock ABI" in status and str(chat_project) in status

        chat.send_line("go")
        shown = chat.expect("choose 1-4")
        assert "[3] Deny" in shown and "[4] Run once outside the sandbox" in shown
        chat.child.send("4")
        chat.expect("runs once outside the sandbox")
        chat.expect("model-saw-made")
        chat.prompt()
        assert (outside / "x").exists()

        (outside / "x").unlink()
        chat.send_line("go again")  # the grant was for that one call
        chat.expect("choose 1-4")
        chat.child.send("1")
        chat.expect("model-saw-block")
        chat.prompt()
        assert not (outside / "x").exists()
        assert chat.exit() == 0
    finally:
        shutil.rmtree(outside, ignore_errors=True)
