"""Fixtures for in-process plugin runs: tiny competitions written into pytester's temporary folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from e2e_support import lay_out_competition, make_tiny_classifier


@pytest.fixture(scope="session")
def tiny_classifier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_classifier(tmp_path_factory.mktemp("clf") / "tiny")


@pytest.fixture
def competition(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tiny_classifier: Path) -> pytest.Pytester:
    """Two tiny good submissions (a 2024 program, a 2023 prompt), the scripted LLM double, a tiny classifier."""
    lay_out_competition(pytester.path, tiny_classifier)
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return pytester
