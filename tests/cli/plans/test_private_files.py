"""What the app keeps private: settings files holding approval rules (0600), session directories (0700) and
their files (0600), secrets masked by name; how `${VAR}` references reach the plan, and a bad profile `sandbox:`."""

from __future__ import annotations

import stat
from pathlib import Path

from amplifier_cli.config.approval_rules import save_rule
from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.sessions.secrets import plan_secrets, session_secrets
from amplifier_cli.sessions.store import SessionStore


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_file_that_holds_remembered_approval_rules_is_private(project_dir: Path) -> None:
    paths = AmplifierPaths.discover(cwd=project_dir)
    written = save_rule(paths, {"tool": "bash", "command": "make", "action": "allow"})
    assert written == paths.config_dir / "project-approvals.yaml" and _mode(written) == 0o600


def test_the_store_and_its_sessions_are_private_and_mask_secrets(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data" / "sessions")
    record = store.create(cwd=tmp_path, project=tmp_path)
    record.secrets = session_secrets({}, environ={"SERVICE_TOKEN": "service-token-value-1"})
    record.writer.append({"role": "tool", "content": "got service-token-value-1"})
    record.save_metadata(first_prompt="use service-token-value-1")
    record.write_private_file("mount_plan.json", '{"k": "service-token-value-1"}')
    record.close()
    assert _mode(store.root) == 0o700 and _mode(record.directory) == 0o700
    for path in record.directory.iterdir():
        assert _mode(path) == 0o600, path
        if path.name == ".lock":  # the session lock: the pid of the process that has the session open
            continue
        text = path.read_text()
        assert "service-token-value-1" not in text and "[REDACTED:SERVICE_TOKEN]" in text, path
    assert record.read_transcript().messages == [{"role": "tool", "content": "got [REDACTED:SERVICE_TOKEN]"}]


def test_values_read_through_references_into_key_like_fields_are_secrets() -> None:
    plan = {
        "providers": [{"module": "provider-anthropic", "config": {"api_key": "${MY_KEY}", "base_url": "${URL}"}}],
        "tools": [{"module": "tool-web", "config": {"headers": {"x-auth-token": "${WEB:-fallback-value}"}}},
                  {"module": "tool-x", "config": {"token": "pasted-literal-token"}}],
    }
    environ = {"MY_KEY": "my-key-value-123", "URL": "http://localhost:1234", "ANTHROPIC_API_KEY": "anthropic-value"}
    assert plan_secrets(plan, environ) == {"MY_KEY": "my-key-value-123", "WEB": "fallback-value",
                                           "ANTHROPIC_API_KEY": "anthropic-value",
                                           "tool-x.config.token": "pasted-literal-token"}


def test_a_bad_profile_sandbox_names_the_file_and_key(project_dir: Path) -> None:
    import pytest

    from amplifier_cli.errors import ConfigError
    from amplifier_cli.plans.plan import build_plan

    profiles = project_dir / ".amplifier" / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "bad.yaml").write_text("profile: {name: bad}\nsandbox: sometimes\n")
    (profiles / "boxed.yaml").write_text(
        "profile: {name: boxed}\n"
        "session: {orchestrator: {module: loop-basic}, context: {module: context-simple}}\n"
        "tools:\n  - module: tool-bash\n")
    with pytest.raises(ConfigError) as raised:
        build_plan(None, "bad", paths=AmplifierPaths.discover(cwd=project_dir))
    text = str(raised.value) + " ".join(str(problem) for problem in raised.value.problems)
    assert "bad.yaml" in text and "sandbox" in text
    (profiles / "unboxed.yaml").write_text("profile: {name: unboxed, extends: boxed}\nsandbox: off\n")
    built = build_plan(None, "unboxed", paths=AmplifierPaths.discover(cwd=project_dir))  # YAML reads `off` as false
    assert built.profile.sandbox == {"mode": "off"} and "config" not in built.plan["tools"][0]
