"""`@server:uri` in a prompt attaches that MCP resource, as `@path` attaches a file: the chat and `amplifier run`
both call `attach_mcp_resources` once the session is open (tool-mcp's capabilities `mcp.resources` and
`mcp.read_resource`). A template's URI is read once its `{placeholders}` are filled in (`@docs:docs://page/intro`).

A mention is `@NAME:SCHEME:REST` (a resource URI always has a scheme), so it never looks like a file path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from amplifier_support.capability_names import MCP_READ_RESOURCE, MCP_RESOURCES, MCP_STATUS

MCP_MENTION = re.compile(r"""(?<![\w`])@([A-Za-z0-9_-]+):([A-Za-z][A-Za-z0-9+.-]*:[^\s`'"]+)""")
MAX_CHARS = 256 * 1024  # as for an attached file
_TRAILING = ".,;!?)"


def is_mcp_mention(word: str) -> bool:
    """``word`` (after the ``@``) is ``server:scheme:...``."""
    return MCP_MENTION.fullmatch("@" + word) is not None


@dataclass
class ResourceAttachments:
    blocks: list[str] = field(default_factory=list)  # one <resource> block per mention, in order
    attached: list[str] = field(default_factory=list)  # "server:uri" of each
    images: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def prompt(self, text: str) -> str:
        return text if not self.blocks else text + "\n\n" + "\n\n".join(self.blocks)


def mentions_in(text: str) -> list[tuple[str, str]]:
    """(server, uri) of each distinct `@server:uri` in the text."""
    found: list[tuple[str, str]] = []
    for match in MCP_MENTION.finditer(text):
        mention = (match.group(1), match.group(2).rstrip(_TRAILING))
        if mention not in found:
            found.append(mention)
    return found


async def attach_mcp_resources(text: str, coordinator: Any) -> ResourceAttachments:
    """Read every `@server:uri` of ``text``; what cannot be read is a problem naming it (the prompt is not sent)."""
    result = ResourceAttachments()
    mentions = mentions_in(text)
    if not mentions:
        return result
    read = coordinator.get_capability(MCP_READ_RESOURCE)
    status = coordinator.get_capability(MCP_STATUS)
    servers = {row["name"]: row for row in status()} if callable(status) else {}
    for server, uri in mentions:
        row = servers.get(server)
        if not callable(read) or row is None:
            known = ", ".join(sorted(servers)) or "none in this session"
            result.problems.append(f"@{server}:{uri}: no MCP server named '{server}' (servers: {known})")
            continue
        if row["state"] != "connected":
            result.problems.append(f"@{server}:{uri}: MCP server '{server}' is {row['state']}"
                                   + (f" ({row['error']})" if row.get("error") else ""))
            continue
        try:
            contents = await read(server, uri)
        except Exception as error:
            detail = getattr(error, "message", None) or str(error) or type(error).__name__
            result.problems.append(f"@{server}:{uri}: MCP server '{server}' could not read it: {detail}")
            continue
        body = str(contents.get("text") or "")
        if len(body) > MAX_CHARS:
            result.problems.append(f"@{server}:{uri} is {len(body):,} characters, over the {MAX_CHARS:,} limit for "
                                   "attachments; ask the model to read it with mcp_read_resource instead")
            continue
        result.attached.append(f"{server}:{uri}")
        result.images.extend(contents.get("images") or [])
        newline = "" if body.endswith("\n") else "\n"
        result.blocks.append(f'<resource server="{server}" uri="{uri}">\n{body}{newline}</resource>')
    return result


def mention_choices(coordinator: Any) -> list[tuple[str, str]]:
    """``("server:uri", description)`` for completing `@`: resources, and templates with their placeholders."""
    resources = coordinator.get_capability(MCP_RESOURCES) if coordinator is not None else None
    if not callable(resources):
        return []
    choices = []
    for row in resources():
        what = row.get("description") or row.get("name") or ""
        choices.append((f"{row['server']}:{row['uri']}", ("template · " if row.get("template") else "") + what))
    return choices
