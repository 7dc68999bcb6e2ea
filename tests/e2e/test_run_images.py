"""`amplifier run --image`: the image reaches each provider's request in its own wire format (type read from the
bytes), the transcript keeps it so a resumed session sends it again, and a file that cannot be sent is exit 2
with one message naming it."""

from __future__ import annotations

import base64
import json

import pytest
from fakeapi import ToolCall, Turn

# smallest valid-looking files of each kind: only their signatures matter to the sniffing
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(17)
JPEG = b"\xff\xd8\xff\xe0" + bytes(20)


def _user_content(body: dict, api: str) -> list:
    if api == "responses":
        [user] = [item for item in body["input"] if item.get("role") == "user"]
    else:
        [user] = [message for message in body["messages"] if message.get("role") == "user"]
    return user["content"]


@pytest.mark.parametrize(
    ("provider", "api"), [("anthropic", "anthropic"), ("openai", "responses"), ("openai", "chat")])
def test_an_image_goes_to_each_provider_in_its_wire_format(e2e_api, provider: str, api: str) -> None:
    (e2e_api.project / "shot.png").write_bytes(PNG)
    (e2e_api.project / "photo.webp").write_bytes(JPEG)  # a JPEG named .webp: the bytes decide
    e2e_api.server.add(Turn(text="I see two pictures"))
    config = {"api": api} if provider == "openai" else {}
    e2e_api.profile("vision", provider=provider, provider_config=config, tools=())
    result = e2e_api.run("run", "-P", "vision", "--image", "shot.png", "--image=photo.webp", "describe them")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "I see two pictures\n"
    [request] = e2e_api.server.requests
    content = _user_content(request.body, api)
    png64, jpeg64 = base64.b64encode(PNG).decode(), base64.b64encode(JPEG).decode()
    if api == "anthropic":  # the last block of the prompt carries the cache breakpoint, images included
        assert content == [
            {"type": "text", "text": "describe them"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png64}},
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": jpeg64},
             "cache_control": {"type": "ephemeral"}},
        ]
    elif api == "responses":
        assert content == [
            {"type": "input_text", "text": "describe them"},
            {"type": "input_image", "image_url": f"data:image/png;base64,{png64}", "detail": "auto"},
            {"type": "input_image", "image_url": f"data:image/jpeg;base64,{jpeg64}", "detail": "auto"},
        ]
    else:
        assert content == [
            {"type": "text", "text": "describe them"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png64}"}},
            {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{jpeg64}"}},
        ]
    [session] = e2e_api.session_dirs()
    stored = [json.loads(line) for line in (session / "transcript.jsonl").read_text("utf-8").splitlines()]
    [user] = [message for message in stored if message["role"] == "user"]
    assert user["content"][1]["source"]["data"] == png64  # kept whole, so a resume sends the image again


def test_an_image_is_sent_again_when_the_session_is_resumed(e2e_api) -> None:
    (e2e_api.project / "shot.png").write_bytes(PNG)
    e2e_api.server.add(Turn(text="first answer"), when_last_user_contains="look")
    e2e_api.server.add(Turn(text="second answer"), when_last_user_contains="again")
    e2e_api.profile("vision", tools=())
    assert e2e_api.run("run", "-P", "vision", "--image", "shot.png", "look").returncode == 0
    [session] = e2e_api.session_dirs()
    resumed = e2e_api.run("run", "-P", "vision", "--resume", session.name[:8], "and again")
    assert resumed.returncode == 0, resumed.stderr
    first_user = e2e_api.server.requests[-1].body["messages"][0]["content"]
    assert {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()} in [
        block.get("source") for block in first_user if isinstance(block, dict)]


@pytest.mark.parametrize(
    ("write", "expected"),
    [
        (lambda path: path.write_text("just text\n"), "is not a PNG, JPEG, GIF or WebP image"),
        (lambda path: path.write_bytes(PNG + bytes(4 * 1024 * 1024)), "over the 3,932,160-byte limit"),
        (lambda path: None, "no such file"),
    ],
    ids=["not-an-image", "too-big", "missing"],
)
def test_an_image_that_cannot_be_sent_is_exit_2_naming_the_file(e2e_api, write, expected: str) -> None:
    write(e2e_api.project / "pic.png")
    e2e_api.profile("vision", tools=())
    result = e2e_api.run("run", "-P", "vision", "--image", "pic.png", "what is it?")
    assert result.returncode == 2
    assert "--image pic.png" in result.stderr and expected in result.stderr
    assert "Traceback" not in result.stderr and not e2e_api.server.requests


def _big_pngs(e2e, prefix: str, count: int) -> list[str]:
    """``count`` PNG files of 3.7 MB (just under the per-image limit; only the signature matters), as --image
    arguments."""
    arguments = []
    for number in range(count):
        name = f"{prefix}{number}.png"
        (e2e.project / name).write_bytes(PNG + bytes([number]) * 3_700_000)
        arguments.append(f"--image={name}")
    return arguments


def _images_sent(body: dict) -> int:
    return sum(1 for message in body["messages"] if isinstance(message["content"], list)
               for block in message["content"] if block.get("type") == "image")


def test_a_session_whose_images_outgrow_a_request_sends_the_newest_and_describes_the_older(e2e_api) -> None:
    e2e_api.server.add(Turn(text="seen"), repeat=True)
    e2e_api.profile("vision", provider="anthropic", tools=())
    first = e2e_api.run("run", "-P", "vision", *_big_pngs(e2e_api, "a", 4), "first four")
    assert first.returncode == 0, first.stderr
    [session] = e2e_api.session_dirs()
    second = e2e_api.run("run", "--resume", session.name, *_big_pngs(e2e_api, "b", 4), "four more")
    assert second.returncode == 0 and "Traceback" not in second.stderr, second.stderr
    request = e2e_api.server.requests[-1]
    assert _images_sent(request.body) == 5  # this turn's four and the newest earlier one: ~25 MB, not ~40 MB
    assert len(request.raw_body) < 32_000_000
    assert request.raw_body.count(b"left out of this request") == 3
    stored = (session / "transcript.jsonl").read_text("utf-8")
    assert stored.count('"type": "image"') == 8  # the transcript keeps every image


def test_a_turn_whose_tool_returns_more_images_than_a_request_carries_is_stopped_before_sending(
        e2e_api) -> None:
    from mcptestserver import stdio_command
    from mcptestserver.fixtures import stdio_server_env

    command = stdio_command()  # over stdio: an HTTP server's event stream takes no message this large
    (e2e_api.project / ".amplifier" / "mcp.json").write_text(json.dumps({"mcpServers": {
        "local": {"command": command[0], "args": command[1:], "env": stdio_server_env()}}}))
    e2e_api.profile("mcp", provider="anthropic", tools=("tool-mcp",), hooks=("hooks-streaming-ui",))
    e2e_api.server.add(Turn(tool_calls=[ToolCall("mcp__local__pictures", {"count": 3, "size": 3_700_000})]),
                       when_last_user_contains="pictures")
    attached = _big_pngs(e2e_api, "c", 4)  # with the tool's three: about 35 MB encoded in the next request
    result = e2e_api.run("run", "-P", "mcp", "--approval", "allow", *attached, "show me the pictures")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "more than the 32.0 MB a provider accepts, so it was not sent" in result.stderr, result.stderr
    assert len(e2e_api.server.requests) == 1  # the call that asked for the tool; the oversized one never left
    e2e_api.assert_tool_pairs_complete(e2e_api.transcript(e2e_api.only_session()))
