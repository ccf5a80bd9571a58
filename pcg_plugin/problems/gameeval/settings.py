"""A GameEval run's options (``--pcg-gameeval-*``) besides the shared LLM ones, and its frozen Settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pcg_plugin.llm import options as run_options
from pcg_plugin.llm.options import CROSS_PLAY, Option

if TYPE_CHECKING:  # the options are read at every pytest start: no game is imported for them
    from pcg_plugin.problems.gameeval.games import Game

DEFAULT_SEED = 0
OFFLINE_MAX_TOKENS = 48  # the offline default's reply cap: a question, an answer or a short JSON reply

OPTIONS: tuple[Option, ...] = (
    Option(
        "--pcg-gameeval-targets",
        "what to play, comma-separated, or all (default all): Ask-Guess words "
        "(apple, lawn_mower), SpyFall pairs (tiger&lion), TofuKingdom draws (game/0 to game/19); with the "
        "offline default LLM one or two",
    ),
    Option("--pcg-gameeval-seed", f"seed of the seatings and role draws (default {DEFAULT_SEED})"),
    Option(
        "--pcg-gameeval-max-tokens",
        f"max_tokens of every reply (default: not sent, as the reference; "
        f"{OFFLINE_MAX_TOKENS} with the offline default LLM)",
    ),
    CROSS_PLAY,
)


add_options = run_options.problem_options(OPTIONS)


@dataclass(frozen=True)
class Settings(run_options.RunSettings):
    """What a GameEval run plays and how; identical on the controller and every worker (the shared fields:
    ``RunSettings``)."""

    game: str = ""
    targets: tuple[str, ...] = ()
    seed: int = DEFAULT_SEED
    max_tokens: int | None = None
    cross_play: bool = False  # --pcg-cross-play: every assignment of the models to the roles (episode.crossplay)


def parse_targets(text: str, known: tuple[str, ...], label: str) -> tuple[str, ...]:
    chosen: set[str] = set()
    for part in (p.strip() for p in text.split(",")):
        if part == "all":
            chosen.update(known)
        elif part:
            if part not in known:
                raise ValueError(f"--pcg-gameeval-targets: no {label} {part!r} (e.g. {', '.join(known[:3])})")
            chosen.add(part)
    if not chosen:
        raise ValueError("--pcg-gameeval-targets: nothing given")
    return tuple(k for k in known if k in chosen)


def resolve(
    game: Game,
    raw: Mapping[str, str | None],
    *,
    rootdir: Path,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Raw option strings -> Settings; a ValueError names the bad option."""

    get = partial(run_options.given, raw)

    run = run_options.basics(raw, rootdir=rootdir, cwd=cwd, env=env)
    offline = run.offline
    models = run_options.split_models(get("pcg_model"))
    from pcg_plugin.episode.crossplay import run_models  # the options are read at every pytest start: not there

    cross_play = run_models(models, get("pcg_cross_play"), offline=offline)
    known, notes = game.targets(), []
    picked = run_options.chosen(raw, "pcg_gameeval_targets", f"name {game.target_label}s, or all")
    targets = parse_targets(picked, known, game.target_label) if picked else known
    trials_raw = get("pcg_trials")
    trials = run_options.parse_trials(trials_raw) if trials_raw else game.default_trials
    if offline and not picked:
        targets = game.offline_targets
        notes.append(f"offline default LLM: playing {','.join(targets)} (set --pcg-gameeval-targets for more)")
    if offline and not trials_raw:
        trials = 1
    max_tokens = run_options.positive("pcg_gameeval_max_tokens", get("pcg_gameeval_max_tokens"), None)
    if offline and max_tokens is None:
        max_tokens = OFFLINE_MAX_TOKENS
        notes.append(
            f"offline default LLM: replies capped at {OFFLINE_MAX_TOKENS} tokens "
            "(set --pcg-gameeval-max-tokens to change)"
        )
    seed_raw = get("pcg_gameeval_seed")
    seed = run_options.whole("pcg_gameeval_seed", seed_raw) if seed_raw else DEFAULT_SEED
    return Settings(
        game=game.name,
        targets=targets,
        trials=trials,
        model=",".join(models) or None,
        **run.settings(),
        seed=seed,
        max_tokens=max_tokens,
        cross_play=cross_play,
        notes=tuple(notes),
    )


def from_config(config: pytest.Config, game: Game) -> Settings:
    return run_options.settings_from(config, OPTIONS, partial(resolve, game))
