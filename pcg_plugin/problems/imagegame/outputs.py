"""The run folder of a picture-game run: each episode in clembench's layout, results.json, report.html.

Episodes: ``<run>/episodes/<submission>/trial_<t>/<A>-t0.0--<B>-t0.0/imagegame/<i>_<experiment>/episode_<id>/``
holding ``interactions.json`` and ``scores.json`` as clembench v2.0 writes them (``clembench_io``; no scores.json
where clembench's scorer wrote none) and our own
``transcript.json`` (the typed events). Each ``trial_<t>`` folder is a clembench results folder, so clembench's
tools (and ``pcg imagegame score``) read it as they read a published run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pcg_plugin._util import jsontext
from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.episode.transcript import Transcript
from pcg_plugin.problems.imagegame import GAME_NAME, rules
from pcg_plugin.problems.imagegame.episode_record import EpisodeRecord
from pcg_plugin.problems.imagegame.records import EpisodeResult

TEMPERATURE_TAG = "t0.0"


def model_pair(player_1: str, player_2: str) -> str:
    """clembench's folder name of a model pair (``<A>-t0.0--<B>-t0.0``); any character outside A-Za-z0-9._+-
    becomes "-"."""

    def clean(name: str) -> str:
        return re.sub(r"[^A-Za-z0-9._+-]", "-", name) or "model"

    return f"{clean(player_1)}-{TEMPERATURE_TAG}--{clean(player_2)}-{TEMPERATURE_TAG}"


def game_folder(submission: str, trial: int, player_1: str, player_2: str) -> str:
    """The ``imagegame`` folder of one submission's trial (a clembench results folder above it)."""
    return "/".join(("episodes", submission, f"trial_{trial}", model_pair(player_1, player_2), GAME_NAME))


def write_episode(
    run_dir: Path, submission: str, trial: int, record: EpisodeRecord, instance: rules.Instance, transcript: Transcript
) -> str:
    """Write one episode's folder (clembench's interactions.json and scores.json, and our transcript.json);
    returns its path relative to the run folder."""
    from pcg_plugin.problems.imagegame import clembench_io

    folder = clembench_io.write_episode(
        run_dir / game_folder(submission, trial, record.player_1, record.player_2), record, instance
    )
    atomic_write(folder / "transcript.json", jsontext.dumps(transcript.to_dict(), indent=1) + "\n")
    return folder.relative_to(run_dir).as_posix()


def load_results(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def episode_rows(results: list[EpisodeResult]) -> list[dict[str, Any]]:
    """Each episode as results.json lists it (scores with NaN as null)."""
    from pcg_plugin.problems.imagegame.leaderboard import _plain

    out = []
    for r in sorted(results, key=lambda r: (r.submission, r.experiment, r.game_id, r.trial)):
        ep = {k: _plain(v) for k, v in (r.episode or {}).items()}
        out.append(
            {
                "nodeid": r.nodeid,
                "submission": r.submission,
                "instance": r.instance,
                "trial": r.trial,
                "model": r.player_model,
                "level": r.model,
                "assignment": r.assignment,
                "outcome": r.outcome,
                "turns": r.turns,
                "reason": r.reason,
                "message": r.message,
                "episode scores": ep or None,
                "episode_dir": r.episode_dir,
                "usage": r.usage,
            }
        )
    return out
