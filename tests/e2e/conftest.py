"""Fixtures for in-process plugin runs: tiny competitions written into pytester's temporary folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from e2e_support import lay_out_competition, make_tiny_classifier


@pytest.fixture(scope="session")
def tiny_classifier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny classifier, made once per worker. Every test that runs the plugin in process (``competition``,
    ``runpytest_inprocess``) comes through here first, so torch and the classes the classifier loads with are
    imported before its first run: pytester drops the modules a run imported first, and torch imported a second
    time in one process fails (SystemError: bad call flags)."""
    from transformers import AutoImageProcessor, AutoModelForImageClassification  # noqa: F401 - see above

    return make_tiny_classifier(tmp_path_factory.mktemp("clf") / "tiny")


@pytest.fixture
def competition(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tiny_classifier: Path) -> pytest.Pytester:
    """Two tiny good submissions (a 2024 program, a 2023 prompt), the scripted LLM double, a tiny classifier."""
    lay_out_competition(pytester.path, tiny_classifier)
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return pytester
