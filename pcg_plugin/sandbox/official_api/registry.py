"""``run_evaluation`` inside the sandbox child: it only remembers which TrialLoop the program meant.

The shims (``chatgpt4pcg.competition``, ``llms4pcg.competition``) register here and the child reads it back; it
imports nothing, so the child and the shims both stand above it. One module object in the child's process:
the child runs as ``__main__``, so a registry kept in the child module itself would be a second copy the
shims never write to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the official signature's type; nothing is imported when the program runs
    from pcg_plugin.sandbox.official_api.models import TrialLoop

_REGISTERED: list[type[TrialLoop]] = []


def register_evaluation(team_name: str, fn: type[TrialLoop], *args: Any, **kwargs: Any) -> None:
    """``run_evaluation`` inside the sandbox: remember which TrialLoop the program meant; the harness runs it."""
    _REGISTERED.append(fn)


def registered() -> type[TrialLoop] | None:
    """The TrialLoop most recently passed to ``run_evaluation`` in this process, if any."""
    return _REGISTERED[-1] if _REGISTERED else None
