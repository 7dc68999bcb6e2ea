"""Scripted fake LLM API server on 127.0.0.1 speaking the Anthropic and OpenAI wire formats.

Tests script provider-neutral turns; the server renders each one in whatever API the request used
(Anthropic Messages, OpenAI Chat Completions, OpenAI Responses), as JSON or as an SSE stream according
to the request's `stream` flag, so the real SDKs parse it exactly as they parse the real services.

    from fakeapi import FakeAPIServer, Turn, ToolCall, Usage, Fault

    with FakeAPIServer() as server:                 # or the function-scoped pytest fixture `fake_api`
        server.base_url                             # http://127.0.0.1:PORT     -> anthropic.AsyncAnthropic
        server.openai_base_url                      # http://127.0.0.1:PORT/v1  -> openai.AsyncOpenAI
        server.add(Turn(text="hi"))                 # answers the next request that no earlier rule takes
        server.add(Turn(tool_calls=[ToolCall("write_file", {"path": "a.txt", "content": "x"})]),
                   when_last_user_contains="write")
        server.add(Turn(text="done"), when_last_tool_result_contains="wrote a.txt")
        server.add(Turn(thinking="hmm", signature="sig-123", text="ok",
                        usage=Usage(input_tokens=12, output_tokens=3, cache_read_input_tokens=100)),
                   when=lambda req: "plan" in req.first_user_text, repeat=True)
        server.add(Fault.status(429, retry_after=2))     # one-shot; the next rule answers the retry
        server.requests                             # journal: RecordedRequest(api, path, headers, body, ...)

Rules: the first rule, in the order added, whose matchers all hold answers a request; a rule answers
`times` requests (default 1) or any number with `repeat=True`. Matchers: `when=predicate(req)`,
`when_last_user_contains`, `when_last_tool_result_contains`, `when_first_user_contains`, `api=`
("anthropic" | "chat" | "responses"). Claiming a rule is atomic, so parallel requests and sub-sessions each
get their own answer. A reply may also be a function `req -> Turn | Fault`. A request no rule matches gets
HTTP 500 (with `x-should-retry: false`) whose message says no script rule matched, and is journaled with
outcome "unmatched" (see `server.unmatched`); `server.assert_all_used()` lists rules never consumed.

RecordedRequest gives neutral views: `last_user_text` (the final message when the user wrote it, "" when
the conversation ends with tool results), `last_tool_result_text`, `first_user_text`, `user_texts`,
`system_text`, `tool_names`, `model`, `stream`, `retry_count` (x-stainless-retry-count), `json`.

Turn: `text` or `text_chunks` (exact streamed pieces), `thinking` + `signature`, `redacted_thinking`,
`tool_calls` (ToolCall(name, arguments, id=None, argument_chunks=None)), `usage` (Usage: input_tokens,
output_tokens, cache_read_input_tokens, cache_creation_input_tokens, reasoning_tokens; OpenAI's prompt
token counts include the cached ones), `stop_reason` (end_turn, tool_use, max_tokens, stop_sequence,
refusal, pause_turn; default tool_use when there are tool calls, else end_turn), `chunk_gate` (a
threading.Event awaited before every text piece after the first) and `chunk_delay`.
Block order: thinking, redacted thinking, text, tool calls. Chat Completions has no thinking blocks; in
Responses thinking becomes a reasoning item (summary text, encrypted_content = signature) and redacted
thinking a reasoning item with only encrypted_content.

Faults (each is a reply like a Turn):
    Fault.status(429, retry_after=2)   # also retry_after_ms=, should_retry=, message=, error_type=, headers=
    Fault.status(529)                  # anthropic.OverloadedError; 401/400/500 map to their SDK classes
    Fault.stream_error(Turn(text="part"))    # 200 stream, then an in-stream error (non-stream: HTTP 500)
    Fault.stream_cut(Turn(text="part"))      # socket closes mid-block; clean_end=True ends the body cleanly
    Fault.malformed_sse()              # a frame with invalid JSON
    Fault.drop()                       # connection closed before any response byte
Stream faults send the turn's frames through its first content delta (or `after_frames=N` frames).

Slow responses without test-side sleeps: `server.add(Turn(...), gate=event)` holds the whole response
before its first byte until `event.set()` (or `delay=seconds`); `rule.matched` is an Event set when the
rule claims a request, and `server.wait_for_requests(n)` blocks until n requests arrived. Holds never
outlast `hold_timeout` (30 s) or the server's stop.

Standalone, for subprocess tests (tests/support must be on PYTHONPATH):
    python -m fakeapi --script FILE.yaml|json [--port N]
prints the base URL as its first stdout line and serves until killed. The script file format, named gates
(`POST /_fakeapi/gates/<name>`) and the journal endpoint (`GET /_fakeapi/requests`) are in README.md.
"""

from __future__ import annotations

from .request import RecordedRequest
from .rules import Rule
from .script import Fault, ToolCall, Turn, Usage
from .server import FakeAPIServer

__all__ = ["FakeAPIServer", "Fault", "RecordedRequest", "Rule", "ToolCall", "Turn", "Usage"]
