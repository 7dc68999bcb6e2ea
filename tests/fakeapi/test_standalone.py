"""`python -m fakeapi` serves a script file for subprocess tests and is controlled over HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anthropic
import openai
import pytest
from fakeapi.control import fetch_journal, release_gate

SUPPORT_DIR = Path(__file__).resolve().parents[1] / "support"

SCRIPT = """
models: [fake-one]
rules:
  - when_last_user_contains: write
    tool_calls: [{name: write_file, arguments: {path: a.txt}, id: toolu_7}]
  - fault: {kind: status, status: 429, retry_after: 3}
  - text_chunks: ["slow ", "answer"]
    chunk_gate: slow
    repeat: true
"""


def start(script: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SUPPORT_DIR), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(
        [sys.executable, "-m", "fakeapi", "--script", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.fixture
def standalone(tmp_path: Path) -> Iterator[str]:
    script = tmp_path / "script.yaml"
    script.write_text(SCRIPT)
    process = start(script)
    try:
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:"), process.stderr.read()
        yield base_url
    finally:
        process.terminate()
        process.wait(timeout=5)


async def test_standalone_server_plays_the_script_and_releases_named_gates(standalone: str):
    claude = anthropic.AsyncAnthropic(base_url=standalone, api_key="k", max_retries=0)
    tool_reply = await claude.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "write"}])
    assert tool_reply.content[0].input == {"path": "a.txt"}
    with pytest.raises(anthropic.RateLimitError) as error:
        await claude.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}])
    assert error.value.response.headers["retry-after"] == "3"
    async with claude.messages.stream(model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}]) as stream:
        texts = stream.text_stream.__aiter__()
        assert await texts.__anext__() == "slow "
        await asyncio.to_thread(release_gate, standalone, "slow")
        assert [piece async for piece in texts] == ["answer"]
    await claude.close()
    oai = openai.AsyncOpenAI(base_url=f"{standalone}/v1", api_key="k", max_retries=0)
    assert [m.id for m in (await oai.models.list()).data] == ["fake-one"]
    await oai.close()
    journal = await asyncio.to_thread(fetch_journal, standalone)
    assert [entry["outcome"] for entry in journal] == ["turn", "fault:status", "turn", "models"]


def test_bad_script_exits_2_and_names_the_entry_and_key(tmp_path: Path):
    script = tmp_path / "bad.json"
    script.write_text(json.dumps([{"text": "ok"}, {"txet": "typo"}]))
    process = start(script)
    _, stderr = process.communicate(timeout=10)
    assert process.returncode == 2
    assert "rule #2" in stderr and "'txet'" in stderr
