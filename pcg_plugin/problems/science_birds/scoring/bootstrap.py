"""Bootstrap over trials through the official scorer: the one resampling core shared by the HTML rank
intervals (``report_html.rank_intervals``) and the noise-aware baseline threshold (``baseline.compare``).

Each (submission, letter) redraws its own trials with replacement (as many as it has; with several models, each
model's trials apart); diversity is a per-letter number and stays at its measured value. Every draw is scored by
``scoring.score`` (weights included, so a draw moves the weights as a real rerun would): there is no second scorer here.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pcg_plugin.core.stats.intervals import interval as interval  # the one order-statistics interval (re-exported)
from pcg_plugin.problems.science_birds.editions import DEFAULT, EDITIONS
from pcg_plugin.problems.science_birds.results import Letter, Settings
from pcg_plugin.problems.science_birds.scoring.official import (
    LetterInput,
    MultiModelResult,
    ScoreResult,
    score,
    score_models,
    to_decimal,
)

# One trial as the scorer reads it: (sta, sim), None where the stage produced nothing (the trial scores 0).
TrialPair = tuple[Decimal | None, Decimal | None]


@dataclass(frozen=True)
class Setup:
    """The scorer's denominators and switches for a run (what ``scoring.score`` needs besides the inputs)."""

    edition: str
    trials: int
    letters: tuple[str, ...]
    disable_weights: bool = False


def setup_from_settings(settings: Settings) -> Setup:
    """A results/baseline ``settings`` object -> Setup (unknown edition -> 2024, no trials -> the official 10)."""
    return Setup(
        edition=settings.edition if settings.edition in EDITIONS else DEFAULT,
        trials=int(settings.trials or 10),
        letters=tuple(settings.letters or ()),
        disable_weights=bool(settings.disable_weights),
    )


def _dec(value: Any) -> Decimal | None:
    return None if value is None else to_decimal(value)


@dataclass(frozen=True)
class LetterTrials:
    """One (submission, letter) ready to resample: its trials' (sta, sim) and its fixed diversity."""

    trials: tuple[TrialPair, ...]
    diversity: Decimal


def prepare(
    submissions: Mapping[str, Mapping[str, Letter]], letters: Sequence[str]
) -> dict[str, dict[str, LetterTrials]]:
    """``{name: {letter: Letter}}`` (results.json's letters, or a baseline's read as them) -> Decimals once, so
    each draw only picks. A letter absent from a submission has no trials."""
    out: dict[str, dict[str, LetterTrials]] = {}
    for name, per_letter in submissions.items():
        out[name] = {}
        for c in letters:
            data = (per_letter or {}).get(c) or Letter()
            pairs = tuple((_dec(t.sta), _dec(t.sim)) for t in data.trials)
            out[name][c] = LetterTrials(pairs, to_decimal(data.diversity or "0"))
    return out


def letter_input(drawn: Sequence[TrialPair], diversity: Decimal) -> LetterInput:
    """Drawn trials renumbered 1..n (a trial drawn twice counts twice); missing stages are left out (score 0)."""
    return LetterInput(
        stability=tuple((i, sta) for i, (sta, _) in enumerate(drawn, 1) if sta is not None),
        similarity=tuple((i, sim) for i, (_, sim) in enumerate(drawn, 1) if sim is not None),
        diversity=diversity,
    )


def draw(
    prepared: Mapping[str, Mapping[str, LetterTrials]], letters: Sequence[str], rnd: random.Random
) -> dict[str, dict[str, LetterInput]]:
    """One bootstrap sample of every (submission, letter), in submission then letter order (so a seed
    reproduces the same draws)."""
    programs: dict[str, dict[str, LetterInput]] = {}
    for name, per_letter in prepared.items():
        programs[name] = {}
        for c in letters:
            lt = per_letter[c]
            programs[name][c] = letter_input([rnd.choice(lt.trials) for _ in lt.trials], lt.diversity)
    return programs


def resampled_scores(
    submissions: Mapping[str, Mapping[str, Letter]], setup: Setup, *, reps: int, seed: int = 0
) -> Iterator[ScoreResult]:
    """``reps`` official scorings of bootstrap samples of the run's trials; deterministic for a seed."""
    rnd = random.Random(seed)
    prepared = prepare(submissions, setup.letters)
    for _ in range(reps):
        yield score(
            draw(prepared, setup.letters, rnd),
            edition=setup.edition,
            trials=setup.trials,
            letters=setup.letters,
            disable_weights=setup.disable_weights,
        )


def resampled_model_scores(
    per_model: Mapping[str, Mapping[str, Mapping[str, Letter]]], setup: Setup, *, reps: int, seed: int = 0
) -> Iterator[MultiModelResult]:
    """The same for a several-model (2025) run, ``{model: {name: letters}}``: each draw resamples every model's
    trials and is scored by ``scoring.score_models`` (weights per model, prompt scores summed)."""
    rnd = random.Random(seed)
    prepared = {model: prepare(subs, setup.letters) for model, subs in per_model.items()}
    for _ in range(reps):
        yield score_models(
            {m: draw(p, setup.letters, rnd) for m, p in prepared.items()},
            trials=setup.trials,
            letters=setup.letters,
            disable_weights=setup.disable_weights,
        )


def resampled_each_model(
    per_model: Mapping[str, Mapping[str, Mapping[str, Letter]]], setup: Setup, *, reps: int, seed: int = 0
) -> Iterator[dict[str, ScoreResult]]:
    """The same for a 2023/2024 several-model run, ``{model: {name: letters}}``: each draw resamples every
    model's trials and scores each model alone by the official scorer (nothing combines them)."""
    rnd = random.Random(seed)
    prepared = {model: prepare(subs, setup.letters) for model, subs in per_model.items()}
    for _ in range(reps):
        yield {
            m: score(
                draw(p, setup.letters, rnd),
                edition=setup.edition,
                trials=setup.trials,
                letters=setup.letters,
                disable_weights=setup.disable_weights,
            )
            for m, p in prepared.items()
        }
