"""The backend tests' server fixture; the server itself is tests/loopback_llm.py (shared with every folder)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from loopback_llm import FakeOpenAI, serve


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """Start the server in a thread; ``state.url`` is the base URL (``http://127.0.0.1:<port>/v1``)."""
    with serve(FakeOpenAI()) as state:
        yield state
