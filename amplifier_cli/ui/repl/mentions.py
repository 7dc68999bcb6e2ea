"""`@path` in a prompt attaches that file's contents (paths relative to the working directory, `~` allowed;
`@"path with spaces"` or `@'...'` for names with spaces). A PNG, JPEG, GIF or WebP file (judged by its bytes;
a file named like one must be one) is attached as an image block (sessions/prompt_images), text as a <file>.

A word that does not name a file is left alone when it does not look like a path (`@alice`); when it does
(`@src/a.py`, `@notes.txt`) the prompt is not sent and the user is told what is missing.

`@server:uri` attaches an MCP resource instead (sessions/mcp_mentions, shared with `amplifier run`)."""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...sessions.mcp_mentions import attach_mcp_resources, is_mcp_mention, mentions_in
from ...sessions.prompt_attachments import MAX_TEXT_BYTES, AttachmentProblem, attachment_of
from ...sessions.prompt_images import MAX_IMAGE_BYTES, ImageProblem, check_prompt_images, looks_like_image

MENTION = re.compile(r"""(?<![\w`])@(?:"([^"\n]+)"|'([^'\n]+)'|([^\s`'"]+))""")
MAX_BYTES = MAX_TEXT_BYTES


@dataclass
class Expanded:
    prompt: str
    attached: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)  # ImageBlocks, in mention order
    resources: list[str] = field(default_factory=list)  # "server:uri" of the MCP resources attached


def _looks_like_path(word: str) -> bool:
    return "/" in word or "." in word or word.startswith("~")


def expand_mentions(text: str, cwd: Path) -> Expanded:
    """The prompt with every mentioned file appended as a <file> block (each file once)."""
    attached: list[Path] = []
    blocks: list[str] = []
    problems: list[str] = []
    images: list[dict[str, Any]] = []
    for match in MENTION.finditer(text):
        quoted = match.group(1) or match.group(2)
        word = quoted if quoted is not None else match.group(3).rstrip(".,;:!?)")
        if quoted is None and is_mcp_mention(word):
            continue  # an MCP resource: expand_prompt_mentions reads it
        path = (cwd / os.path.expanduser(word)).resolve()
        if path.is_dir():
            problems.append(f"@{word} is a directory ({path}); mention files, e.g. @{word.rstrip('/')}/README.md")
            continue
        if not path.is_file():
            if quoted is not None or _looks_like_path(word):
                problems.append(f"@{word}: no such file ({path}, relative to {cwd})")
            continue
        if path in attached:
            continue
        try:
            with path.open("rb") as handle:
                data = handle.read(max(MAX_BYTES, MAX_IMAGE_BYTES) + 1)
        except OSError as error:
            problems.append(f"@{word}: cannot read {path} ({error.strerror})")
            continue
        try:
            attachment = attachment_of(data, label=f"@{word}", name=word, where=str(path),
                                       named_like_image=looks_like_image(path))
        except AttachmentProblem as problem:
            problems.append(str(problem))
            continue
        attached.append(path)
        if attachment.image is not None:
            images.append(attachment.image)
        elif attachment.text_block is not None:
            blocks.append(attachment.text_block)
    try:
        check_prompt_images(images)
    except ImageProblem as problem:
        problems.append(f"{problem.message}; {problem.fix}")
    prompt = text if not blocks else text + "\n\n" + "\n\n".join(blocks)
    return Expanded(prompt, attached, problems, images)


async def expand_prompt_mentions(text: str, cwd: Path, open_live: Callable[[], Awaitable[Any]]) -> Expanded:
    """Files as `expand_mentions`, then `@server:uri` MCP resources (``open_live()``: the session, opened only
    when the text mentions a resource)."""
    expanded = expand_mentions(text, cwd)
    if not mentions_in(text) or expanded.problems:
        return expanded
    live = await open_live()
    if live is None:
        expanded.problems.append("MCP resources cannot be attached: the session did not open")
        return expanded
    resources = await attach_mcp_resources(text, live.coordinator)
    expanded.problems.extend(resources.problems)
    expanded.prompt = resources.prompt(expanded.prompt)
    expanded.images.extend(resources.images)
    expanded.resources = resources.attached
    return expanded
