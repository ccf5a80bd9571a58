"""`chatgpt4pcg.models.trial_context` inside the sandbox."""

from pcg_plugin.sandbox.official_api.models import TrialContext

__all__ = ["TrialContext"]
