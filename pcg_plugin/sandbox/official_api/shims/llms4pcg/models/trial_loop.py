"""`llms4pcg.models.trial_loop` inside the sandbox."""

from pcg_plugin.sandbox.official_api.models import TrialLoop

__all__ = ["TrialLoop"]
