"""The four harness problems' games: what each one's targets are, how a target and trial become a setup, which
role a model call belongs to, and which roles a participant may write a prompt for or assign a model to.

A new game is one ``Game`` here (and its rules module); the problem, settings, submission, item, leaderboard
and report code are shared.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pcg_plugin.episode.table import Model
from pcg_plugin.problems.gameeval import askguess, spyfall, tofukingdom
from pcg_plugin.problems.gameeval.episode import CRASH, Played
from pcg_plugin.problems.gameeval.prompts import askguess_labels, spyfall_pairs

TOFU_GAMES = 20  # the README's table: 20 games per model-to-camp assignment


@dataclass(frozen=True)
class Game:
    """``name`` (problem ``gameeval/<name>``); ``rules`` (the replay game: askguess, spyfall, tofukingdom);
    ``targets`` in order; ``setup(target, trial, seed)``; ``play(setup, model, overrides)``; ``model_role``
    maps a call's caller to the key of ``gameeval.toml``'s ``[models]`` table; ``prompt_roles`` the roles a
    prompt or program may replace; ``slots`` the placeholders a participant's prompt may use;
    ``default_trials`` as the reference's runner (Ask-Guess ``--n`` 20, SpyFall 1, TofuKingdom 1 per draw)."""

    name: str
    rules: str
    title: str
    target_label: str
    targets: Callable[[], tuple[str, ...]]
    setup: Callable[[str, int, int], Any]
    play: Callable[[Any, Model, Mapping[str, str] | None], Played]
    model_roles: tuple[str, ...]
    model_role: Callable[[Any, str], str]
    prompt_roles: tuple[str, ...]
    slots: tuple[str, ...]
    default_trials: int
    offline_targets: tuple[str, ...]
    prompt_owner: Callable[[str], str] = str.lower  # the [models] role whose model a prompt role's calls use
    cross_roles: tuple[str, ...] = ()  # the roles in cross-play's order (rows first; default ``model_roles``)
    adversarial: bool = True  # sides that win against each other (else one score the roles earn together)
    typical_calls: int = 20  # calls a game makes, for the estimate before a run where the store has none

    def forfeited(self, played: Played) -> bool:
        """Whether a reply ended the game with no winner: a crash (where the reference raises), or TofuKingdom's
        error strings (a reply that was no JSON three times, or a named player who is none). Ask-Guess has no
        sides (a ChatError is its own outcome); a SpyFall exit is the vote's, no one reply's."""
        if not self.adversarial:
            return False
        if played.outcome == CRASH:
            return True
        return self.rules == "tofukingdom" and not (played.result and "winner" in played.result)

    @property
    def play_roles(self) -> tuple[str, ...]:
        """The roles models are assigned to, in the order an assignment names them (``a--b``)."""
        return self.cross_roles or self.model_roles

    def target_text(self, setup: Any, role: str) -> str:
        """What a participant's program is told about the episode for ``role`` (its ``run(ctx, target)``)."""
        if self.rules == "askguess":
            return setup.played_word if role == askguess.ANSWERER else ""
        if self.rules == "spyfall":
            return setup.pair[0] if role == "spy" else setup.pair[1]
        return "".join(f"{s.name} is the {s.role}. \n" for s in setup.seating) if role != tofukingdom.PRINCE else ""


def rng_for(seed: int, target: str, trial: int) -> random.Random:
    """One RNG per (run seed, target, trial): the same draw on every worker and every rerun."""
    return random.Random(f"gameeval:{seed}:{target}:{trial}")


def _pair(target: str) -> tuple[str, str]:
    spy, villager = target.split("&")
    return spy, villager


def _tofu_role(setup: tofukingdom.Setup, caller: str) -> str:
    return "prince" if caller == tofukingdom.PRINCE else tofukingdom.CAMPS[caller].lower()


def _askguess(mode: str) -> Game:
    return Game(
        name=f"askguess-{mode}",
        rules="askguess",
        title=f"Ask-Guess ({mode})",
        target_label="word",
        targets=askguess_labels,
        setup=lambda t, trial, seed: askguess.Setup(t, mode, trial),
        play=askguess.play,
        model_roles=askguess.ROLES,
        model_role=lambda setup, caller: caller,
        prompt_roles=askguess.ROLES,
        slots=("word",),
        default_trials=20,
        offline_targets=("apple", "bear"),
        cross_roles=(askguess.QUESTIONER, askguess.ANSWERER),
        adversarial=False,
    )


GAMES: dict[str, Game] = {
    "askguess-easy": _askguess("easy"),
    "askguess-hard": _askguess("hard"),
    "spyfall": Game(
        name="spyfall",
        rules="spyfall",
        title="SpyFall",
        target_label="pair",
        targets=lambda: tuple(f"{a}&{b}" for a, b in spyfall_pairs()),
        setup=lambda t, trial, seed: spyfall.draw(rng_for(seed, t, trial), _pair(t), trial=trial),
        play=spyfall.play,
        model_roles=spyfall.ROLES,
        model_role=lambda setup, caller: setup.role(caller),
        prompt_roles=spyfall.ROLES,
        slots=("name", "phrase"),
        default_trials=1,
        offline_targets=("tiger&lion",),
        typical_calls=24,  # 6 descriptions and 6 votes a round, most games over in round 1 or 2
    ),
    "tofukingdom": Game(
        name="tofukingdom",
        rules="tofukingdom",
        title="TofuKingdom",
        target_label="draw",
        targets=lambda: tuple(f"game/{i}" for i in range(TOFU_GAMES)),
        setup=lambda t, trial, seed: tofukingdom.draw(rng_for(seed, t, trial), trial=trial),
        play=tofukingdom.play,
        model_roles=("prince", "queen", "spy"),
        model_role=_tofu_role,
        prompt_roles=tofukingdom.PROMPT_ROLES,
        slots=("name",),
        default_trials=1,
        offline_targets=("game/0",),
        typical_calls=17,  # 7 questions and answers, the extra question and answer, the final choice
        prompt_owner=lambda role: "prince" if role == tofukingdom.PRINCE else tofukingdom.CAMPS[role].lower(),
    ),
}
