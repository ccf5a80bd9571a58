"""Several models in a game with roles: which model plays which role in each episode.

Without ``--pcg-cross-play`` each model of ``--pcg-model a,b`` plays every role a submission leaves free (self-play,
one item level per model). With it, every assignment of the listed models to the free roles is played, as each
reference pits models against each other: two roles (the picture game's describer x drawer, Ask-Guess questioner x
answerer, SpyFall spy x villagers) take every ordered pair, self-pairs included (clembench stores a pair as
``<A>--<B>``); three camps (TofuKingdom) take every assignment of distinct models when there are at least as many
models as free camps (three models: the 6 permutations of GameEval's README), else every assignment. A
submission's ``[models]`` table still pins the roles it names. An assignment's item level is its models in role
order joined by ``--`` (``a--b``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from pcg_plugin.llm.options import parse_bool

SEPARATOR = "--"


def cross_play_option(text: str | None) -> bool:
    """``--pcg-cross-play``'s value (a bare flag in an ini file is ``true``); a ValueError names the option."""
    if text is None:
        return False
    try:
        return parse_bool(text)
    except ValueError as exc:
        raise ValueError(f"--pcg-cross-play: {exc}") from None


def run_models(models: Sequence[str], cross_play_text: str | None, *, offline: bool) -> bool:
    """A game's ``--pcg-model`` list and ``--pcg-cross-play`` checked together; whether to cross-play. Several models
    need a backend that serves them (not the offline default, which serves only its own)."""
    cross_play = cross_play_option(cross_play_text)
    if len(models) > 1 and offline:
        raise ValueError(
            f"--pcg-model: several models ({','.join(models)}) need a backend that serves them (--pcg-base-url, "
            "--pcg-backend, or a BACKEND/ prefix on each: scripted/module:function), not the offline default"
        )
    check_models(models, cross_play)
    return cross_play


def check_models(models: Sequence[str], cross_play: bool) -> None:
    """Cross-play needs at least two models, and no model name holding the level separator."""
    if not cross_play:
        return
    if len(models) < 2:
        raise ValueError(
            f"--pcg-cross-play: name at least two models with --pcg-model a,b (got {','.join(models) or 'none'})"
        )
    bad = [m for m in models if SEPARATOR in m]
    if bad:
        raise ValueError(f"--pcg-cross-play: a model name may not hold {SEPARATOR!r} (it names pairs): {bad[0]!r}")


def assignments(
    roles: Sequence[str], models: Sequence[str], pinned: Mapping[str, str] | None = None, *, distinct: bool = False
) -> list[dict[str, str]]:
    """Every assignment of ``models`` to the ``roles`` not ``pinned``, each a role -> model map in role order; in the
    order of ``models`` (the first role varies slowest). ``distinct``: distinct models on the free roles when there
    are enough of them (TofuKingdom's camps), else every assignment."""
    pinned = dict(pinned or {})
    free = [r for r in roles if r not in pinned]
    if distinct and len(models) >= len(free):
        picks: Sequence[tuple[str, ...]] = list(itertools.permutations(models, len(free)))
    else:
        picks = list(itertools.product(models, repeat=len(free)))
    out = []
    for pick in picks:
        chosen = dict(zip(free, pick, strict=True))
        out.append({r: pinned[r] if r in pinned else chosen[r] for r in roles})
    return out


def level_name(assignment: Mapping[str, str], roles: Sequence[str]) -> str:
    """``a--b``: the models of an assignment in role order."""
    return SEPARATOR.join(assignment[r] for r in roles)


def self_play(roles: Sequence[str], model: str, pinned: Mapping[str, str] | None = None) -> dict[str, str]:
    """One model on every role a submission leaves free."""
    pinned = dict(pinned or {})
    return {r: pinned.get(r, model) for r in roles}


def levels(
    roles: Sequence[str],
    models: Sequence[str],
    pinned: Mapping[str, str] | None,
    *,
    cross_play: bool,
    distinct: bool = False,
) -> dict[str, dict[str, str]]:
    """A submission's item levels, each with its assignment: one per model (self-play), or with ``cross_play`` one
    per assignment (``assignments``)."""
    if not cross_play:
        return {m: self_play(roles, m, pinned) for m in models}
    found = assignments(roles, models, pinned, distinct=distinct)
    return {level_name(a, roles): a for a in found}


def keywords(level: str, assignment: Mapping[str, str] | None) -> tuple[str, ...]:
    """What ``-k`` matches on an item of ``level``: ``model_<level>``, and in cross-play ``model_<m>`` for each model
    of its assignment (``-k model_a`` selects every game ``a`` plays)."""
    words = [f"model_{level}"]
    if assignment is not None:
        words.extend(f"model_{m}" for m in dict.fromkeys(assignment.values()) if f"model_{m}" not in words)
    return tuple(words)


def pair_of(level: str | None, assignment: Mapping[str, str | None]) -> str:
    """What keeps an episode of several models apart in the response store: its level when the item has one and
    its roles are played by more than one model (the same model may play the same target and trial in several
    assignments, each a game of its own); empty otherwise, so that self-play is stored as a one-model run stores
    it and a rerun of either replays the other."""
    return level if level is not None and len(set(assignment.values())) > 1 else ""


def stored_as(edition: str, pair: str) -> str:
    """The response store's edition of an episode: the game's, with ``|<A>--<B>`` for an assignment of several
    models (``pair_of``)."""
    return f"{edition}|{pair}" if pair else edition


def estimate(games: Mapping[str, int], roles: Mapping[str, Sequence[str]], calls_per_game: float, source: str) -> str:
    """The line printed before a several-model run: how many games each level plays (a model, or an assignment
    ``a--b``) and the calls they make, in all and per model (a model makes its roles' share of a game's calls).
    ``games``: level -> its collected games; ``roles``: level -> the models of its roles; ``source``: where the
    calls per game come from."""
    total = sum(games.values())
    per_model: dict[str, float] = {}
    for level, n in games.items():
        models = roles.get(level) or (level,)
        for m in models:
            per_model[m] = per_model.get(m, 0.0) + n * calls_per_game / len(models)
    kind = "assignments" if any(SEPARATOR in level for level in games) else "models"
    counts = set(games.values())
    shape = (
        f"{len(games)} {kind} x {counts.pop()} games = {total} games"
        if len(counts) == 1
        else f"{len(games)} {kind}, {total} games ({', '.join(f'{level} {n}' for level, n in games.items())})"
    )
    calls = ", ".join(f"{m} ~{c:,.0f}" for m, c in per_model.items())
    return (
        f"pcg: pre-flight estimate: {shape}; ~{total * calls_per_game:,.0f} calls at ~{calls_per_game:.0f} a game "
        f"({source}); per model (its roles' share of each game): {calls}"
    )
