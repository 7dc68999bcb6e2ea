"""Images attached to a prompt: the type comes from the bytes, and the per-image and per-prompt limits refuse
with what is wrong and how to fix it."""

from __future__ import annotations

from pathlib import Path

import pytest

from amplifier_cli.sessions.prompt_images import (
    MAX_IMAGES,
    MAX_TOTAL_IMAGE_BYTES,
    ImageProblem,
    check_prompt_images,
    read_image,
    sniff_media_type,
)


@pytest.mark.parametrize(("head", "media_type"), [
    (b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff\xdb", "image/jpeg"), (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"), (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"), (b"<svg", None), (b"BM", None),
])
def test_the_type_is_read_from_the_first_bytes(head: bytes, media_type: str | None) -> None:
    assert sniff_media_type(head + bytes(16)) == media_type


def test_a_directory_and_a_missing_file_are_named(tmp_path: Path) -> None:
    with pytest.raises(ImageProblem, match="pics is a directory"):
        read_image(tmp_path, "pics")
    with pytest.raises(ImageProblem, match=r"gone\.png: no such file"):
        read_image(tmp_path / "gone.png", "gone.png")


def _block(size: int) -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * (size * 4 // 3)}}


def test_too_many_or_too_big_together_is_refused_per_prompt() -> None:
    check_prompt_images([_block(1000)] * MAX_IMAGES)
    with pytest.raises(ImageProblem, match=f"more than the {MAX_IMAGES} one prompt may carry"):
        check_prompt_images([_block(1000)] * (MAX_IMAGES + 1))
    with pytest.raises(ImageProblem, match=f"over the {MAX_TOTAL_IMAGE_BYTES:,}-byte limit for one prompt"):
        check_prompt_images([_block(MAX_TOTAL_IMAGE_BYTES // 4 + 3)] * 4)
