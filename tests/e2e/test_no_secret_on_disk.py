"""A session run with known fake keys (one from the environment, one through a ${VAR} reference in the profile)
writes neither key to any file under AMPLIFIER_HOME: metadata, transcript, saved mount plan, events.jsonl."""

from __future__ import annotations

import uuid

from fakeapi import Fault, ToolCall, Turn


def test_no_key_appears_in_any_file_under_amplifier_home(e2e_api) -> None:
    referenced = f"sk-ant-api03-e2eref{uuid.uuid4().hex}{uuid.uuid4().hex}"
    from_env = f"sk-ant-api03-e2eenv{uuid.uuid4().hex}{uuid.uuid4().hex}"
    e2e_api.env["ANTHROPIC_API_KEY"] = from_env
    e2e_api.env["E2E_SECRET_KEY"] = referenced
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "note.txt", "content": "hi\n"})]))
    server.add(Turn(text="Wrote note.txt."))
    # A server that echoes the key in an error (some gateways do) must not get it logged either.
    server.add(Fault.status(400, message=f"bad request for key {referenced}"))
    e2e_api.profile(
        "secretive",
        provider_config={"api_key": "${E2E_SECRET_KEY}"},
        hooks=("hooks-streaming-ui", "hooks-logging", "hooks-redaction"),
        hook_config={"hooks-redaction": {"env_vars": ["ANTHROPIC_API_KEY", "E2E_SECRET_KEY"]}},
    )
    result = e2e_api.run("run", "-P", "secretive", "write a note")
    assert result.returncode == 0, result.stderr
    assert referenced in str(server.requests[0].headers)  # the ${VAR} value really was the credential sent
    failed = e2e_api.run("run", "--resume", e2e_api.only_session().name, "again")
    assert failed.returncode == 1

    session = e2e_api.only_session()
    assert (session / "events.jsonl").stat().st_size > 0
    assert "${E2E_SECRET_KEY}" in (session / "mount_plan.json").read_text()  # saved as the reference
    files = [path for path in e2e_api.home.rglob("*") if path.is_file()]
    assert len(files) >= 4
    for path in files:
        content = path.read_bytes()
        for secret in (referenced, from_env):
            assert secret.encode() not in content, f"a key was written to {path}"
    for output in (result.stdout, result.stderr, failed.stdout, failed.stderr):
        assert referenced not in output and from_env not in output
