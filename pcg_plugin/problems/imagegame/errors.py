"""The imagegame problem's exceptions, under pytest-pcg's one root (``pcg_plugin.errors.PcgError``).

They are re-exported where they are raised (``clembench_io.EpisodeFolderError``, ``scoring.NotScorable``)."""

from __future__ import annotations

from pcg_plugin.errors import PcgError


class EpisodeFolderError(PcgError, ValueError):
    """A folder that is not a readable clembench imagegame episode (the message names the folder and the fix)."""


class NotScorable(PcgError):
    """clembench's scorer raised for this episode, so it wrote no scores.json (e.g. DONE on the first turn)."""
