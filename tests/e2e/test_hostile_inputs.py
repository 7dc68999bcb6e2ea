"""The CLI's commands over hostile files (bytes that are not UTF-8, NULs, sizes, nesting, aliases, wrong shapes)
in settings, profiles and the session store: never a traceback, and the exit code says what kind of failure
it was (2: a file the user must fix, 1: a runtime failure). A transcript is the one exception by design: resume
reports the bad lines, keeps a copy of the file and goes on (exit 0 with a warning naming the file)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from amplifier_cli.sessions.store import SessionMetadata

NESTED = "x: " + "[" * 3000 + "]" * 3000 + "\n"
LAUGHS = "a: &a [1,1,1,1,1,1,1,1,1,1]\n" + "".join(
    f"{name}: &{name} [{', '.join(['*' + previous] * 10)}]\n"
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True))

# name -> bytes written at the file's place (None: a directory there instead of a file)
BYTES: dict[str, bytes | None] = {
    "not-utf8": b"profile:\n  active: \xff\xfe\xfa\n",
    "nul-and-binary": b"\x00\x00" + bytes(range(1, 256)),
}
YAML_BOMBS: dict[str, bytes | None] = {
    "huge": b"x: " + b"a" * (3 * 1024 * 1024) + b"\n",
    "nesting-bomb": NESTED.encode(),
    "alias-bomb": LAUGHS.encode(),
    "list-at-top": b"- one\n- two\n",
    "scalar-at-top": b"just some words\n",
}
CONTENTS = {**BYTES, **YAML_BOMBS}
STORE_CONTENTS = {**BYTES, "directory": None}
SETTINGS_SHAPES: dict[str, bytes] = {
    "profile-a-number": b"profile: 5\n",
    "sources-a-string": b"sources: nope\n",
}
PROFILE_SHAPES: dict[str, bytes] = {
    "providers-a-number": b"profile: {name: h}\nproviders: 5\n",
    "session-a-list": b"profile: {name: h}\nsession: []\n",
    "tool-a-number": b"profile: {name: h}\ntools: [5]\n",
    "extends-itself": b"profile: {name: h, extends: h}\n",
    "extends-unknown": b"profile: {name: h, extends: no-such-profile}\n",
    "config-a-list": b"profile: {name: h}\nproviders: [{module: provider-scripted, config: [1]}]\n",
}


def _place(path: Path, content: bytes | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)


def _assert_clean_failure(result, command: tuple[str, ...], file: Path) -> None:
    assert "Traceback" not in result.stderr, (command, result.stderr)
    assert result.returncode in (1, 2), (command, result.returncode, result.stdout, result.stderr)
    assert str(file) in result.stderr or file.name in result.stderr, (command, result.stderr)


@pytest.mark.parametrize("case", sorted({**CONTENTS, **SETTINGS_SHAPES}))
def test_hostile_project_settings(e2e, case: str) -> None:
    settings = e2e.project / ".amplifier" / "settings.yaml"
    _place(settings, {**CONTENTS, **SETTINGS_SHAPES}[case])
    for command in (("run", "-P", "demo", "hello"), ("profile", "use", "minimal", "--local")):
        _assert_clean_failure(e2e.run(*command), command, settings)


@pytest.mark.parametrize("case", sorted({**CONTENTS, **PROFILE_SHAPES}))
def test_hostile_profile(e2e, case: str) -> None:
    profile = e2e.project / ".amplifier" / "profiles" / "h.yaml"
    _place(profile, {**CONTENTS, **PROFILE_SHAPES}[case])
    for command in (("run", "-P", "h", "hello"), ("profile", "use", "h")):
        _assert_clean_failure(e2e.run(*command), command, profile)
    listed = e2e.run("profile", "list", "--json")  # the listing goes on, marking the one broken profile
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    row = next((row for row in json.loads(listed.stdout) if row["name"] == "h"), None)
    assert row is None or "invalid" in row["status"] or row["problems"] == [], row


SESSION_ID = "12345678-0000-4000-8000-000000000000"


def _session(e2e) -> Path:
    """A stored session of this project, as a finished run leaves it."""
    stamp = datetime.now(UTC).isoformat()
    project = str(e2e.project.resolve())
    meta = SessionMetadata(session_id=SESSION_ID, created=stamp, updated=stamp, cwd=project, project=project,
                           profile="h", turn_count=1, status="completed", first_prompt="hello")
    directory = e2e.sessions_dir / SESSION_ID
    directory.mkdir(parents=True)
    (directory / "metadata.json").write_text(json.dumps(meta.model_dump(mode="json")))
    (directory / "transcript.jsonl").write_text(
        '{"role": "system", "content": "s"}\n{"role": "user", "content": "hello"}\n'
        '{"role": "assistant", "content": [{"type": "text", "text": "one"}]}\n')
    e2e.profile("h", provider="scripted", script=["resumed answer"], tools=())
    return directory


METADATA_SHAPES: dict[str, bytes] = {
    "metadata-a-list": b"[]",
    "turn-count-a-string": json.dumps({"session_id": SESSION_ID, "turn_count": "many"}).encode(),
    "status-unknown": json.dumps({"session_id": SESSION_ID, "status": "exploded"}).encode(),
}


@pytest.mark.parametrize("case", sorted({**STORE_CONTENTS, **METADATA_SHAPES}))
def test_hostile_session_metadata(e2e, case: str) -> None:
    directory = _session(e2e)
    metadata = directory / "metadata.json"
    metadata.unlink()
    _place(metadata, {**STORE_CONTENTS, **METADATA_SHAPES}[case])
    for command in (("session", "show", SESSION_ID), ("run", "--resume", SESSION_ID, "again")):
        _assert_clean_failure(e2e.run(*command), command, metadata)
    listed = e2e.run("session", "list")  # the list goes on, naming the session it skipped
    assert listed.returncode == 0 and SESSION_ID in listed.stderr and "Traceback" not in listed.stderr


TRANSCRIPT_SHAPES: dict[str, bytes] = {
    "role-a-number": b'{"role": 1, "content": "x"}\n',
    "content-an-object": b'{"role": "user", "content": {"a": 1}}\n',
    "tool-calls-a-string": b'{"role": "assistant", "content": "x", "tool_calls": "call"}\n',
    "block-unknown": b'{"role": "assistant", "content": [{"type": "hologram"}]}\n',
    "deep-json": b'{"role": "user", "content": "x", "m": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
}


@pytest.mark.parametrize("case", sorted({**STORE_CONTENTS, **TRANSCRIPT_SHAPES}))
def test_hostile_transcript(e2e, case: str) -> None:
    directory = _session(e2e)
    transcript = directory / "transcript.jsonl"
    content = {**STORE_CONTENTS, **TRANSCRIPT_SHAPES}[case]
    if content is None:
        transcript.unlink()
        transcript.mkdir()
    else:
        with transcript.open("ab") as handle:
            handle.write(content)
    for command in (("session", "show", SESSION_ID), ("run", "--resume", SESSION_ID, "again")):
        result = e2e.run(*command)
        assert "Traceback" not in result.stderr, (command, result.stderr)
        if result.returncode == 0:  # read past the bad lines: said so, naming the file
            assert str(transcript) in result.stderr, (command, result.stderr)
        else:
            _assert_clean_failure(result, command, transcript)


@pytest.mark.parametrize("name", ["transcript.jsonl", "metadata.json"])
def test_a_fifo_in_place_of_a_session_file_is_refused_without_hanging(e2e, name: str) -> None:
    path = _session(e2e) / name
    path.unlink()
    os.mkfifo(path)
    for command in (("session", "show", SESSION_ID), ("run", "--resume", SESSION_ID, "again")):
        _assert_clean_failure(e2e.run(*command), command, path)
    listed = e2e.run("session", "list")
    assert listed.returncode == 0 and "Traceback" not in listed.stderr
