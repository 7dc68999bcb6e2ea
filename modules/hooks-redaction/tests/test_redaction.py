"""Behaviour of hooks-redaction: what counts as a secret, how event data is walked, which events it covers."""

from __future__ import annotations

import copy
from pathlib import Path

import amplifier_module_hooks_redaction as redaction
import pytest
from amplifier_module_hooks_redaction import REDACTED, SecretRedactor

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.events import ALL_EVENTS
from amplifier_core.models import HookResult
from amplifier_core.module_config import ModuleConfigError

FAKE_ENV_KEY = "fake-env-key-0123456789abcdef"
ENV_REDACTED = "[REDACTED:OPENAI_API_KEY]"  # env secrets are masked with their name

SECRETS = {
    "anthropic": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCd",
    "openai": "sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGh",
    "openai project": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "github classic": "ghp_" + "a1B2c3D4e5" * 4,
    "github fine-grained": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "slack": "xoxb-123456789012-abcdefghijkl",
    "google": "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_common_key_formats_are_replaced_inside_text(kind):
    text = f"config says key={SECRETS[kind]} ok"
    redacted = SecretRedactor().redact_text(text)
    assert SECRETS[kind] not in redacted and REDACTED in redacted
    assert redacted.startswith("config says") and redacted.endswith(" ok")


def test_bearer_tokens_keep_the_scheme_word():
    redacted = SecretRedactor().redact_text("Authorization: Bearer abc.def-123456789xyz")
    assert redacted == f"Authorization: Bearer {REDACTED}"


def test_pem_private_key_blocks_are_replaced_whole():
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA\n-----END RSA PRIVATE KEY-----"
    assert SecretRedactor().redact_text(f"key:\n{block}\nafter") == f"key:\n{REDACTED}\nafter"


def test_truncated_pem_block_is_redacted_to_the_end():
    assert SecretRedactor().redact_text("x -----BEGIN PRIVATE KEY-----\nMIIEow") == f"x {REDACTED}"


def test_passwords_in_urls_and_secret_assignments_keep_their_names():
    redactor = SecretRedactor()
    assert redactor.redact_text("https://bob:hunter2pass@example.com/x") == f"https://bob:{REDACTED}@example.com/x"
    assert redactor.redact_text("export OPENAI_API_KEY=abc123def456") == f"export OPENAI_API_KEY={REDACTED}"
    assert redactor.redact_text('password: "s3cretvalue"') == f'password: "{REDACTED}"'


@pytest.mark.parametrize("text", [
    "max_tokens: 4096 and input_tokens=123456789",
    "task-0123456789abcdefghijklmnop is a ticket",
    "2025-01-01T12:34:56.789+00:00 550e8400-e29b-41d4-a716-446655440000",
    "password = get_password()",
    "version 1.2.3, 1234567890 tokens, the sky is blue",
    "Bearer",
])
def test_ordinary_text_is_left_alone(text):
    assert SecretRedactor().redact_text(text) == text


def test_literal_values_are_replaced_and_short_ones_ignored():
    redactor = SecretRedactor(literals=[FAKE_ENV_KEY, "short"])
    assert redactor.redact_text(f"the key {FAKE_ENV_KEY}!") == f"the key {REDACTED}!"
    assert redactor.redact_text("a short string") == "a short string"


def test_nested_data_is_walked_without_breaking_non_strings_or_mutating_the_original():
    inner = {"command": f"curl -H 'x: {SECRETS['openai']}'", "count": 3}
    original = {"tool_input": inner, "flags": [True, None, 1.5, (SECRETS["aws"], 7)], "obj": object}
    redacted, changed = SecretRedactor().redact_value(original)
    assert changed
    assert SECRETS["openai"] not in redacted["tool_input"]["command"]
    assert redacted["tool_input"]["count"] == 3
    assert redacted["flags"][:3] == [True, None, 1.5]
    assert redacted["flags"][3] == (REDACTED, 7)
    assert redacted["obj"] is object
    assert inner["command"].endswith(f"{SECRETS['openai']}'")
    assert original["flags"][3][0] == SECRETS["aws"]


def test_unchanged_containers_are_returned_as_the_same_objects():
    data = {"a": {"b": ["plain text here"]}}
    redacted, changed = SecretRedactor().redact_value(data)
    assert not changed and redacted is data


def test_values_of_sensitive_keys_are_replaced_whatever_they_look_like():
    redacted = SecretRedactor().redact({"config": {"api_key": "plain", "password": "pw", "timeout": 5}})
    assert redacted == {"config": {"api_key": REDACTED, "password": REDACTED, "timeout": 5}}


def test_allowlisted_keys_and_paths_are_not_touched():
    data = {"signature": SECRETS["jwt"], "tool_input": {"command": SECRETS["aws"], "other": SECRETS["aws"]}}
    redacted = SecretRedactor(allowlist=["signature", "tool_input.command"]).redact(data)
    assert redacted["signature"] == SECRETS["jwt"]
    assert redacted["tool_input"] == {"command": SECRETS["aws"], "other": REDACTED}


# -- as a hook ----------------------------------------------------------------------------------------------

async def mounted(monkeypatch, config=None) -> tuple[ModuleCoordinator, list]:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_ENV_KEY)
    coordinator = ModuleCoordinator(session=None)
    seen: list = []

    async def observer(event, data):
        seen.append((event, copy.deepcopy(data)))  # what it saw while it ran (originals come back later)
        return HookResult()

    for event in [*ALL_EVENTS, "custom:event"]:
        coordinator.hooks.register(event, observer, priority=0, name="observer")
    cleanup = await redaction.mount(coordinator, config or {})
    coordinator.cleanup_fn = cleanup
    return coordinator, seen


async def test_later_handlers_see_redacted_data_and_the_emitters_objects_are_untouched(monkeypatch):
    coordinator, seen = await mounted(monkeypatch)
    tool_input = {"command": f"echo {FAKE_ENV_KEY}"}
    await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": tool_input})
    [(_, data)] = seen
    assert data["tool_input"]["command"] == f"echo {ENV_REDACTED}"
    assert tool_input["command"] == f"echo {FAKE_ENV_KEY}"


async def test_the_emitter_gets_its_original_values_back_after_every_hook_ran(monkeypatch):
    coordinator, seen = await mounted(monkeypatch)
    result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash",
                                                      "tool_input": {"command": f"echo {FAKE_ENV_KEY}"}})
    assert seen[0][1]["tool_input"]["command"] == f"echo {ENV_REDACTED}"
    assert result.action == "continue"
    assert result.data["tool_input"]["command"] == f"echo {FAKE_ENV_KEY}"  # what loop-basic would run


async def test_a_value_a_later_hook_replaced_is_not_put_back(monkeypatch):
    coordinator, _ = await mounted(monkeypatch)

    async def rewrite(event, data):
        data["prompt"] = "rewritten by a hook"
        return HookResult()

    coordinator.hooks.register("prompt:submit", rewrite, priority=5)
    result = await coordinator.hooks.emit("prompt:submit", {"prompt": f"key {FAKE_ENV_KEY}"})
    assert result.data["prompt"] == "rewritten by a hook"


async def test_the_emitter_gets_its_originals_back_when_a_later_hook_modifies_a_copy_of_the_data(monkeypatch):
    """A modify hook building new dicts (``{**data, ...}``) must not make the tool run with [REDACTED]."""
    coordinator, seen = await mounted(monkeypatch)

    async def add_flag(event, data):
        return HookResult(action="modify", data={**data, "tool_input": {**data["tool_input"], "flag": 1}})

    coordinator.hooks.register("tool:pre", add_flag, priority=5)
    tool_input = {"command": f"echo {FAKE_ENV_KEY}", "args": [f"--key={FAKE_ENV_KEY}", "x"]}
    result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": tool_input})
    assert seen[0][1]["tool_input"]["command"] == f"echo {ENV_REDACTED}"
    assert result.data["tool_input"] == {**tool_input, "flag": 1}


async def test_values_a_modifying_hook_changed_in_its_copy_are_kept(monkeypatch):
    coordinator, _ = await mounted(monkeypatch)

    async def rewrite(event, data):
        return HookResult(action="modify", data={**data, "tool_input": {"command": "ls"}})

    coordinator.hooks.register("tool:pre", rewrite, priority=5)
    result = await coordinator.hooks.emit("tool:pre", {"tool_input": {"command": f"echo {FAKE_ENV_KEY}"}})
    assert result.data["tool_input"] == {"command": "ls"}


async def test_keep_emitter_data_false_hands_the_redacted_data_back(monkeypatch):
    coordinator, _ = await mounted(monkeypatch, {"keep_emitter_data": False})
    result = await coordinator.hooks.emit("prompt:submit", {"prompt": f"key {FAKE_ENV_KEY}"})
    assert result.data["prompt"] == f"key {ENV_REDACTED}"


async def test_denied_emits_do_not_pile_up_restore_records(monkeypatch):
    coordinator, _ = await mounted(monkeypatch)

    async def deny(event, data):
        return HookResult(action="deny", reason="no")

    coordinator.hooks.register("tool:pre", deny, priority=0)
    for _ in range(redaction.MAX_PENDING_RESTORES + 50):
        await coordinator.hooks.emit("tool:pre", {"tool_input": {"command": FAKE_ENV_KEY}})
    assert len(redaction._hooks_by_coordinator[coordinator]._pending) == redaction.MAX_PENDING_RESTORES


async def test_stream_deltas_are_redacted_too(monkeypatch):
    coordinator, seen = await mounted(monkeypatch)
    await coordinator.hooks.emit("content_block:delta", {"delta": f"key is {SECRETS['anthropic']}"})
    await coordinator.hooks.emit("thinking:delta", {"delta": "hi"})
    assert seen[0][1]["delta"] == f"key is {REDACTED}" and seen[1][1]["delta"] == "hi"


async def test_registers_on_every_kernel_event_at_a_very_early_priority(monkeypatch):
    coordinator, _ = await mounted(monkeypatch)
    for event in ALL_EVENTS:
        entries = coordinator.hooks._handlers[event]
        assert entries[0].name == redaction.MODULE_ID and entries[0].priority == -1000


async def test_events_declared_by_other_modules_are_covered_including_late_ones(monkeypatch):
    coordinator, seen = await mounted(monkeypatch)
    coordinator.register_contributor("observability.events", "late-module", lambda: ["custom:event"])
    await redaction.on_session_ready(coordinator)
    await coordinator.hooks.emit("custom:event", {"value": SECRETS["aws"]})
    assert seen[0][1]["value"] == REDACTED


async def test_configured_env_vars_replace_the_defaults(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "my-service-token-value-42")
    coordinator, seen = await mounted(monkeypatch, {"env_vars": ["MY_SERVICE_TOKEN"],
                                                    "discover_env_secrets": False})
    await coordinator.hooks.emit("prompt:submit", {"prompt": "my-service-token-value-42 and " + FAKE_ENV_KEY})
    assert seen[0][1]["prompt"] == f"[REDACTED:MY_SERVICE_TOKEN] and {FAKE_ENV_KEY}"


async def test_secret_looking_env_vars_and_app_given_secrets_are_masked_by_name(monkeypatch):
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-token-value-77")
    monkeypatch.setenv("SHORT_TOKEN", "short")
    monkeypatch.setenv("PLAIN_SETTING", "plain-setting-value-1")
    coordinator = ModuleCoordinator(session=None)
    coordinator.register_capability("secrets.values", {"SERVICE_PASSWORD_REF": "from-a-profile-ref-9"})
    seen: list = []

    async def observer(event, data):
        seen.append(copy.deepcopy(data))
        return HookResult()

    coordinator.hooks.register("prompt:submit", observer, priority=0, name="observer")
    await redaction.mount(coordinator, {})
    await coordinator.hooks.emit("prompt:submit", {
        "prompt": "deploy-token-value-77 / from-a-profile-ref-9 / plain-setting-value-1 / short"})
    assert seen[0]["prompt"] == ("[REDACTED:DEPLOY_TOKEN] / [REDACTED:SERVICE_PASSWORD_REF] / "
                                 "plain-setting-value-1 / short")


async def test_capability_offers_the_redactor_to_other_modules(monkeypatch):
    coordinator, _ = await mounted(monkeypatch)
    redact = coordinator.get_capability("redaction.redact")
    assert redact({"x": [FAKE_ENV_KEY]}) == {"x": [ENV_REDACTED]}


async def test_cleanup_unregisters_every_handler(monkeypatch):
    coordinator, _ = await mounted(monkeypatch)
    coordinator.cleanup_fn()
    assert all(entry.name != redaction.MODULE_ID for entries in coordinator.hooks._handlers.values()
               for entry in entries)


async def test_malformed_or_empty_data_continues():
    coordinator = ModuleCoordinator(session=None)
    await redaction.mount(coordinator, {})
    hook = redaction._hooks_by_coordinator[coordinator]
    assert (await hook.handle("x", {})).action == "continue"
    assert (await hook.handle("x", None)).action == "continue"  # type: ignore[arg-type]


async def test_unknown_config_key_is_rejected():
    with pytest.raises(ModuleConfigError, match="did you mean 'allowlist'"):
        await redaction.mount(ModuleCoordinator(session=None), {"allowlst": []})


async def test_passes_the_kernel_hook_validator():
    from amplifier_core.validation.hook import HookValidator

    result = await HookValidator().validate(Path(redaction.__file__).parent)
    assert result.passed, result.summary()


async def test_upstream_config_keys_load_with_a_warning_instead_of_losing_redaction(monkeypatch, caplog):
    """An upstream profile ({rules, skip_events}) must not leave the session without redaction."""
    coordinator, seen = await mounted(monkeypatch, {"rules": ["secrets", "pii-basic"],
                                                    "skip_events": ["tool:pre", "tool:post"]})
    assert "rules" in caplog.text and "skip_events" in caplog.text
    await coordinator.hooks.emit("prompt:submit", {"prompt": f"key {FAKE_ENV_KEY}"})
    assert seen[0][1]["prompt"] == f"key {ENV_REDACTED}"
