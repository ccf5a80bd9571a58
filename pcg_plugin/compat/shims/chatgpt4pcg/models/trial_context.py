"""`chatgpt4pcg.models.trial_context` inside the sandbox."""

from pcg_plugin.compat.models import TrialContext

__all__ = ["TrialContext"]
