"""Images attached to a prompt (`@pic.png` in the chat, `--image FILE` on `amplifier run`).

An image becomes the kernel's ``ImageBlock`` shape, ``{"type": "image", "source": {"type": "base64",
"media_type", "data"}}``, which both providers turn into their own wire format. The type is read from the
file's first bytes, never from its name: a `.png` that holds something else is refused.

Limits: at most MAX_IMAGE_BYTES per image (3.75 MiB, so the base64 form stays within Anthropic's 5 MB per
image; OpenAI accepts more), MAX_IMAGES and MAX_TOTAL_IMAGE_BYTES per prompt. The image is kept as base64
inside the user message, so the transcript line that stores it is self-contained and a resumed session sends
the same image again; the per-prompt limits are what keep that line bounded (about 20 MB at most).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from amplifier_support.images import MAX_IMAGE_BYTES, SUPPORTED, sniff_media_type

__all__ = ["MAX_IMAGES", "MAX_IMAGE_BYTES", "MAX_TOTAL_IMAGE_BYTES", "ImageProblem", "check_prompt_images",
           "image_block", "looks_like_image", "read_image", "sniff_media_type"]

MAX_IMAGES = 20
MAX_TOTAL_IMAGE_BYTES = 15 * 1024 * 1024  # base64 20 MiB: the request stays under Anthropic's 32 MB with room
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})


class ImageProblem(ValueError):
    """An attachment that cannot be sent: what is wrong with which file, and how to fix it."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(f"{message}; {fix}")
        self.message = message
        self.fix = fix


def looks_like_image(path: Path) -> bool:
    """Named like an image (the chat then reads it as one, and says so if its bytes are not an image)."""
    return path.suffix.lower() in IMAGE_SUFFIXES


def image_block(data: bytes, shown_name: str) -> dict[str, Any]:
    """The ImageBlock for ``data``; ImageProblem when it is too big or not an accepted image."""
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageProblem(f"{shown_name} is {len(data):,} bytes, over the {MAX_IMAGE_BYTES:,}-byte limit for an "
                           "image", "scale it down or compress it (e.g. save it as JPEG) and attach it again")
    media_type = sniff_media_type(data)
    if media_type is None:
        raise ImageProblem(f"{shown_name} is not a {SUPPORTED} image (judged by its bytes, not its name)",
                           f"convert it to {SUPPORTED}")
    return {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                        "data": base64.b64encode(data).decode("ascii")}}


def read_image(path: Path, shown_name: str | None = None) -> dict[str, Any]:
    """The ImageBlock of the file at ``path``; ImageProblem for a missing, unreadable or unsuitable file."""
    name = shown_name or str(path)
    if path.is_dir():
        raise ImageProblem(f"{name} is a directory", "give an image file")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_IMAGE_BYTES + 1)
    except FileNotFoundError:
        raise ImageProblem(f"{name}: no such file ({path.resolve()})", "check the path") from None
    except OSError as error:
        raise ImageProblem(f"{name}: cannot read it ({error.strerror})", "check its permissions") from None
    return image_block(data, name)


def image_summary(block: dict[str, Any]) -> str:
    """A short description for screens and logs (never the data)."""
    source = block.get("source") or {}
    size = len(source.get("data") or "") * 3 // 4
    return f"{source.get('media_type', 'image')}, {size:,} bytes"


def check_prompt_images(blocks: list[dict[str, Any]]) -> None:
    """ImageProblem when the images of one prompt are too many or too big together."""
    if len(blocks) > MAX_IMAGES:
        raise ImageProblem(f"{len(blocks)} images, more than the {MAX_IMAGES} one prompt may carry",
                           f"attach at most {MAX_IMAGES}, or split the question")
    total = sum(len((block.get("source") or {}).get("data") or "") * 3 // 4 for block in blocks)
    if total > MAX_TOTAL_IMAGE_BYTES:
        raise ImageProblem(f"the images add up to {total:,} bytes, over the {MAX_TOTAL_IMAGE_BYTES:,}-byte limit "
                           "for one prompt", "attach fewer or smaller images, or split the question")
