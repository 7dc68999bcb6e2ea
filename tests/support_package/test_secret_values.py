"""SecretValues: named secret values masked as [REDACTED:NAME] in nested data, copy-on-write."""

from __future__ import annotations

import pytest

from amplifier_support.secret_values import SecretValues, secret_environment


def test_secret_looking_environment_names_are_picked_and_short_values_ignored() -> None:
    environ = {"OPENAI_API_KEY": "sk-value-123456", "GITHUB_TOKEN": "ghp-value-123456", "APP_SECRET": "s3cr3t-value",
               "DB_PASSWORD": "hunter2-long", "SHORT_TOKEN": "abc", "PATH": "/usr/bin:/bin", "TOKENIZER": "fast-one-x"}
    assert set(secret_environment(environ)) == {"OPENAI_API_KEY", "GITHUB_TOKEN", "APP_SECRET", "DB_PASSWORD"}


def test_values_are_masked_by_name_everywhere_and_untouched_data_is_the_same_object() -> None:
    secrets = SecretValues({"A_TOKEN": "token-value-123", "LONGER_KEY": "token-value-123-and-more"})
    data = {"text": "x token-value-123-and-more y token-value-123", "list": ["token-value-123", 3], "n": 5,
            "token-value-123": "key too"}
    masked = secrets.mask(data)
    assert masked["text"] == "x [REDACTED:LONGER_KEY] y [REDACTED:A_TOKEN]"
    assert masked["list"] == ["[REDACTED:A_TOKEN]", 3] and masked["n"] == 5
    assert "[REDACTED:A_TOKEN]" in masked
    assert data["list"][0] == "token-value-123"  # the original is not changed
    clean = {"a": ["b", {"c": "d"}]}
    assert secrets.mask(clean) is clean
    assert not SecretValues({"X": "short"})


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 200])
def test_a_secret_cut_across_pieces_is_masked_in_the_pieces(size: int) -> None:
    secrets = SecretValues({"A_TOKEN": "token-value-123", "LONGER_KEY": "token-value-123-and-more"})
    text = "a token-value-123-and-more b token-value-123 c"
    pieces = [text[index:index + size] for index in range(0, len(text), size)]
    masked = secrets.mask_pieces(pieces)
    assert len(masked) == len(pieces)
    assert "".join(masked) == "a [REDACTED:LONGER_KEY] b [REDACTED:A_TOKEN] c"
    assert all(fragment not in "".join(masked) for fragment in ("token", "value", "123"))
    plain = ["no ", "secret ", "here"]
    assert secrets.mask_pieces(plain) is plain
