"""HTTP status -> LLMError for the statuses every HTTP LLM API uses alike (408, 400/422, 5xx).

Providers map the statuses whose advice is their own (401 names their key variable, 429 may mean quota,
context-length wording differs) and hand the rest here, so the shared ones read the same everywhere.
"""

from __future__ import annotations

from typing import Any

from amplifier_core.llm_errors import (
    ContentFilterError,
    InvalidRequestError,
    LLMError,
    LLMTimeoutError,
    ProviderUnavailableError,
)


def error_for_common_status(
    status: int,
    detail: str,
    *,
    where: str,
    retry_after: float | None = None,
    content_filtered: bool = False,
    **fields: Any,
) -> LLMError | None:
    """The LLMError for 408, 400/422 (``content_filtered`` picks ContentFilterError) or any 5xx; None for any
    other status. ``where`` names the API and model; ``fields`` (provider, model, status_code, ...) pass on."""
    if status == 408:
        return LLMTimeoutError(f"{where} timed out on the server side (HTTP 408): {detail}", **fields)
    if status in (400, 422):
        if content_filtered:
            return ContentFilterError(f"{where} blocked the content (HTTP {status}): {detail}", **fields)
        return InvalidRequestError(f"{where} rejected the request (HTTP {status}): {detail}", **fields)
    if status >= 500:
        return ProviderUnavailableError(f"{where} failed (HTTP {status}): {detail}", retry_after=retry_after,
                                        **fields)
    return None
