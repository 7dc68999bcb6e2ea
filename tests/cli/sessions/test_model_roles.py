"""A sub-agent's `model_role` resolved through the active routing matrix: the child's requests carry the model
the matrix names, a glob candidate is matched against the models the provider lists (newest version wins), a
role chain falls back, an explicit `model:` wins over the role, and upstream's `model_role_resolver` answers
modules the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from fakeapi import ToolCall, Turn
from testkit.agent_profiles import is_agent, is_parent, write_agent, write_profile

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.sessions.factory import LiveSession, SessionRequest, open_session

CODER_MARK = "CODER-AGENT-MARK"
LISTED = ["claude-sonnet-4-7", "claude-sonnet-4-10", "claude-sonnet-4-20250514", "claude-haiku-4-5", "other-1"]


def write_matrix(name: str = "team") -> Path:
    paths = AmplifierPaths.discover()
    matrix = {
        "name": name, "description": "test matrix", "updated": "2026-11-01",
        "roles": {
            "general": {"description": "any", "candidates": [{"provider": "anthropic", "model": "claude-general-1"}]},
            "fast": {"description": "quick", "candidates": [{"provider": "anthropic", "model": "claude-haiku-*"}]},
            "coding": {"description": "code", "candidates": [
                {"provider": "openai", "model": "gpt-not-mounted"},
                {"provider": "anthropic", "model": "claude-opus-*"},  # the provider lists no opus: passed over
                {"provider": "anthropic", "model": "Claude-Sonnet-*", "config": {"temperature": 0.25}},
            ]},
        },
    }
    target = paths.config_dir / "routing" / f"{name}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(matrix), encoding="utf-8")
    paths.user_settings.write_text(f"routing: {{matrix: {name}}}\n", encoding="utf-8")
    return target


@pytest.fixture
def project(project_dir: Path, anthropic_env: Any) -> Path:
    write_profile(project_dir)
    write_matrix()
    anthropic_env.models = list(LISTED)
    return project_dir


@pytest.fixture
async def live(project: Path):
    session = await open_session(SessionRequest(profile="agents-test"), paths=AmplifierPaths.discover())
    yield session
    await session.close()


def script_delegation(server: Any, answer: str = "done") -> None:
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "coder", "instruction": "write it"})]),
               when=lambda r: is_parent(r) and r.last_user_text == "go")
    server.add(Turn(text=answer), when=is_agent(CODER_MARK))
    server.add(Turn(text="parent done"), when=lambda r: is_parent(r) and answer in r.last_tool_result_text)


async def _delegate(project: Path, fake_api: Any, frontmatter: dict[str, Any]) -> list[Any]:
    write_agent(project, "coder", f"{CODER_MARK}: you write code.", frontmatter=frontmatter)
    script_delegation(fake_api)
    session = await open_session(SessionRequest(profile="agents-test"), paths=AmplifierPaths.discover())
    try:
        assert await session.execute("go") == "parent done"
    finally:
        await session.close()
    assert fake_api.unmatched == []
    return [r for r in fake_api.requests if r.api == "anthropic"]


async def test_a_sub_agents_model_role_chain_gets_the_newest_listed_model_the_matrix_names(project, fake_api):
    requests = await _delegate(project, fake_api, {"model_role": ["vision", "coding", "general"]})
    parent = [r for r in requests if is_parent(r)]
    child = [r for r in requests if is_agent(CODER_MARK)(r)]
    assert child and {r.model for r in child} == {"claude-sonnet-4-10"}  # 4-10 > 4-7 > 4-20250514 (a dated 4.0)
    assert child[0].json.get("temperature") == 0.25  # the candidate's config reaches the child's provider
    assert all(r.model != "claude-sonnet-4-10" for r in parent)
    assert any(r.api == "models" for r in fake_api.requests)  # the provider was asked what it offers


async def test_upstream_meta_model_role_is_read_and_an_explicit_model_wins_over_a_role(project, fake_api):
    requests = await _delegate(project, fake_api, {"meta": {"model_role": "fast"}, "model": "claude-pinned-9"})
    assert {r.model for r in requests if is_agent(CODER_MARK)(r)} == {"claude-pinned-9"}


async def test_meta_model_role_alone_routes_the_child(project, fake_api):
    requests = await _delegate(project, fake_api, {"meta": {"model_role": "fast"}})
    assert {r.model for r in requests if is_agent(CODER_MARK)(r)} == {"claude-haiku-4-5"}


async def test_modules_ask_either_capability_and_a_role_no_candidate_serves_resolves_to_nothing(live: LiveSession):
    resolve = live.coordinator.get_capability("routing.resolve_role")
    assert await resolve("coding") == {"role": "coding", "provider": "anthropic", "model": "claude-sonnet-4-10",
                                       "config": {"temperature": 0.25}}
    assert await resolve(["vision", "image-gen"]) is None
    upstream = live.coordinator.get_capability("model_role_resolver")
    [preference] = await upstream.resolve(["vision", "fast"])
    assert (preference.provider, preference.model, preference.config) == ("anthropic", "claude-haiku-4-5", {})
    assert await upstream.resolve("vision") == []
