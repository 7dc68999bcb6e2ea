"""The names of the capabilities the app and the bundled modules hand each other through the coordinator.

One place for the strings, so that a registrar and its readers cannot drift apart by a typo, and so that
docs/CAPABILITIES.md (what each holds, who registers it, who reads it) can be kept complete by a test. The
strings are upstream Amplifier's where upstream has them: upstream modules pass the literals, so a value
here never changes; only the Python name is ours (the string upper-cased, dots as underscores).

The two names the kernel itself reads (``provider.*``) are defined in the kernel and re-exported here on
first use, so that importing this file never loads the kernel on a light path such as ``amplifier --help``.
"""

from __future__ import annotations

from typing import Any

AGENTS_CATALOG = "agents.catalog"
APP_USER_CONFIG_DIR = "app.user_config_dir"
APPROVAL_INTERACTIVE = "approval.interactive"
APPROVAL_REMEMBER = "approval.remember"
APPROVAL_RULES = "approval.rules"
APPROVAL_RUN_UNCONFINED = "approval.run_unconfined"
CONTEXT_TRANSCRIPT_PATH = "context.transcript_path"
EDITOR_FILES = "editor.files"
FILESYSTEM_READ_ROOTS = "filesystem.read_roots"
MCP_CLIENT_SERVERS = "mcp.client_servers"
MCP_ELICIT = "mcp.elicit"
MCP_GET_PROMPT = "mcp.get_prompt"
MCP_OAUTH_STORE = "mcp.oauth_store"
MCP_PROMPTS = "mcp.prompts"
MCP_READ_RESOURCE = "mcp.read_resource"
MCP_RESOURCES = "mcp.resources"
MCP_SERVERS = "mcp.servers"
MCP_STATUS = "mcp.status"
MODEL_ROLE_RESOLVER = "model_role_resolver"
OBSERVABILITY_EVENTS = "observability.events"
ORCHESTRATOR_OVERRIDES = "orchestrator.overrides"
PROMPT_IMAGES = "prompt.images"
REDACTION_REDACT = "redaction.redact"
ROUTING_RESOLVE_ROLE = "routing.resolve_role"
SANDBOX_NETWORK_ALLOW = "sandbox.network_allow"  # hosts the user's settings let sandboxed commands reach
SANDBOX_NETWORK_REMEMBER = "sandbox.network_remember"  # callable(host): "Always allow" a host for this project
SANDBOX_RUN_UNCONFINED_ONCE = "sandbox.run_unconfined_once"
SANDBOX_STATUS = "sandbox.status"
SECRETS_VALUES = "secrets.values"
SESSION_DEPTH = "session.depth"
SESSION_DIR = "session.dir"
SESSION_END_REASON = "session.end_reason"
SESSION_MAX_DEPTH = "session.max_depth"
SESSION_MODE = "session.mode"
SESSION_PROJECT_DIR = "session.project_dir"
SESSION_PROJECT_TRUSTED = "session.project_trusted"
SESSION_RESUME = "session.resume"
SESSION_SANDBOX = "session.sandbox"
SESSION_SANDBOX_MODE = "session.sandbox_mode"
SESSION_SPAWN = "session.spawn"
SESSION_SUBAGENT_OUTPUT = "session.subagent_output"
SESSION_SUBAGENTS = "session.subagents"
SESSION_TRANSCRIPT_PATH = "session.transcript_path"
SESSION_WORKING_DIR = "session.working_dir"
SKILLS_CATALOG = "skills.catalog"
SUBAGENTS_RUNNING = "subagents.running"
UI_OUTPUT = "ui.output"
UI_RENDERS_ANSWER = "ui.renders_answer"
UI_WORKING_INDICATOR = "ui.working_indicator"

# name here -> name in amplifier_core.provider_instances (the kernel owns these two)
_KERNEL_OWNED = {
    "PROVIDER_BEFORE_LOAD": "BEFORE_LOAD_CAPABILITY",
    "PROVIDER_LOAD_FAILURE": "LOAD_FAILURE_CAPABILITY",
}


def __getattr__(name: str) -> Any:
    """The kernel-owned names, read from the kernel when first asked for."""
    if name in _KERNEL_OWNED:
        from amplifier_core import provider_instances

        return getattr(provider_instances, _KERNEL_OWNED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted([name for name in list(globals()) if name.isupper() and not name.startswith("_")]
                 + list(_KERNEL_OWNED))
