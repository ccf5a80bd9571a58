"""One GameEval trial through the response store: a run killed mid-episode resumes on the same store, asks
only the calls it had not stored, and ends as an uninterrupted run does; models per role get their own chats."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import ge_doubles
import pytest

from pcg_plugin.problems.gameeval import item
from pcg_plugin.problems.gameeval.games import GAMES
from pcg_plugin.problems.gameeval.settings import Settings
from pcg_plugin.problems.gameeval.submission import Submission
from pcg_plugin.problems.gameeval.worker import Context


def settings(store: Path, game: str) -> Settings:
    return Settings(
        game=game, targets=GAMES[game].offline_targets, backend="scripted", model="ge_doubles:flaky", store=store
    )


def sub(tmp_path: Path, **kw: object) -> Submission:
    return Submission("selfplay", tmp_path, tmp_path / "gameeval.toml", "gameeval_model", None, files_hash="h", **kw)


@pytest.mark.parametrize("game", ["spyfall", "tofukingdom", "askguess-easy"])
def test_a_killed_episode_resumes_asking_only_what_was_not_stored(tmp_path: Path, game: str) -> None:
    g, target = GAMES[game], GAMES[game].offline_targets[-1]
    ge_doubles.CALLS[0], ge_doubles.BUDGET[0] = 0, None
    whole = item.run_trial(Context(settings(tmp_path / "a", game), tmp_path / "run"), sub(tmp_path), g, target, 1, "n")
    total = ge_doubles.CALLS[0]
    assert total == whole.usage["calls"] > 2
    ge_doubles.CALLS[0], ge_doubles.BUDGET[0] = 0, total // 2
    with pytest.raises(RuntimeError):
        item.run_trial(Context(settings(tmp_path / "b", game), tmp_path / "run"), sub(tmp_path), g, target, 1, "n")
    ge_doubles.CALLS[0], ge_doubles.BUDGET[0] = 0, None
    resumed = item.run_trial(
        Context(settings(tmp_path / "b", game), tmp_path / "run"), sub(tmp_path), g, target, 1, "n"
    )
    assert ge_doubles.CALLS[0] == total - total // 2  # nothing stored is asked again
    assert resumed.usage["replayed_calls"] == total // 2
    assert replace(resumed, usage={}) == replace(whole, usage={})
    calls = [e for e in whole.events if e["kind"] == "call"]
    assert len(calls) == total and all(isinstance(e["messages"], int) and e["messages"] > 0 for e in calls)


def test_models_per_role_get_their_own_stored_chats(tmp_path: Path) -> None:
    ge_doubles.CALLS[0], ge_doubles.BUDGET[0] = 0, None
    two = sub(tmp_path, models={"spy": "ge_doubles:respond"})
    rec = item.run_trial(
        Context(settings(tmp_path / "s", "spyfall"), tmp_path / "run"), two, GAMES["spyfall"], "tiger&lion", 1, "n"
    )
    assert rec.models == {"spy": "scripted:ge_doubles:respond", "villager": "scripted:ge_doubles:flaky"}
    spy_calls = sum(
        e["kind"] == "call" and e["role"] == rec.setup["players"][rec.setup["spy_index"] - 1] for e in rec.events
    )
    assert ge_doubles.CALLS[0] == rec.usage["calls"] - spy_calls  # the spy's calls went to the other model
