"""An ACP prompt (a list of content blocks) as the session's prompt text and images.

Text is the prompt; an image block is an image of the prompt; a resource link to a file (`file://`) and an
embedded resource are attached as `@path` attaches a file in the chat (sessions/prompt_attachments.py); a link
to anything else is named in the prompt for the model to fetch if it wants. Audio is not offered in
`initialize`, so an audio block is a bad request."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ...sessions.prompt_attachments import MAX_TEXT_BYTES, Attachment, AttachmentProblem, attachment_of
from ...sessions.prompt_images import MAX_IMAGE_BYTES, ImageProblem, check_prompt_images, image_block


class PromptProblem(ValueError):
    """A block that cannot be sent; the message names it."""


@dataclass
class PromptContent:
    text: str
    images: list[dict[str, Any]] = field(default_factory=list)


def _file_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def _short_name(uri: str, cwd: Path) -> str:
    path = _file_path(uri)
    if path is None:
        return uri
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def _linked(block: Any, cwd: Path) -> Attachment | str:
    """A resource link: a file's content, or a line naming what is linked."""
    path = _file_path(block.uri)
    if path is None or not path.is_file():
        title = block.title or block.name
        return f"[linked: {title} <{block.uri}>]"
    try:
        with path.open("rb") as handle:
            data = handle.read(max(MAX_IMAGE_BYTES, MAX_TEXT_BYTES) + 1)
    except OSError as error:
        raise PromptProblem(f"cannot read the linked file {path}: {error.strerror}") from None
    name = _short_name(block.uri, cwd)
    return attachment_of(data, label=name, name=name, where=str(path))


def _embedded(block: Any, cwd: Path) -> Attachment:
    resource = block.resource
    name = _short_name(resource.uri, cwd)
    text = getattr(resource, "text", None)
    if isinstance(text, str):  # the editor's own copy (an unsaved buffer, a selection): sent as it is
        return attachment_of(text.encode("utf-8"), label=name, name=name, where=resource.uri)
    try:
        data = base64.b64decode(resource.blob, validate=True)
    except (binascii.Error, ValueError):
        raise PromptProblem(f"the embedded resource {resource.uri} is not valid base64") from None
    return attachment_of(data, label=name, name=name, where=resource.uri)


def prompt_content(blocks: list[Any], cwd: Path) -> PromptContent:
    """The blocks, in order, as one prompt; PromptProblem for a block that cannot be sent."""
    parts: list[str] = []
    files: list[str] = []
    images: list[dict[str, Any]] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        try:
            if kind == "text":
                parts.append(block.text)
                continue
            if kind == "image":
                images.append(image_block(base64.b64decode(block.data), block.uri or "the pasted image"))
                continue
            if kind == "audio":
                raise PromptProblem("audio is not supported (initialize offers no audio prompts)")
            found = _linked(block, cwd) if kind == "resource_link" else _embedded(block, cwd)
        except (AttachmentProblem, ImageProblem, binascii.Error) as problem:
            raise PromptProblem(str(problem)) from None
        if isinstance(found, str):
            parts.append(found)
        elif found.image is not None:
            images.append(found.image)
        elif found.text_block is not None:
            files.append(found.text_block)
    try:
        check_prompt_images(images)
    except ImageProblem as problem:
        raise PromptProblem(str(problem)) from None
    text = "\n".join(part for part in parts if part)
    if files:
        text = (text + "\n\n" if text else "") + "\n\n".join(files)
    return PromptContent(text, images)
