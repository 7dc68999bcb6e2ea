"""Commands people type in the chat (/compact, /cost, /diff), `amplifier "prompt"`, and the keyless demo chat:
the installed `amplifier` in a pty."""

from __future__ import annotations

from fakeapi import ToolCall, Turn, Usage
from testkit.trust import trust_project_now


def test_a_prompt_argument_opens_the_chat_with_it_as_the_first_message(spawn_chat, fake_api) -> None:
    fake_api.add(Turn(text="hello-back"), when_last_user_contains="hi")
    fake_api.add(Turn(text="second-answer"), when_last_user_contains="next")
    chat = spawn_chat("hi")  # `amplifier "hi"` in a terminal, as `claude "hi"`
    chat.expect("❯ hi")
    chat.expect("hello-back", timeout=90)  # the SDK's first stream builds its models: slow on a busy machine
    chat.prompt()  # the chat waits for the next message
    chat.exchange("next one", "second-answer")
    assert chat.exit() == 0
    assert fake_api.requests[-1].user_texts == ["hi", "next one"]


def test_demo_profile_answers_three_messages_in_a_row(spawn_chat, chat_project) -> None:
    chat = spawn_chat("-P", "demo")  # the bundled scripted profile: no server, no key
    chat.ready()
    chat.send_line("/help")
    listed = chat.expect("Input: Enter sends")
    from amplifier_cli.ui.repl.commands import COMMANDS

    assert all(name in listed for name, _, _ in COMMANDS) and "/compact" in listed and "/diff" in listed
    chat.exchange("write the demo file", "I wrote amplifier-demo.txt")
    chat.send_line("second question")
    assert "no turn left" not in chat.expect('You said: "second question"')
    chat.prompt()
    chat.exchange("third question", 'You said: "third question"')
    assert chat.exit() == 0
    assert (chat_project / "amplifier-demo.txt").exists()


def test_cost_shows_tokens_cache_reads_and_the_priced_cost_of_the_session(spawn_chat, fake_api, chat_project) -> None:
    profile = chat_project / ".amplifier" / "profiles" / "chat-test.yaml"
    profile.write_text(profile.read_text() + "pricing:\n  claude-test: {input: 3, output: 15}\n", encoding="utf-8")
    trust_project_now(chat_project)  # the user's own edit of their profile
    fake_api.add(Turn(text="answer-one", usage=Usage(input_tokens=1000, output_tokens=500,
                                                       cache_read_input_tokens=200)))
    chat = spawn_chat()
    chat.ready()
    chat.exchange("one", "answer-one")
    chat.send_line("/cost")
    shown = chat.expect("cost: ")
    value = chat.expect("\n")
    assert "sub-agents included" in shown
    assert "tokens out: 500" in shown and "cache reads 200" in shown
    assert "requests: 1 · claude-test" in shown
    assert value.strip().startswith("$0.0")
    assert chat.exit() == 0


def test_cost_says_so_when_the_model_has_no_price(spawn_chat, fake_api) -> None:
    fake_api.add(Turn(text="answer-one"))
    chat = spawn_chat()
    chat.ready()
    chat.exchange("one", "answer-one")
    chat.send_line("/cost")
    chat.expect("cost: ")
    assert chat.expect("\n").startswith("unknown: no price for claude-test")
    assert chat.exit() == 0


def test_diff_shows_what_the_models_tools_changed_in_the_session(spawn_chat, fake_api, chat_project) -> None:
    (chat_project / "notes.txt").write_text("original line\n", encoding="utf-8")
    (chat_project / "untouched.txt").write_text("same\n", encoding="utf-8")
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "echo added-by-tool >> notes.txt"})]),
                 when_last_user_contains="edit")
    fake_api.add(Turn(text="edited-it"), when_last_tool_result_contains="")
    chat = spawn_chat("--approval", "allow")
    chat.ready()
    chat.send_line("/diff")
    assert "No tool that can change files has run" in chat.expect("yet.")
    chat.exchange("edit the notes", "edited-it")
    chat.send_line("/diff")
    shown = chat.expect("Undo with /rewind")
    assert "Changed by the model's tools in this session: notes.txt" in shown
    assert "+added-by-tool" in shown and " original line" in shown
    assert "untouched.txt" not in shown
    assert chat.exit() == 0


def test_compact_summarizes_now_shows_a_receipt_and_the_chat_goes_on_from_the_summary(
        spawn_chat, fake_api, chat_project) -> None:
    fake_api.add(Turn(text="apples-answer " + "crunchy " * 200), when_last_user_contains="apples")
    fake_api.add(Turn(text="SUMMARY-TEXT: the user asked about apples; keep the varieties"),
                 when_last_user_contains="Summarize the conversation")
    fake_api.add(Turn(text="after-compact-answer"), when_last_user_contains="next")
    chat = spawn_chat()
    chat.ready()
    chat.exchange("tell me about apples", "apples-answer")
    chat.send_line("/compact the apple varieties")
    receipt = chat.expect("The summary kept:")
    assert "context compacted:" in receipt and "→ 2 messages" in receipt and "tokens" in receipt
    assert "SUMMARY-TEXT" in chat.prompt()
    summarize = fake_api.requests[-1]
    assert "Be sure to keep: the apple varieties" in summarize.user_texts[-1]
    assert "tell me about apples" in summarize.user_texts[-1]  # the conversation went to the summarizer
    chat.exchange("next question", "after-compact-answer")
    assert chat.exit() == 0
    last = fake_api.requests[-1]
    assert last.user_texts == ["next question"] and "SUMMARY-TEXT" in last.system_text


def test_compact_keeps_the_conversation_before_the_summary_for_show_fork_and_rewind(
        spawn_chat, fake_api, chat_project, amplifier_home) -> None:
    import json
    import os
    import subprocess

    from warmstart import amplifier_command

    fake_api.add(Turn(text="apples-answer"), when_last_user_contains="apples")
    fake_api.add(Turn(text="SUMMARY-TEXT"), when_last_user_contains="Summarize the conversation")
    fake_api.add(Turn(text="plain-answer"), when=lambda request: "Summarize" not in request.user_texts[-1],
                 repeat=True)
    chat = spawn_chat()
    chat.ready()
    chat.exchange("tell me about apples", "apples-answer")
    chat.send_line("/compact")
    chat.expect("The summary kept:")
    chat.prompt()
    chat.exchange("next question", "plain-answer")
    assert chat.exit() == 0

    def amplifier(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([*amplifier_command(), *args], cwd=chat_project, env=dict(os.environ),
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done

    [row] = json.loads(amplifier("session", "list", "--json").stdout)
    session = row["session_id"]
    transcript = amplifier_home / "data" / "sessions" / session / "transcript.jsonl"
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    users = [line["content"] for line in lines if line["role"] == "user"]
    assert users == ["tell me about apples", "next question"]  # nothing before the summary was removed
    assert [index for index, line in enumerate(lines) if (line.get("metadata") or {}).get("compact_boundary")] == [
        next(index for index, line in enumerate(lines) if line["role"] == "system" and index > 0)]
    assert "compacted: 1 time(s)" in amplifier("session", "show", session).stdout

    amplifier("run", "--resume", session, "resumed")  # continues from the summary, not from before it
    assert fake_api.requests[-1].user_texts == ["next question", "resumed"]
    assert "SUMMARY-TEXT" in fake_api.requests[-1].system_text

    amplifier("session", "fork", session, "--at", "1")
    fork = next(row["session_id"] for row in json.loads(amplifier("session", "list", "--json").stdout)
                if row["session_id"] != session)
    amplifier("run", "--resume", fork, "forked")  # the turn before the summary is reachable again
    assert fake_api.requests[-1].user_texts == ["tell me about apples", "forked"]

    amplifier("session", "rewind", session, "--to", "2", "--conversation-only", "--yes")
    amplifier("run", "--resume", session, "rewound")  # back to before the turn after the summary: before it, too
    assert fake_api.requests[-1].user_texts == ["tell me about apples", "rewound"]
    assert "SUMMARY-TEXT" not in fake_api.requests[-1].system_text
