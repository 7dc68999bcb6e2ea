"""The one rule for credential-like environment variable names (tool-bash, hook-shell, secret masking)."""

from __future__ import annotations

import pytest

from amplifier_support.credentials import is_credential_name, withheld_names, without_credentials
from amplifier_support.secret_values import secret_environment

CREDENTIALS = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "GEMINI_API_KEY", "MY_APIKEY",
               "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "HF_TOKEN_PATH",
               "APP_SECRET", "CLIENT_SECRET_VALUE", "DB_PASSWORD", "PGPASSWORD", "SMTP_PASSWD",
               "GOOGLE_APPLICATION_CREDENTIALS", "STRIPE_KEY", "GITHUB_PAT", "openai_api_key", "GITHUBTOKEN",
               "SSH_PASSPHRASE"]
ORDINARY = ["PATH", "HOME", "TOKENIZERS_PARALLELISM", "TOKENIZER", "KEYBOARD_LAYOUT", "LESSKEY", "PASSTHROUGH",
            "SSH_AUTH_SOCK", "AWS_ACCESS_KEY_ID", "AWS_REGION", "TERM", "GIT_ASKPASS", "KEY_ID"]


@pytest.mark.parametrize("name", CREDENTIALS)
def test_credential_like_names(name: str) -> None:
    assert is_credential_name(name)


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names(name: str) -> None:
    assert not is_credential_name(name)


def test_pass_env_names_or_globs_let_a_variable_through_and_known_names_are_withheld_too() -> None:
    environ = {"PATH": "/bin", "GITHUB_TOKEN": "t" * 12, "NPM_TOKEN": "n" * 12, "LLM_ENDPOINT_CRED": "c" * 12}
    assert withheld_names(environ) == ["GITHUB_TOKEN", "NPM_TOKEN"]
    assert without_credentials(environ, ["GITHUB_*"], known=["LLM_ENDPOINT_CRED"]) == {
        "PATH": "/bin", "GITHUB_TOKEN": "t" * 12}


def test_masking_uses_the_same_rule() -> None:
    environ = {name: "value-long-enough" for name in CREDENTIALS + ORDINARY}
    assert set(secret_environment(environ)) == set(CREDENTIALS)
