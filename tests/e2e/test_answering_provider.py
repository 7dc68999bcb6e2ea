"""Which provider answers, with both providers mounted against the fake API: the banner, the JSON output and the
saved metadata name the provider that actually got the request (one rule: amplifier_support.provider_choice)."""

from __future__ import annotations

import json

from fakeapi import Turn


def _both(e2e_api, name: str, anthropic: dict, openai: dict, **profile) -> None:
    e2e_api.profile(name, provider="anthropic", provider_config={"default_model": "claude-e2e", **anthropic},
                    extra_providers=[{"module": "provider-openai",
                                      "config": {"default_model": "gpt-e2e", "max_retries": 0, **openai}}],
                    tools=(), **profile)


def _init_record(stdout: str) -> dict:
    return next(record for record in map(json.loads, stdout.splitlines()) if record.get("type") == "init")


def test_priority_written_as_a_string_is_a_number_everywhere(e2e_api) -> None:
    e2e_api.server.add(Turn(text="answered"), repeat=True)
    _both(e2e_api, "both", {"priority": "5"}, {"priority": 20})

    streamed = e2e_api.run("run", "-P", "both", "-o", "stream-json", "hi")
    text = e2e_api.run("run", "-P", "both", "hi")

    assert streamed.returncode == 0 and text.returncode == 0, streamed.stderr + text.stderr
    assert [request.api for request in e2e_api.server.requests] == ["anthropic", "anthropic"]
    assert _init_record(streamed.stdout)["provider"] == "anthropic"
    assert "[both] anthropic · claude-e2e" in text.stderr
    assert {e2e_api.metadata(path)["provider"] for path in e2e_api.session_dirs()} == {"anthropic"}


def test_default_provider_of_the_orchestrator_beats_priority(e2e_api) -> None:
    e2e_api.server.add(Turn(text="answered"), repeat=True)
    e2e_api.profile("pick", provider="anthropic", provider_config={"priority": 1},
                    extra_providers=[{"module": "provider-openai", "config": {"default_model": "gpt-e2e"}}],
                    tools=())
    path = e2e_api.project / ".amplifier" / "profiles" / "pick.yaml"
    path.write_text(path.read_text().replace("module: loop-streaming",
                                             "module: loop-streaming\n    config: {default_provider: openai}"))

    result = e2e_api.run("run", "-P", "pick", "-o", "stream-json", "hi")

    assert result.returncode == 0, result.stderr
    assert [request.api for request in e2e_api.server.requests] != ["anthropic"]
    assert _init_record(result.stdout)["provider"] == "openai"
    assert e2e_api.metadata(e2e_api.only_session())["provider"] == "openai"


def test_model_flag_naming_an_openai_model_goes_to_openai(e2e_api) -> None:
    e2e_api.server.add(Turn(text="answered"), repeat=True)
    _both(e2e_api, "both", {"priority": 10}, {"priority": 20})

    result = e2e_api.run("run", "-P", "both", "--model", "gpt-5-mini", "hi")

    assert result.returncode == 0, result.stderr
    [request] = e2e_api.server.requests
    assert request.api != "anthropic" and request.model == "gpt-5-mini"
    assert "[both] openai · gpt-5-mini" in result.stderr
    metadata = e2e_api.metadata(e2e_api.only_session())
    assert (metadata["provider"], metadata["model"]) == ("openai", "gpt-5-mini")


def test_a_priority_that_is_not_a_number_names_the_file_and_key(e2e_api) -> None:
    path = e2e_api.profile("bad", provider="anthropic", provider_config={"priority": "first"}, tools=())

    result = e2e_api.run("run", "-P", "bad", "hi")

    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert str(path.name) in result.stderr and "providers[0].config.priority" in result.stderr
    assert "'first'" in result.stderr and e2e_api.server.requests == []
