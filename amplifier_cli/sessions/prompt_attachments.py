"""A file's bytes attached to a prompt, the same way in every front-end: `@path` in the chat, a resource the
editor links or embeds in an ACP prompt. An image (judged by its bytes; one named like an image must be one)
becomes an ImageBlock (prompt_images), UTF-8 text a `<file path="...">` block after the prompt; anything else,
or text over MAX_TEXT_BYTES, is refused with a message naming it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .prompt_images import ImageProblem, image_block, sniff_media_type

MAX_TEXT_BYTES = 256 * 1024


class AttachmentProblem(ValueError):
    """The attachment cannot be sent; the message says which and why."""


@dataclass(frozen=True)
class Attachment:
    text_block: str | None = None  # a <file> block to append to the prompt
    image: dict[str, Any] | None = None  # an ImageBlock to send with it


def file_block(name: str, content: str) -> str:
    return f'<file path="{name}">\n{content}{"" if content.endswith(chr(10)) else chr(10)}</file>'


def attachment_of(data: bytes, *, label: str, name: str, where: str, named_like_image: bool = False) -> Attachment:
    """``data`` as an attachment; ``label`` names it in messages (``@notes.txt``), ``name`` in the <file> block,
    ``where`` says where it came from (its path)."""
    if named_like_image or sniff_media_type(data) is not None:
        try:
            return Attachment(image=image_block(data, label))
        except ImageProblem as problem:
            raise AttachmentProblem(f"{problem.message}; {problem.fix}") from None
    if len(data) > MAX_TEXT_BYTES:
        raise AttachmentProblem(f"{label}: {where} is {len(data):,} bytes, over the {MAX_TEXT_BYTES:,}-byte limit for "
                                "attachments; mention a smaller file or ask the model to read parts of it")
    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError:
        raise AttachmentProblem(f"{label}: {where} is not UTF-8 text nor a PNG, JPEG, GIF or WebP image; only those "
                                "can be attached") from None
    return Attachment(text_block=file_block(name, content))
