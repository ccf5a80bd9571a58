"""Official chatgpt4pcg 1.2.2 / llms4pcg 2.0.x programming interface (TrialLoop, chat functions); the standalone
``run_evaluation`` with the editions' official profiles is ``pcg_plugin.problems.science_birds.standalone``."""

from __future__ import annotations

from pathlib import Path

from pcg_plugin.sandbox.official_api.chat import chat_with_chatgpt, chat_with_llm
from pcg_plugin.sandbox.official_api.models import TrialContext, TrialLoop

SHIMS = Path(__file__).parent / "shims"
"""Folder put first on the sandbox child's sys.path only: ``import chatgpt4pcg`` / ``llms4pcg`` resolve here there."""

__all__ = ["SHIMS", "TrialContext", "TrialLoop", "chat_with_chatgpt", "chat_with_llm"]
