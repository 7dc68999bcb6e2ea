"""How the behavioural suites call a module's methods: private hooks only with the arguments their signature
asks for, sync or async alike, and network-bound calls with "needs a server" told apart from a real failure."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

# Arguments the known upstream shapes of private hooks take, by parameter name.
_SAMPLE_ARGUMENTS = {"token_count": 100_000, "tokens": 100_000, "budget": 200_000, "token_budget": 200_000,
                     "max_tokens": 200_000}
# Exception class names (anywhere in the MRO) that mean "could not reach a server", across SDKs and httpx.
_OFFLINE_ERROR_NAMES = ("ConnectError", "ConnectionError", "APIConnectionError", "ConnectTimeout",
                        "TransportError", "NetworkError", "ClientConnectorError", "APITimeoutError")


def required_positional(function: Any) -> list[inspect.Parameter] | None:
    """The parameters a call must supply (None when the signature cannot be read)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    return [p for p in parameters
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]


def arguments_for(function: Any) -> tuple[Any, ...] | None:
    """Arguments for a private hook, or None when its signature asks for something we cannot supply."""
    required = required_positional(function)
    if required is None:
        return None
    if not required:
        return ()
    if all(p.name in _SAMPLE_ARGUMENTS for p in required):
        return tuple(_SAMPLE_ARGUMENTS[p.name] for p in required)
    if len(required) == 2:  # the (token_count, budget) shape under other names
        return (100_000, 200_000)
    return None


async def call_maybe_async(function: Any, *args: Any) -> Any:
    outcome = function(*args)
    return await outcome if inspect.isawaitable(outcome) else outcome


def is_offline_error(error: BaseException) -> bool:
    """True when ``error`` says a server could not be reached (not a bug in the module)."""
    if isinstance(error, (OSError, asyncio.TimeoutError)):
        return True
    names = {cls.__name__ for cls in type(error).__mro__}
    if names & set(_OFFLINE_ERROR_NAMES):
        return True
    cause = error.__cause__ or error.__context__
    return cause is not None and cause is not error and is_offline_error(cause)
