"""Canonical event names (``namespace:action``), kept identical to upstream so hooks subscribe by the same strings."""

from __future__ import annotations

SESSION_START = "session:start"
SESSION_START_DEBUG = "session:start:debug"
SESSION_START_RAW = "session:start:raw"
SESSION_END = "session:end"
SESSION_FORK = "session:fork"
SESSION_FORK_DEBUG = "session:fork:debug"
SESSION_FORK_RAW = "session:fork:raw"
SESSION_RESUME = "session:resume"
SESSION_RESUME_DEBUG = "session:resume:debug"
SESSION_RESUME_RAW = "session:resume:raw"

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
LLM_REQUEST_DEBUG = "llm:request:debug"
LLM_REQUEST_RAW = "llm:request:raw"
LLM_RESPONSE = "llm:response"
LLM_RESPONSE_DEBUG = "llm:response:debug"
LLM_RESPONSE_RAW = "llm:response:raw"

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

# Streaming block events emitted by providers while a response streams (see docs/STREAMING.md).
LLM_STREAM_BLOCK_START = "llm:stream_block_start"
LLM_STREAM_BLOCK_DELTA = "llm:stream_block_delta"
LLM_STREAM_BLOCK_END = "llm:stream_block_end"
LLM_STREAM_ABORTED = "llm:stream_aborted"

ALL_EVENTS: list[str] = [
    value
    for name, value in sorted(globals().items())
    if name.isupper() and name != "ALL_EVENTS" and isinstance(value, str)
]
