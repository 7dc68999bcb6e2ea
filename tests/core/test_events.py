"""The event-name constants (reference section 9, section 13 item 54)."""

from __future__ import annotations

import re

import amplifier_core.events as events

UPSTREAM_NAMES = {
    "session:start", "session:end", "session:fork", "session:resume", "prompt:submit", "prompt:complete",
    "plan:start", "plan:end", "provider:request", "provider:response", "provider:retry", "provider:error",
    "provider:throttle", "provider:tool_sequence_repaired", "provider:resolve", "llm:request", "llm:response",
    "content_block:start", "content_block:delta", "content_block:end", "thinking:delta", "thinking:final",
    "tool:pre", "tool:post", "tool:error", "context:pre_compact", "context:post_compact",
    "context:compaction", "context:include", "orchestrator:complete", "execution:start", "execution:end",
    "user:notification", "artifact:write", "artifact:read", "policy:violation", "approval:required",
    "approval:granted", "approval:denied", "cancel:requested", "cancel:completed",
    "module:on_session_ready_failed",
}


def test_events_all_constants_listed_unique_and_well_named() -> None:
    constants = {
        name: value for name, value in vars(events).items()
        if name.isupper() and not name.startswith("_") and name != "ALL_EVENTS"
    }
    assert sorted(events.ALL_EVENTS) == sorted(constants.values())
    assert len(events.ALL_EVENTS) == len(set(events.ALL_EVENTS))
    pattern = re.compile(r"^[a-z][a-z_]*:[a-z][a-z_]*$")
    for value in events.ALL_EVENTS:
        assert pattern.match(value), value


def test_events_include_every_upstream_name() -> None:
    assert UPSTREAM_NAMES <= set(events.ALL_EVENTS)


def test_debug_and_raw_tiers_are_gone_as_in_2_0_2() -> None:
    """2.0.2 dropped the ``:debug``/``:raw`` event tiers (``session.raw`` attaches the config instead);
    their constants are gone too, so code relying on them fails at import as it does upstream."""
    for name in ("SESSION_START_DEBUG", "SESSION_START_RAW", "LLM_REQUEST_DEBUG", "LLM_RESPONSE_RAW"):
        assert not hasattr(events, name)
    assert not any(event.count(":") > 1 for event in events.ALL_EVENTS)


def test_all_events_starts_with_upstreams_43_in_order_then_this_projects_additions() -> None:
    from amplifier_core import events

    assert events.MODULE_LOAD_FAILED == "module:load_failed"
    upstream = events.ALL_EVENTS[:43]
    assert upstream[0] == "session:start" and upstream[-2:] == ["module:on_session_ready_failed",
                                                                "module:load_failed"]
    assert "llm:stream_block_start" in events.ALL_EVENTS[43:] and len(set(events.ALL_EVENTS)) == len(events.ALL_EVENTS)
