"""tool-web: ``web_fetch`` (guarded HTTP GET with readable text) and, only when a search backend is
configured, ``web_search``. Non-public addresses are refused after DNS resolution unless allowed."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal
from urllib.parse import quote_plus

from amplifier_core import ToolResult
from amplifier_core.module_config import ModuleConfig, parse_module_config

from .address_policy import AddressPolicy, AddressRefused
from .fetch import FetchError, fetch
from .html_text import html_to_text

__amplifier_module_type__ = "tool"

_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "application/xhtml")


class SearchBackend(ModuleConfig):
    type: Literal["searxng"] = "searxng"
    url: str  # base URL of a SearXNG instance; /search?format=json is called


class WebConfig(ModuleConfig):
    timeout: float = 15.0
    max_bytes: int = 100_000
    max_download_bytes: int = 5_000_000
    max_redirects: int = 5
    allowed_hosts: list[str] = []
    user_agent: str = "amplifier-web-fetch/0.1"
    search: SearchBackend | None = None
    max_results: int = 5


def _error(message: str) -> ToolResult:
    return ToolResult(success=False, error={"message": message})


class WebFetchTool:
    name = "web_fetch"
    description = (
        "Fetch a public http(s) URL and return its readable text (HTML converted to text). Long pages are "
        "returned in pieces: pass `offset` (in characters) to read further."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "http:// or https:// URL"},
            "max_bytes": {"type": "integer", "description": "most characters to return (default from config)"},
            "offset": {"type": "integer", "description": "character offset into the extracted text", "default": 0},
        },
        "required": ["url"],
    }

    def __init__(self, config: WebConfig) -> None:
        self._config = config
        self._policy = AddressPolicy.from_config(config.allowed_hosts)

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        url = (input or {}).get("url")
        if not isinstance(url, str) or not url.strip():
            return _error("web_fetch needs a 'url' (http:// or https://)")
        limit = input.get("max_bytes") or self._config.max_bytes
        offset = input.get("offset") or 0
        if not isinstance(limit, int) or limit <= 0 or not isinstance(offset, int) or offset < 0:
            return _error("'max_bytes' must be a positive integer and 'offset' a non-negative integer")
        try:
            page = await asyncio.wait_for(
                asyncio.to_thread(
                    fetch,
                    url.strip(),
                    self._policy,
                    timeout=self._config.timeout,
                    max_download_bytes=self._config.max_download_bytes,
                    max_redirects=self._config.max_redirects,
                    user_agent=self._config.user_agent,
                ),
                # fetch ends itself when its budget (the same product) is spent; this only bounds a DNS lookup
                timeout=self._config.timeout * (self._config.max_redirects + 1) + 1,
            )
            if page.status >= 400:
                return _error(f"{page.url} answered HTTP {page.status}")
            if not page.content_type.startswith(_TEXT_TYPES) and page.content_type != "application/octet-stream":
                return _error(f"{page.url} is {page.content_type}, not text; web_fetch returns text only")
            text = page.text()
        except (AddressRefused, FetchError) as error:
            return _error(str(error))
        except TimeoutError:
            return _error(f"fetching {url} timed out")
        title = ""
        if "html" in page.content_type or text.lstrip()[:15].lower().startswith(("<!doctype html", "<html")):
            title, text = html_to_text(text)
        piece = text[offset: offset + limit]
        remaining = max(len(text) - offset - len(piece), 0)
        note = ""
        if remaining:
            note = f"\n\n[{remaining} more characters: call web_fetch again with offset={offset + len(piece)}]"
        elif not page.complete:
            note = f"\n\n[download stopped at {self._config.max_download_bytes} bytes]"
        return ToolResult(
            success=True,
            output={
                "url": page.url,
                "title": title,
                "content_type": page.content_type,
                "content": piece + note,
                "offset": offset,
                "total_chars": len(text),
                "truncated": bool(remaining) or not page.complete,
            },
        )


class WebSearchTool:
    name = "web_search"
    description = "Search the web through the configured search backend; returns titles, URLs and snippets."
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    }

    def __init__(self, config: WebConfig, backend: SearchBackend) -> None:
        self._config = config
        self._backend = backend
        self._policy = AddressPolicy.from_config(config.allowed_hosts)

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        query = (input or {}).get("query")
        if not isinstance(query, str) or not query.strip():
            return _error("web_search needs a non-empty 'query'")
        url = f"{self._backend.url.rstrip('/')}/search?format=json&q={quote_plus(query)}"
        try:
            page = await asyncio.to_thread(
                fetch, url, self._policy, timeout=self._config.timeout,
                max_download_bytes=self._config.max_download_bytes, max_redirects=self._config.max_redirects,
                user_agent=self._config.user_agent,
            )
            if page.status >= 400:
                return _error(f"the search backend answered HTTP {page.status}")
            payload = json.loads(page.text())
        except (AddressRefused, FetchError, ValueError) as error:
            return _error(f"web search failed: {error}")
        results = [
            {"title": item.get("title", ""), "url": item.get("url", ""), "snippet": item.get("content", "")}
            for item in payload.get("results", [])[: self._config.max_results]
        ]
        return ToolResult(success=True, output={"query": query, "results": results, "count": len(results)})


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    settings = parse_module_config(WebConfig, config, "tool-web")
    fetch_tool = WebFetchTool(settings)
    await coordinator.mount("tools", fetch_tool, name=fetch_tool.name)
    if settings.search is not None:
        search_tool = WebSearchTool(settings, settings.search)
        await coordinator.mount("tools", search_tool, name=search_tool.name)
    return None
