"""`llms4pcg.models.trial_loop` inside the sandbox."""

from pcg_plugin.compat.models import TrialLoop

__all__ = ["TrialLoop"]
