"""The picture game's options (``--pcg-imagegame-*``) besides the shared LLM ones, and its frozen Settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pytest

from pcg_plugin.llm import options as run_options
from pcg_plugin.llm.options import CROSS_PLAY, Option

VARIANTS = ("v2.0", "head")
DEFAULT_TRIALS = 1  # clembench plays each instance once per model pair
# With the offline SmolLM2 default and no explicit instances: one of each experiment, so a run takes a minute.
OFFLINE_INSTANCES = ("compact_grids/0", "random_grids/1")
MAX_TOKENS = 300  # clemcore's default max_tokens per reply

OPTIONS: tuple[Option, ...] = (
    Option(
        "--pcg-imagegame-instances",
        "instances to play: ids (compact_grids/3), experiments (random_grids) or "
        "all, comma-separated (default all 59 of clembench v2.0; compact_grids/0,random_grids/1 with the "
        "offline default LLM)",
    ),
    Option(
        "--pcg-imagegame-variant",
        "turn limit: v2.0 (25 turns, clembench 2.0.0, pinned) or head (50 rounds, clembench HEAD) (default v2.0)",
        VARIANTS,
    ),
    Option("--pcg-imagegame-max-tokens", f"max_tokens of every reply (default {MAX_TOKENS}, clemcore's)"),
    CROSS_PLAY,
)


add_options = run_options.problem_options(OPTIONS)


@dataclass(frozen=True)
class Settings(run_options.RunSettings):
    """What a picture-game run plays and how; identical on the controller and every worker (the shared fields:
    ``RunSettings``)."""

    instances: tuple[str, ...] = ()
    trials: int = field(default=DEFAULT_TRIALS, kw_only=True)
    variant: str = "v2.0"
    max_tokens: int = MAX_TOKENS
    cross_play: bool = False  # --pcg-cross-play: every describer x drawer pair of the models (episode.crossplay)

    @property
    def targets(self) -> tuple[str, ...]:
        return self.instances


def parse_instances(text: str, known: tuple[str, ...]) -> tuple[str, ...]:
    """``"compact_grids/3, random_grids"`` -> those ids in the set's order; ``all`` is every one."""
    chosen: set[str] = set()
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if part == "all":
            chosen.update(known)
            continue
        matches = [k for k in known if k == part or k.startswith(part + "/")]
        if not matches:
            raise ValueError(
                f"--pcg-imagegame-instances: no instance {part!r} (ids look like compact_grids/3 or "
                f"random_grids/10; experiments: {', '.join(sorted({k.split('/')[0] for k in known}))})"
            )
        chosen.update(matches)
    if not chosen:
        raise ValueError("--pcg-imagegame-instances: no instance given")
    return tuple(k for k in known if k in chosen)


def resolve(
    raw: Mapping[str, str | None],
    *,
    rootdir: Path,
    known: tuple[str, ...],
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Raw option strings -> Settings; a ValueError names the bad option."""

    get = partial(run_options.given, raw)

    run = run_options.basics(raw, rootdir=rootdir, cwd=cwd, env=env)
    offline = run.offline
    variant = get("pcg_imagegame_variant") or "v2.0"
    run_options.check_choice("pcg_imagegame_variant", variant, VARIANTS)
    models = run_options.split_models(get("pcg_model"))
    from pcg_plugin.episode.crossplay import run_models  # the options are read at every pytest start: not there

    cross_play = run_models(models, get("pcg_cross_play"), offline=offline)
    picked = run_options.chosen(
        raw, "pcg_imagegame_instances", "name instances (compact_grids/3), experiments (random_grids) or all"
    )
    trials_raw = get("pcg_trials")
    notes: list[str] = []
    instances = parse_instances(picked, known) if picked else known
    trials = run_options.parse_trials(trials_raw) if trials_raw else DEFAULT_TRIALS
    if offline and not picked:
        instances = tuple(i for i in OFFLINE_INSTANCES if i in known)
        notes.append(f"offline default LLM: playing {','.join(instances)} (set --pcg-imagegame-instances for more)")
    max_tokens = run_options.positive("pcg_imagegame_max_tokens", get("pcg_imagegame_max_tokens"), MAX_TOKENS)
    return Settings(
        instances=instances,
        trials=trials,
        model=",".join(models) or None,
        **run.settings(),
        variant=variant,
        max_tokens=max_tokens or MAX_TOKENS,
        cross_play=cross_play,
        notes=tuple(notes),
    )


def from_config(config: pytest.Config, known: tuple[str, ...]) -> Settings:
    return run_options.settings_from(config, OPTIONS, partial(resolve, known=known))
