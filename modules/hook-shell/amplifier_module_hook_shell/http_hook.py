"""Running one ``{"type": "http"}`` hook: the event JSON POSTed to its URL, the response read like a command's
stdout. A 2xx answer is "exit 0" with the body as stdout; any other status, a refused connection or the timeout is
a warning and the session goes on (an http hook blocks only by what its body says, as in Claude Code).

Header values expand ``$VAR`` / ``${VAR}`` only for the names the entry lists in ``allowedEnvVars``; any other
reference becomes empty, so a hooks file cannot make amplifier send a variable it did not name. Redirects are not
followed: the request goes to the URL the file shows and nowhere else.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping

from .hook_process import MAX_CAPTURE_BYTES, HookRun
from .hook_table import HttpHook

_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def expand_header(value: str, allowed: tuple[str, ...], env: Mapping[str, str]) -> str:
    """``value`` with the allowed variables filled in and every other reference removed."""
    def fill(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else ""
    return _REFERENCE.sub(fill, value)


async def post_hook_event(hook: HttpHook, body: bytes, env: Mapping[str, str]) -> HookRun:
    """POST ``body`` to the hook's URL within its timeout (the whole exchange, not each read); never raises for
    what the server or network does. The answer is read up to ``MAX_CAPTURE_BYTES``."""
    import httpx2  # only sessions that have an http hook pay for the import (the SDKs' HTTP client)

    headers = {name: expand_header(value, hook.allowed_env_vars, env) for name, value in hook.headers}
    headers.setdefault("Content-Type", "application/json")
    try:
        async with asyncio.timeout(hook.timeout):
            async with httpx2.AsyncClient(timeout=hook.timeout, follow_redirects=False) as client:
                async with client.stream("POST", hook.url, content=body, headers=headers) as response:
                    answer = bytearray()
                    async for chunk in response.aiter_bytes():
                        answer.extend(chunk[: MAX_CAPTURE_BYTES - len(answer)])
                        if len(answer) >= MAX_CAPTURE_BYTES:
                            break
    except (TimeoutError, httpx2.TimeoutException):
        return HookRun(exit_code=None, stdout="", stderr="", timed_out=True)
    except (httpx2.HTTPError, httpx2.InvalidURL) as error:
        why = str(error) or type(error).__name__
        return HookRun(exit_code=None, stdout="", stderr="", failure=f"could not be reached ({why})")
    text = bytes(answer).decode("utf-8", errors="replace")
    if not 200 <= response.status_code < 300:
        return HookRun(exit_code=None, stdout="", stderr=text,
                       failure=f"answered HTTP {response.status_code} {response.reason_phrase}".rstrip())
    return HookRun(exit_code=0, stdout=text, stderr="")
