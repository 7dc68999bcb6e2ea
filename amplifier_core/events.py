"""Canonical event names (``namespace:action``), kept identical to upstream so hooks subscribe by the same strings."""

from __future__ import annotations

SESSION_START = "session:start"
SESSION_END = "session:end"
SESSION_FORK = "session:fork"
SESSION_RESUME = "session:resume"

PROMPT_SUBMIT = "prompt:submit"
PROMPT_COMPLETE = "prompt:complete"

PLAN_START = "plan:start"
PLAN_END = "plan:end"

PROVIDER_REQUEST = "provider:request"
PROVIDER_RESPONSE = "provider:response"
PROVIDER_RETRY = "provider:retry"
PROVIDER_ERROR = "provider:error"
PROVIDER_THROTTLE = "provider:throttle"
PROVIDER_TOOL_SEQUENCE_REPAIRED = "provider:tool_sequence_repaired"
PROVIDER_RESOLVE = "provider:resolve"

LLM_REQUEST = "llm:request"
LLM_RESPONSE = "llm:response"

CONTENT_BLOCK_START = "content_block:start"
CONTENT_BLOCK_DELTA = "content_block:delta"
CONTENT_BLOCK_END = "content_block:end"

THINKING_DELTA = "thinking:delta"
THINKING_FINAL = "thinking:final"

TOOL_PRE = "tool:pre"
TOOL_POST = "tool:post"
TOOL_ERROR = "tool:error"

CONTEXT_PRE_COMPACT = "context:pre_compact"
CONTEXT_POST_COMPACT = "context:post_compact"
CONTEXT_COMPACTION = "context:compaction"
CONTEXT_INCLUDE = "context:include"

ORCHESTRATOR_COMPLETE = "orchestrator:complete"
EXECUTION_START = "execution:start"
EXECUTION_END = "execution:end"

USER_NOTIFICATION = "user:notification"

ARTIFACT_WRITE = "artifact:write"
ARTIFACT_READ = "artifact:read"

POLICY_VIOLATION = "policy:violation"
APPROVAL_REQUIRED = "approval:required"
APPROVAL_GRANTED = "approval:granted"
APPROVAL_DENIED = "approval:denied"

CANCEL_REQUESTED = "cancel:requested"
CANCEL_COMPLETED = "cancel:completed"

MODULE_ON_SESSION_READY_FAILED = "module:on_session_ready_failed"
MODULE_LOAD_FAILED = "module:load_failed"

# Streaming block events emitted by providers while a response streams (see docs/STREAMING.md).
LLM_STREAM_BLOCK_START = "llm:stream_block_start"
LLM_STREAM_BLOCK_DELTA = "llm:stream_block_delta"
LLM_STREAM_BLOCK_END = "llm:stream_block_end"
LLM_STREAM_ABORTED = "llm:stream_aborted"

# 2.0.2's 43 canonical events in 2.0.2's order, then this project's additions (debug/raw variants and
# streaming block events), so hooks that subscribe to ALL_EVENTS (logging, redaction) see everything.
ALL_EVENTS: list[str] = [
    SESSION_START, SESSION_END, SESSION_FORK, SESSION_RESUME, PROMPT_SUBMIT, PROMPT_COMPLETE, PLAN_START,
    PLAN_END, PROVIDER_REQUEST, PROVIDER_RESPONSE, PROVIDER_RETRY, PROVIDER_ERROR, PROVIDER_THROTTLE,
    PROVIDER_TOOL_SEQUENCE_REPAIRED, PROVIDER_RESOLVE, LLM_REQUEST, LLM_RESPONSE, CONTENT_BLOCK_START,
    CONTENT_BLOCK_DELTA, CONTENT_BLOCK_END, THINKING_DELTA, THINKING_FINAL, TOOL_PRE, TOOL_POST, TOOL_ERROR,
    CONTEXT_PRE_COMPACT, CONTEXT_POST_COMPACT, CONTEXT_COMPACTION, CONTEXT_INCLUDE, ORCHESTRATOR_COMPLETE,
    EXECUTION_START, EXECUTION_END, USER_NOTIFICATION, ARTIFACT_WRITE, ARTIFACT_READ, POLICY_VIOLATION,
    APPROVAL_REQUIRED, APPROVAL_GRANTED, APPROVAL_DENIED, CANCEL_REQUESTED, CANCEL_COMPLETED,
    MODULE_ON_SESSION_READY_FAILED, MODULE_LOAD_FAILED,
]
ALL_EVENTS += sorted(
    value for name, value in list(globals().items())
    if name.isupper() and name != "ALL_EVENTS" and isinstance(value, str) and value not in ALL_EVENTS
)

__all__ = [name for name in list(globals()) if name.isupper()]
