"""Byte-level framing the SDKs rely on, checked with a plain HTTP client (no SDK in between)."""

from __future__ import annotations

import http.client
import json

from fakeapi import FakeAPIServer, Turn


def post(server: FakeAPIServer, path: str, body: dict, headers: dict | None = None) -> tuple[int, dict, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        connection.request("POST", path, json.dumps(body), {"content-type": "application/json", **(headers or {})})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_anthropic_stream_frames_every_event_with_an_event_line_and_pings(fake_api: FakeAPIServer):
    fake_api.add(Turn(text="hi"))
    status, headers, raw = post(fake_api, "/v1/messages", {"model": "m", "stream": True, "messages": []})
    frames = [f for f in raw.decode().split("\n\n") if f]
    assert status == 200 and headers["transfer-encoding"] == "chunked"
    assert all(frame.startswith("event: ") and "\ndata: {" in frame for frame in frames)
    assert frames[1] == 'event: ping\ndata: {"type":"ping"}'


def test_chat_stream_is_data_only_and_ends_with_done(fake_api: FakeAPIServer):
    fake_api.add(Turn(text="hi"))
    _, _, raw = post(fake_api, "/v1/chat/completions", {"model": "m", "stream": True, "messages": []})
    frames = [f for f in raw.decode().split("\n\n") if f]
    assert all(frame.startswith("data: ") for frame in frames)
    assert frames[-1] == "data: [DONE]"


def test_responses_events_carry_consecutive_sequence_numbers(fake_api: FakeAPIServer):
    fake_api.add(Turn(thinking="t", text="hi"))
    _, _, raw = post(fake_api, "/v1/responses", {"model": "m", "stream": True, "input": "x"})
    frames = [f for f in raw.decode().split("\n\n") if f]
    payloads = [json.loads(frame.split("\ndata: ", 1)[1]) for frame in frames]
    assert [p["sequence_number"] for p in payloads] == list(range(len(payloads)))
    assert all(frame.startswith(f"event: {p['type']}\n") for frame, p in zip(frames, payloads, strict=True))


def test_json_reply_has_content_length_and_keeps_the_connection_alive(fake_api: FakeAPIServer):
    fake_api.add(Turn(text="one"))
    fake_api.add(Turn(text="two"))
    connection = http.client.HTTPConnection("127.0.0.1", fake_api.port, timeout=5)
    texts = []
    for _ in range(2):
        connection.request("POST", "/v1/messages", json.dumps({"model": "m", "messages": []}))
        response = connection.getresponse()
        assert response.getheader("content-length")
        texts.append(json.loads(response.read())["content"][0]["text"])
    connection.close()
    assert texts == ["one", "two"]


def test_unknown_path_is_a_404_that_names_the_served_routes(fake_api: FakeAPIServer):
    status, _, raw = post(fake_api, "/v1/completions", {"model": "m"})
    assert status == 404
    assert "/v1/chat/completions" in json.loads(raw)["error"]["message"]
