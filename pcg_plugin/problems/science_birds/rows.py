"""Science Birds' part of the harness's read-back (``core.results.runs``): its trials as flat rows, and the run
re-scored
by the official scorer on resampled trials (the same resampling as the report's rank intervals and the gate,
``scoring/bootstrap.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pcg_plugin.core.records import trials
from pcg_plugin.core.stats.intervals import level_key
from pcg_plugin.problems.science_birds.results import Letter, Results, coerce


def _usage(trial: Any) -> dict[str, Any]:
    return dict(trial.extra.get("usage") or {})


def trial_rows(results: Results | Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per trial (each model's with several): score = the official trial score, target = the letter."""
    doc = coerce(results)
    model = doc.settings.model
    parts: list[tuple[str | None, str, Mapping[str, Letter]]] = []
    if doc.summed:
        for model_key, part in (doc.per_model or {}).items():
            parts += [(model_key, name, sub.letters) for name, sub in part.submissions.items()]
    else:  # a row per submission, or per submission x model (2023, 2024 with several: ``rank_in_model`` set)
        parts = [
            (s.model if s.rank_in_model is not None else model, str(s.name), s.letters)
            for s in doc.submissions
            if s.name is not None
        ]
    out = []
    for m, name, letters in parts:
        for letter, data in letters.items():
            for t in data.trials:
                seconds = sum(float(v) for v in (t.timings or {}).values()) if t.timings else None
                out.append(
                    trials.row(
                        problem="science-birds",
                        submission=name,
                        model=m,
                        target=letter,
                        trial=int(t.trial or 0),
                        score=float(t.trial_score) if t.trial_score is not None else None,
                        reason=t.reason,
                        seconds=seconds,
                        usage=_usage(t),
                        own={"sta": t.sta, "sim": t.sim, "top": t.top, "message": t.message, "nodeid": t.nodeid},
                    )
                )
    return out


def trial_zero_cause(row: Mapping[str, Any]) -> str | None:
    """Why a trial row without an official reason scored 0: the trial score is the letter's weight x stability x
    similarity, so one of those two was 0 (None when neither was, or the row does not say)."""
    causes = [what for what, key in (("stability", "sta"), ("similarity", "sim")) if row.get(key) == 0]
    return " and ".join(causes) + " 0" if causes else None


def scores(results: Results | Mapping[str, Any], pick: Any) -> dict[str, float]:
    """``{row: normalized score}`` by the official scorer over the trials ``pick`` chooses from each
    (submission, model, letter) (diversity held at its measured value, as the bootstrap does); a row is a
    submission, or in 2023/2024 with several models ``team @ model``, each model's rows scored alone."""
    from pcg_plugin.problems.science_birds.scoring.bootstrap import letter_input, prepare, setup_from_settings
    from pcg_plugin.problems.science_birds.scoring.official import score, score_models

    doc = coerce(results)
    setup = setup_from_settings(doc.settings)
    if not setup.letters:
        return {}

    def drawn(model: str | None, subs: Mapping[str, Mapping[str, Letter]]) -> dict[str, Any]:
        prepared = prepare(subs, setup.letters)
        return {
            name: {
                c: letter_input([lt.trials[i] for i in pick((name, model, c), len(lt.trials))], lt.diversity)
                for c, lt in per.items()
            }
            for name, per in prepared.items()
        }

    if doc.summed:
        per_model = {
            m: drawn(m, {n: s.letters for n, s in part.submissions.items()})
            for m, part in (doc.per_model or {}).items()
        }
        res = score_models(per_model, trials=setup.trials, letters=setup.letters, disable_weights=setup.disable_weights)
        return {name: float(v) for name, v in res.normalized.items()}
    # one model (level None), or 2023/2024 with several: each model's rows scored alone, keyed ``name @ model``
    levels: list[str | None] = [*doc.row_models] or [None]
    out = {}
    for level in levels:
        subs = {
            str(s.name): s.letters
            for s in doc.submissions
            if s.name is not None and (level is None or s.model == level)
        }
        one = score(
            drawn(level, subs),
            edition=setup.edition,
            trials=setup.trials,
            letters=setup.letters,
            disable_weights=setup.disable_weights,
        )
        out.update({level_key(name, level): float(p.normalized_score) for name, p in one.programs.items()})
    return out
