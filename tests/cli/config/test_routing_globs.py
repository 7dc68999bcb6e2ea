"""Routing-matrix globs are matched the way upstream's matrix format describes: against the models the provider
lists, case-insensitively, newest version first (numbers compare as numbers, a snapshot date is not a version,
the alias beats its dated snapshot); a candidate whose glob matches nothing there is passed over."""

from __future__ import annotations

import asyncio

from amplifier_cli.config.routing_matrix import Matrix, MatrixFile, pick_model, resolve_roles


def test_the_newest_listed_model_matching_the_glob_is_picked() -> None:
    listed = ["claude-opus-4-7", "claude-opus-4-10", "claude-opus-4-20250514", "claude-sonnet-9"]
    assert pick_model("claude-opus-*", listed) == "claude-opus-4-10"
    assert pick_model("CLAUDE-OPUS-4-?", listed) == "claude-opus-4-7"
    assert pick_model("gpt-5.?", ["gpt-5.4-2026-03-05", "gpt-5.4", "gpt-5.10"]) == "gpt-5.4"
    assert pick_model("gpt-5*", ["gpt-5.4-2026-03-05", "gpt-5.4", "gpt-5.10"]) == "gpt-5.10"
    assert pick_model("gemini-*", listed) is None


def test_a_glob_is_asked_of_the_providers_list_only_when_reached_and_falls_through_when_unmatched() -> None:
    data = MatrixFile.model_validate({"name": "m", "roles": {
        "general": {"candidates": [{"provider": "ollama", "model": "llama*"},
                                   {"provider": "openai", "model": "gpt-*"},
                                   {"provider": "anthropic", "model": "claude-x"}]},
        "fast": {"candidates": [{"provider": "anthropic", "model": "claude-h"}]}}})
    matrix = Matrix("m", None, "user", data)  # type: ignore[arg-type]
    asked: list[str] = []

    async def list_models(provider: str) -> list[str] | None:
        asked.append(provider)
        return {"ollama": ["qwen3"], "openai": None}.get(provider)

    resolved = asyncio.run(resolve_roles(matrix, "general", ["ollama", "openai", "anthropic"], list_models))
    assert resolved == {"role": "general", "provider": "anthropic", "model": "claude-x", "config": {}}
    assert asked == ["ollama", "openai"]
    assert asyncio.run(resolve_roles(matrix, "fast", ["anthropic"], list_models))["model"] == "claude-h"
    assert asked == ["ollama", "openai"]


def test_routing_show_asks_the_provider_for_its_models_to_resolve_a_glob(cli, paths, write, fake_api,
                                                                         monkeypatch) -> None:
    import json

    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-routing-test-000000000000")
    fake_api.models = ["claude-haiku-4-5-20251001", "claude-haiku-4-7", "claude-haiku-4-10", "claude-opus-9"]
    write(paths.config_dir / "routing" / "globs.yaml", """
        name: globs
        roles:
          general: {candidates: [{provider: anthropic, model: claude-opus-*}]}
          fast: {candidates: [{provider: anthropic, model: claude-haiku-*}]}
          vision: {candidates: [{provider: anthropic, model: gemini-*}]}
    """)
    result = cli("routing", "show", "globs", "-o", "json")
    assert result.exit_code == 0, result.output
    models = {row["role"]: row["model"] for row in json.loads(result.output)["roles"]}
    assert models == {"general": "claude-opus-9", "fast": "claude-haiku-4-10", "vision": None}
    assert [r.api for r in fake_api.requests].count("models") == 1  # one list per provider, not one per role
