"""MCP OAuth records in the key store: one per server name and URL, kept 0600, never loaded into the environment,
forgotten by name."""

from __future__ import annotations

import os
import stat

from amplifier_cli.config.key_store import key_store_path, load_key_store, save_key
from amplifier_cli.config.mcp_oauth_store import McpOAuthStore, auth_summary


def test_records_are_kept_per_name_and_url_and_forgotten_by_name(paths, monkeypatch) -> None:
    store = McpOAuthStore(paths)
    save_key(paths, "SOME_API_KEY", "k-1")
    tokens = {"access_token": 'a"b\\c', "refresh_token": "r"}
    store.save("docs", "https://a.example/mcp", {"tokens": tokens, "expires_at": 100.0})
    store.save("docs", "https://b.example/mcp", {"tokens": {"access_token": "other"}})
    store.save("wiki", "https://a.example/mcp", {"tokens": {"access_token": "wiki"}})
    assert store.load("docs", "https://a.example/mcp")["tokens"] == tokens  # quotes and backslashes survive
    assert store.load("docs", "https://b.example/mcp")["tokens"]["access_token"] == "other"  # another host
    assert store.load("docs", "https://c.example/mcp") is None
    assert stat.S_IMODE(key_store_path(paths).stat().st_mode) == 0o600

    monkeypatch.setenv("SOME_API_KEY", "")  # unset for the store, and restored after the test
    loaded = load_key_store(paths)
    assert loaded == ["SOME_API_KEY"]  # the records are not environment variables
    assert not [name for name in os.environ if name.startswith("AMPLIFIER_MCP_OAUTH_")]

    assert store.forget("docs") == 2
    assert store.load("docs", "https://a.example/mcp") is None
    assert store.load("wiki", "https://a.example/mcp") is not None
    assert "SOME_API_KEY=" in key_store_path(paths).read_text()


def test_the_summary_says_logged_in_expired_or_nothing_kept() -> None:
    assert auth_summary(None, 0) == "-"
    assert auth_summary({"tokens": {"access_token": "a"}, "expires_at": 50}, 10) == "logged in"
    assert auth_summary({"tokens": {"access_token": "a", "refresh_token": "r"}, "expires_at": 5}, 10) == \
        "logged in (token expired; refreshed on use)"
    assert auth_summary({"tokens": {"access_token": "a"}, "expires_at": 5}, 10) == "login expired"
