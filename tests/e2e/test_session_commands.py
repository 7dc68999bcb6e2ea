"""`amplifier session list | show | delete | cleanup` through the installed command, on sessions made by a real
run and on metadata-only sessions written here (with chosen timestamps, so ordering never races the clock)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from amplifier_cli.sessions.store import SessionMetadata

NOW = datetime.now(UTC)


def _write_session(
    sessions: Path, session_id: str, project: Path, *, age: timedelta, parent_id: str | None = None
) -> Path:
    """A metadata-only session, as `session list` sees it (it never reads transcripts)."""
    stamp = (NOW - age).isoformat(timespec="seconds")
    metadata = SessionMetadata(
        session_id=session_id, parent_id=parent_id, created=stamp, updated=stamp, cwd=str(project),
        project=str(project), profile="scripted", model="scripted", status="completed", turn_count=1,
        first_prompt=f"prompt of {session_id[:8]}",
    )
    directory = sessions / session_id
    directory.mkdir(parents=True)
    (directory / "metadata.json").write_text(json.dumps(metadata.model_dump(mode="json")))
    return directory


def _ids(result) -> list[str]:
    assert result.returncode == 0, result.stderr
    return [row["session_id"] for row in json.loads(result.stdout)]


def test_list_shows_this_projects_sessions_newest_first_with_limit_and_all_projects(e2e) -> None:
    project = e2e.project.resolve()
    newest, middle, oldest = (f"{digit * 8}-0000-4000-8000-000000000000" for digit in "123")
    for session_id, hours in ((middle, 2), (newest, 1), (oldest, 3)):
        _write_session(e2e.sessions_dir, session_id, project, age=timedelta(hours=hours))
    _write_session(e2e.sessions_dir, "44444444-0000-4000-8000-000000000000", project, age=timedelta(0),
                   parent_id=newest)  # a sub-agent session: hidden from the list
    other = "55555555-0000-4000-8000-000000000000"
    _write_session(e2e.sessions_dir, other, project.parent / "elsewhere", age=timedelta(0))

    assert _ids(e2e.run("session", "list", "--json")) == [newest, middle, oldest]
    assert _ids(e2e.run("session", "list", "--json", "-n", "2")) == [newest, middle]
    assert _ids(e2e.run("session", "list", "--json", "--all-projects")) == [other, newest, middle, oldest]
    table = e2e.run("session", "list")
    assert table.returncode == 0 and all(session_id[:8] in table.stdout for session_id in (newest, middle, oldest))
    assert other[:8] not in table.stdout


def test_show_reports_metadata_and_messages_of_a_real_run(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=[
        {"tool_calls": [{"name": "write_file", "arguments": {"file_path": "a.txt", "content": "a\n"}}]},
        "Wrote a.txt.",
    ])
    assert e2e.run("run", "-P", "scripted", "write a.txt").returncode == 0
    session_id = e2e.only_session().name
    shown = e2e.run("session", "show", session_id[:6], "--json")
    assert shown.returncode == 0, shown.stderr
    detail = json.loads(shown.stdout)
    assert detail["metadata"]["session_id"] == session_id
    assert detail["metadata"]["profile"] == "scripted" and detail["metadata"]["turn_count"] == 1
    assert detail["message_counts"] == {"system": 1, "user": 1, "assistant": 2, "tool": 1}
    assert detail["recent_messages"][-1] == {"role": "assistant", "text": "Wrote a.txt."}
    text = e2e.run("session", "show", session_id[:6])
    assert text.returncode == 0 and session_id in text.stdout and "Wrote a.txt." in text.stdout
    listed = json.loads(e2e.run("session", "list", "--json").stdout)
    assert listed[0]["session_id"] == session_id and listed[0]["first_prompt"] == "write a.txt"


def test_an_ambiguous_prefix_lists_the_candidates_and_exits_2(e2e) -> None:
    first, second = "abcd0000-0000-4000-8000-000000000001", "abcd1111-0000-4000-8000-000000000002"
    for session_id in (first, second):
        _write_session(e2e.sessions_dir, session_id, e2e.project, age=timedelta(0))
    result = e2e.run("session", "show", "abcd")
    assert result.returncode == 2
    assert first in result.stderr and second in result.stderr and "Traceback" not in result.stderr


def test_delete_needs_force_without_a_terminal_and_removes_the_session(e2e) -> None:
    session_id = "66666666-0000-4000-8000-000000000000"
    directory = _write_session(e2e.sessions_dir, session_id, e2e.project, age=timedelta(0))
    refused = e2e.run("session", "delete", "6666")
    assert refused.returncode == 2 and "--force" in refused.stderr and directory.exists()
    deleted = e2e.run("session", "delete", "6666", "-f")
    assert deleted.returncode == 0, deleted.stderr
    assert session_id in deleted.stdout and not directory.exists()
    assert e2e.run("session", "show", session_id).returncode == 2


def test_cleanup_lists_this_projects_old_sessions_and_deletes_them_only_when_confirmed(e2e, tmp_path) -> None:
    project = e2e.project.resolve()
    elsewhere = tmp_path / "other-project"
    old = _write_session(e2e.sessions_dir, "77777777-0000-4000-8000-000000000000", project, age=timedelta(days=30))
    recent = _write_session(e2e.sessions_dir, "88888888-0000-4000-8000-000000000000", project,
                            age=timedelta(days=2))
    foreign = _write_session(e2e.sessions_dir, "99999999-0000-4000-8000-000000000000", elsewhere,
                             age=timedelta(days=30))

    refused = e2e.run("session", "cleanup", "--days", "7")  # no terminal, no -f: nothing is deleted
    assert refused.returncode == 2
    assert "--force" in refused.stderr and "Traceback" not in refused.stderr
    assert "77777777" in refused.stdout and "99999999" not in refused.stdout  # shows what it would delete
    assert old.exists() and recent.exists() and foreign.exists()

    result = e2e.run("session", "cleanup", "--days", "7", "-f")
    assert result.returncode == 0, result.stderr
    assert "Deleted 1 session" in result.stdout and "prompt of 77777777" in result.stdout
    assert not old.exists() and recent.exists() and foreign.exists()  # another project's sessions stay

    everywhere = e2e.run("session", "cleanup", "--days", "7", "--all", "-f")
    assert everywhere.returncode == 0, everywhere.stderr
    assert "Deleted 1 session" in everywhere.stdout and not foreign.exists() and recent.exists()


def test_cleanup_in_a_terminal_asks_and_keeps_everything_on_no(e2e) -> None:
    old = _write_session(e2e.sessions_dir, "77777777-0000-4000-8000-000000000000", e2e.project.resolve(),
                         age=timedelta(days=30))
    import pexpect
    from testkit.terminal import spawn_in_terminal

    from .conftest import TIMEOUT, installed_amplifier

    command = installed_amplifier()
    child = spawn_in_terminal(command[0], [*command[1:], "session", "cleanup", "--days", "7"], cwd=str(e2e.project),
                              env=e2e.env, encoding="utf-8", timeout=TIMEOUT)
    child.expect("Delete these 1 session")
    child.sendline("n")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1 and old.exists()


def test_list_works_with_two_thousand_sessions(e2e) -> None:
    project = e2e.project.resolve()
    for index in range(2000):
        _write_session(e2e.sessions_dir, f"{index:08x}-0000-4000-8000-000000000000", project,
                       age=timedelta(seconds=index))
    everything = _ids(e2e.run("session", "list", "--json", "-n", "0"))
    assert len(everything) == 2000 and everything[0] == "00000000-0000-4000-8000-000000000000"
    assert _ids(e2e.run("session", "list", "--json", "-n", "5"))[-1] == "00000004-0000-4000-8000-000000000000"


def test_a_path_given_as_session_id_never_reaches_outside_the_store(e2e) -> None:
    victim = _write_session(e2e.home / "victim-parent", "victim", e2e.project, age=timedelta(0))
    outside = "../../victim-parent/victim"  # relative to <home>/data/sessions
    for args in (["session", "show", outside], ["session", "delete", "-f", outside],
                 ["run", "--resume", outside, "hi"]):
        result = e2e.run(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert "not a session id" in result.stderr
    assert victim.exists()


def test_a_chosen_uuid_names_the_new_session_and_cannot_be_reused(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=["one"], tools=())
    chosen = "0f0f0f0f-1111-4222-8333-444444444444"
    assert e2e.run("run", "-P", "scripted", "--session-id", chosen, "hi").returncode == 0
    assert [path.name for path in e2e.session_dirs()] == [chosen]
    again = e2e.run("run", "-P", "scripted", "--session-id", chosen, "hi")
    assert again.returncode == 2 and "already used" in again.stderr


def test_list_names_a_session_whose_metadata_is_corrupt_on_stderr_and_lists_the_rest(e2e) -> None:
    project = e2e.project.resolve()
    good = "66666666-0000-4000-8000-000000000000"
    _write_session(e2e.sessions_dir, good, project, age=timedelta(hours=1))
    broken = _write_session(e2e.sessions_dir, "77777777-0000-4000-8000-000000000000", project, age=timedelta(0))
    (broken / "metadata.json").write_text('{"session_id": ')
    for args in (("session", "list", "--json"), ("session", "list")):
        result = e2e.run(*args)
        assert result.returncode == 0, result.stderr
        assert good[:8] in result.stdout and "77777777" not in result.stdout
        assert str(broken / "metadata.json") in result.stderr and "not valid JSON" in result.stderr
    json.loads(e2e.run("session", "list", "--json").stdout)  # stdout stays pure JSON
    shown = e2e.run("session", "show", "7777")
    assert shown.returncode == 2 and "Traceback" not in shown.stderr
    assert str(broken / "metadata.json") in shown.stderr


def test_list_rejects_a_negative_limit_instead_of_dropping_the_oldest_sessions(e2e) -> None:
    result = e2e.run("session", "list", "-n", "-2")
    assert result.returncode == 2 and "--limit" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""
