"""`chatgpt4pcg.competition` inside the sandbox: chat goes to the harness over a pipe; run_evaluation only registers."""

from pcg_plugin.sandbox.official_api.chat import chat_with_chatgpt, chat_with_llm
from pcg_plugin.sandbox.official_api.models import TrialContext, TrialLoop
from pcg_plugin.sandbox.official_api.registry import register_evaluation as run_evaluation

__all__ = ["TrialContext", "TrialLoop", "chat_with_chatgpt", "chat_with_llm", "run_evaluation"]
