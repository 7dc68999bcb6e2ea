"""The session store under bad input and failing disks, through the installed command: a transcript line of the
wrong shape is reported and repaired like broken JSON, a write that fails is one message and exit 1 with the
transcript still whole, a working directory whose name is not UTF-8 works, and an empty chat is not a session."""

from __future__ import annotations

import json
import os
import resource
import subprocess

import pytest
import yaml

from .conftest import TIMEOUT, installed_amplifier

WRONG_SHAPES = [
    ('{"role": "assistant", "content": "x", "tool_calls": 3}', "has 'tool_calls' that is a number, not a list"),
    ('{"role": 7, "content": "x"}', "has 'role' a number"),
    ('{"role": "user", "content": {"text": "x"}}', "has 'content' that is an object"),
    ('{"role": "assistant", "content": [{"type": "tool_call", "id": "c1"}]}',
     "has a bad 'content[0]': a 'tool_call' block without 'name'"),
    ('["role", "user"]', "is a list, not a message object"),
    ('{"role": "assistant", "tool_calls": [{"id": 7}]}', "has no 'content'"),  # the line of issue 36, as written
    ('{"role": "assistant", "content": "", "tool_calls": [{"id": 7}]}',
     "has a bad 'tool_calls[0]': its 'id' is a number, not text"),
    ('{"role": "assistant", "content": "", "tool_calls": [{"id": "c9", "tool": 5}]}',
     "has a bad 'tool_calls[0]': its 'tool' is a number, not text"),
    ('{"role": "assistant", "content": "", "tool_calls": [{"id": "c9", "tool": "x", "arguments": [1]}]}',
     "has a bad 'tool_calls[0]': its 'arguments' is a list, not an object"),
]


@pytest.mark.parametrize(("line", "problem"), WRONG_SHAPES)
def test_a_transcript_line_of_the_wrong_shape_is_reported_with_file_and_line_and_repaired(e2e, line, problem):
    e2e.profile("scripted", provider="scripted", script=["one", {"text": "two", "match": "again"}], tools=())
    assert e2e.run("run", "-P", "scripted", "hello").returncode == 0
    session = e2e.only_session()
    transcript = session / "transcript.jsonl"
    with transcript.open("a") as handle:
        handle.write(line + "\n")
    original = transcript.read_bytes()

    result = e2e.run("run", "--resume", session.name, "again")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert f"{transcript}: line 4 {problem}" in result.stderr
    assert result.stdout == "two\n"
    kept = sorted(session.glob("transcript.jsonl.corrupt*"))  # the same repair path as a line that is not JSON
    assert len(kept) == 1 and kept[0].read_bytes() == original and str(kept[0]) in result.stderr
    assert [message["role"] for message in e2e.transcript(session)] == [
        "system", "user", "assistant", "user", "assistant"]
    shown = e2e.run("session", "show", session.name)
    assert shown.returncode == 0 and "Traceback" not in shown.stderr


def _limit_file_size(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_transcript_write_past_the_file_size_limit_is_one_message_exit_1_and_keeps_the_file_whole(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=["one", "two"], tools=(), hooks=())
    assert e2e.run("run", "-P", "scripted", "hello").returncode == 0
    session = e2e.only_session()
    transcript = session / "transcript.jsonl"
    before = transcript.read_bytes()
    limit = len(before) + 2000  # room for metadata, not for the next user message

    result = subprocess.run(
        [*installed_amplifier(), "run", "--resume", session.name, "x" * 5000], capture_output=True, text=True,
        cwd=e2e.project, env=e2e.env, timeout=TIMEOUT, preexec_fn=_limit_file_size(limit), check=False)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and str(transcript) in errors[0] and "File too large" in errors[0]
    assert transcript.read_bytes() == before  # no half-written line: what was saved before reads back the same
    assert [message["role"] for message in e2e.transcript(session)] == ["system", "user", "assistant"]
    resumed = e2e.run("run", "--resume", session.name, "short")
    assert resumed.returncode == 0 and "line" not in resumed.stderr


def test_the_persistent_context_writing_past_the_file_size_limit_is_one_message_and_no_half_line(e2e) -> None:
    """context-persistent writes the transcript itself: the same failure, the same single message."""
    path = e2e.profile("persistent", provider="scripted", script=["one", "two"], tools=(), hooks=())
    document = yaml.safe_load(path.read_text())
    document["session"]["context"] = {"module": "context-persistent"}
    path.write_text(yaml.safe_dump(document))
    assert e2e.run("run", "-P", "persistent", "hello").returncode == 0
    session = e2e.only_session()
    transcript = session / "transcript.jsonl"
    before = transcript.read_bytes()
    e2e.trust_now()
    result = subprocess.run(
        [*installed_amplifier(), "run", "--resume", session.name, "x" * 5000], capture_output=True, text=True,
        cwd=e2e.project, env=e2e.env, timeout=TIMEOUT, preexec_fn=_limit_file_size(len(before) + 2000), check=False)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and str(transcript) in errors[0] and "File too large" in errors[0]
    assert transcript.read_bytes() == before


def test_a_metadata_write_past_the_file_size_limit_names_the_file_and_keeps_the_old_one(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=["one", "two"], tools=(), hooks=())
    assert e2e.run("run", "-P", "scripted", "hello").returncode == 0
    session = e2e.only_session()
    metadata = session / "metadata.json"
    before = metadata.read_bytes()
    result = subprocess.run(
        [*installed_amplifier(), "run", "--resume", session.name, "hi"], capture_output=True, text=True,
        cwd=e2e.project, env=e2e.env, timeout=TIMEOUT, preexec_fn=_limit_file_size(len(before) // 2),
        check=False)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and str(metadata) in errors[0], result.stderr
    assert json.loads(metadata.read_bytes()) == json.loads(before)


def test_a_run_in_a_directory_whose_name_is_not_utf8_works_and_is_listed(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=["one", {"text": "two", "match": "more"}],
                tools=("tool-filesystem",))
    odd = os.path.join(os.fsencode(e2e.project), b"caf\xe9-\xff")
    os.mkdir(odd)
    command = [os.fsencode(part) for part in installed_amplifier()]
    e2e.trust_now()
    first = subprocess.run([*command, b"run", b"-P", b"scripted", b"hello"], capture_output=True, cwd=odd,
                           env=e2e.env, timeout=TIMEOUT, check=False)
    assert first.returncode == 0, first.stderr.decode(errors="replace")
    assert first.stdout == b"one\n" and b"Traceback" not in first.stderr
    session = e2e.only_session()
    assert e2e.metadata(session)["cwd"] == os.fsdecode(odd)  # JSON escapes give back the same name
    again = subprocess.run([*command, b"continue", b"more"], capture_output=True, cwd=odd, env=e2e.env,
                           timeout=TIMEOUT, check=False)
    assert again.returncode == 0, again.stderr.decode(errors="replace")
    assert again.stdout == b"two\n"
    listed = subprocess.run([*command, b"session", b"list", b"--json"], capture_output=True, cwd=odd,
                            env=e2e.env, timeout=TIMEOUT, check=False)
    assert listed.returncode == 0 and b"Traceback" not in listed.stderr
    assert [row["session_id"] for row in json.loads(listed.stdout)] == [session.name]


def test_a_project_whose_own_name_is_not_utf8_runs_chats_checkpoints_and_prints_json(e2e) -> None:
    """The project root itself (its own git repository) has a name that is not UTF-8: the checkpoint repository, the
    chat's history and the JSON output take the name as bytes, never a UnicodeEncodeError."""
    import pexpect
    from testkit.terminal import spawn_in_terminal

    odd = os.path.join(os.fsencode(e2e.project.parent), b"proj-caf\xe9-\xff")
    os.mkdir(odd)
    subprocess.run(["git", "init", "-q", odd], check=True)
    script = [{"tool_calls": [{"name": "write_file", "arguments": {"file_path": "a.txt", "content": "a\n"}}]},
              "wrote it", {"text": "chatted", "match": "chat"}]
    e2e.profile("odd", provider="scripted", script=script, tools=("tool-filesystem",), user=True)
    command = installed_amplifier()
    result = subprocess.run([*command, "run", "-P", "odd", "-o", "json", "write"], capture_output=True,
                            cwd=odd, env=e2e.env, timeout=TIMEOUT, check=False)
    assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr.decode(errors="replace")
    record = json.loads(result.stdout)
    assert record["response"] == "wrote it" and record["trust"]["project"] == os.fsdecode(odd)
    assert b"checkpoints are off" not in result.stderr
    session = e2e.only_session()
    assert [row["turn"] for row in map(json.loads, (session / "checkpoints.jsonl").read_text().splitlines())]

    chat = spawn_in_terminal(command[0], [*command[1:], "--resume", session.name, "-P", "odd"],
                             cwd=os.fsdecode(odd), env=e2e.env, encoding="utf-8", dimensions=(40, 160),
                             timeout=TIMEOUT)
    chat.expect_exact("❯ ")
    chat.send("chat\r")
    chat.expect_exact("chatted")
    chat.expect_exact("❯ ")
    chat.send("/exit\r")
    chat.expect(pexpect.EOF)
    chat.close()
    assert chat.exitstatus == 0 and "Traceback" not in chat.before, chat.before


def test_a_repaired_resume_after_compact_keeps_the_conversation_before_the_summary(e2e):
    """context-persistent keeps the transcript itself and reads it at mount: a resume that must repair it (a crash
    left a tool call without a result after a /compact) repairs the file first, so nothing before the summary is
    lost, and the context still continues from the summary."""
    e2e.profile("persist", provider="scripted", script=["one", {"text": "three", "match": "again"}], tools=())
    plan = yaml.safe_load((e2e.project / ".amplifier" / "profiles" / "persist.yaml").read_text())
    plan["session"]["context"] = {"module": "context-persistent"}
    (e2e.project / ".amplifier" / "profiles" / "persist.yaml").write_text(yaml.safe_dump(plan))
    assert e2e.run("run", "-P", "persist", "hello").returncode == 0
    session = e2e.only_session()
    transcript = session / "transcript.jsonl"
    with transcript.open("a") as handle:  # a /compact, then a turn a crash cut after its tool call
        handle.write(json.dumps({"role": "system", "content": "Summary: the user said hello.",
                                 "metadata": {"source": "compact-summary", "compact_boundary": True}}) + "\n")
        handle.write(json.dumps({"role": "user", "content": "list files"}) + "\n")
        handle.write(json.dumps({"role": "assistant", "content": [
            {"type": "tool_call", "id": "c1", "name": "glob", "input": {"pattern": "*"}}],
            "tool_calls": [{"id": "c1", "tool": "glob", "arguments": {"pattern": "*"}}]}) + "\n")

    result = e2e.run("run", "--resume", session.name, "again")
    assert result.returncode == 0, result.stderr
    assert "marked them interrupted" in result.stderr and result.stdout == "three\n"
    contents = [message.get("content") for message in e2e.transcript(session)]
    assert "hello" in contents and "Summary: the user said hello." in contents  # before and at the boundary
    assert [message["role"] for message in e2e.transcript(session)][-4:] == ["assistant", "tool", "user", "assistant"]
