"""SDK clients pointed at the per-test fake server; max_retries=0 so every fault surfaces at once."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anthropic
import openai
import pytest
from fakeapi import FakeAPIServer


@pytest.fixture
async def claude(fake_api: FakeAPIServer) -> AsyncIterator[anthropic.AsyncAnthropic]:
    client = anthropic.AsyncAnthropic(base_url=fake_api.base_url, api_key="test-key", max_retries=0)
    yield client
    await client.close()


@pytest.fixture
async def oai(fake_api: FakeAPIServer) -> AsyncIterator[openai.AsyncOpenAI]:
    client = openai.AsyncOpenAI(base_url=fake_api.openai_base_url, api_key="test-key", max_retries=0)
    yield client
    await client.close()
