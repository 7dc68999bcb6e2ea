"""`amplifier session migrate` rewrites transcripts written before schema_version existed; resume reads both."""

from __future__ import annotations

import json

from testkit.event_schemas import assert_transcript_valid


def test_migrate_upgrades_an_older_transcript_and_resume_reads_it(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=["first answer"], tools=())
    assert e2e.run("run", "-P", "scripted", "hello").returncode == 0
    session = e2e.only_session()
    transcript = session / "transcript.jsonl"
    older = [{k: v for k, v in json.loads(line).items() if k != "schema_version"}
             for line in transcript.read_text().splitlines()]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in older) + "not json: kept as it is\n")

    migrated = e2e.run("session", "migrate")
    assert migrated.returncode == 0, migrated.stderr
    assert f"{session.name}: {len(older)} line(s) migrated" in migrated.stdout
    lines = transcript.read_text().splitlines()
    assert lines[-1] == "not json: kept as it is"
    assert [json.loads(line) for line in lines[:-1]] == [{"schema_version": 1, **line} for line in older]
    again = e2e.run("session", "migrate", session.name[:8])
    assert "0 of 1 session(s) migrated" in again.stdout  # already current: untouched

    transcript.write_text("\n".join(lines[:-1]) + "\n")
    assert_transcript_valid(transcript)
    resumed = e2e.run("run", "--resume", session.name[:8], "-o", "json", "more")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["response"] == "first answer"  # the script starts over in a new process
    assert_transcript_valid(transcript)
    contents = [json.loads(line)["content"] for line in transcript.read_text().splitlines()]
    assert contents.count("hello") == 1 and contents.index("hello") < contents.index("more")
    assert "warning" not in resumed.stderr and not list(session.glob("*.corrupt*"))  # every line read back
