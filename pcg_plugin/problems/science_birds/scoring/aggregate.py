"""Controller side: trial records -> official scoring inputs -> one results document
(``pcg_plugin.problems.science_birds.results``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pcg_plugin.core.session.controller import Collected
from pcg_plugin.core.stats.intervals import level_key, model_ranks
from pcg_plugin.problems.science_birds import results
from pcg_plugin.problems.science_birds.editions import edition
from pcg_plugin.problems.science_birds.records import TrialRecord


def group(records: Iterable[TrialRecord]) -> dict[str, dict[str, list[TrialRecord]]]:
    """submission -> letter -> records in trial order (sorted, so -n 0 and -n 2 agree)."""
    out: dict[str, dict[str, list[TrialRecord]]] = {}
    for rec in sorted(records, key=lambda r: (r.submission, r.letter, r.trial)):
        out.setdefault(rec.submission, {}).setdefault(rec.letter, []).append(rec)
    return out


def diversity_vectors(records: Sequence[TrialRecord], use_embedding: bool) -> list[tuple[float, ...]]:
    """The vectors the official diversity script reads: one per image (similarity entry), in trial order."""
    vecs = []
    for rec in records:
        vec = rec.embedding if use_embedding else rec.probs
        if rec.sim is not None and vec is not None:
            vecs.append(vec)
    return vecs


def letter_numbers(records: Sequence[TrialRecord], trials: int, use_embedding: bool) -> dict[str, Any]:
    """Plain-float inputs for one (submission, letter): stability per level, similarity per image, diversity."""
    from pcg_plugin.problems.science_birds.scoring.diversity import diversity

    vecs = diversity_vectors(records, use_embedding)
    return {
        "stability": tuple((r.trial, r.sta) for r in records if r.sta is not None),
        "similarity": tuple((r.trial, r.sim) for r in records if r.sim is not None),
        "diversity": float(diversity(vecs, trials)) if len(vecs) > 1 else 0.0,
    }


def scoring_inputs(
    grouped: Mapping[str, Mapping[str, Sequence[TrialRecord]]],
    submissions: Iterable[str],
    letters: Sequence[str],
    trials: int,
    use_embedding: bool,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, dict[str, Any]]]]:
    """``{name: {letter: LetterInput}}`` for scoring.score, plus the plain numbers behind it (for the report).

    Every submission that had an item counts as a program (the official scorer counts every team folder),
    and every letter is present: a letter with no level or image is an all-zero entry, never dropped.
    """
    from pcg_plugin.problems.science_birds.scoring.official import LetterInput, to_decimal

    inputs: dict[str, dict[str, Any]] = {}
    numbers: dict[str, dict[str, dict[str, Any]]] = {}
    for name in sorted(set(submissions) | set(grouped)):
        inputs[name], numbers[name] = {}, {}
        for letter in letters:
            nums = letter_numbers(grouped.get(name, {}).get(letter, []), trials, use_embedding)
            numbers[name][letter] = nums
            inputs[name][letter] = LetterInput(
                stability=tuple((t, to_decimal(v)) for t, v in nums["stability"]),
                similarity=tuple((t, to_decimal(v)) for t, v in nums["similarity"]),
                diversity=to_decimal(nums["diversity"]),
            )
    return inputs, numbers


def _s(value: Any) -> str | None:
    """Official Decimals travel as exact strings (toFixed-style, no exponent)."""
    if value is None:
        return None
    return format(value, "f") if not isinstance(value, str) else value


def submissions_meta(collected: Collected) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for meta in collected.items.values():
        out.setdefault(meta["name"], meta)
    for rec in collected.records.values():
        out.setdefault(
            rec.submission,
            {"name": rec.submission, "format": rec.format, "path": None, "prompt_length": None, "team": rec.submission},
        )
    return out


def run_letters(collected: Collected, requested: Sequence[str]) -> list[str]:
    """The letters actually run (``-k``/``--lf`` may select fewer than requested), alphabetically."""
    seen = {m["letter"] for m in collected.items.values() if "letter" in m}
    seen |= {r.letter for r in collected.records.values()}
    return sorted(seen) if seen else list(requested)


def trial_entries(collected: Collected, name: str, letter: str, trial_scores: Mapping[int, Any]) -> list[results.Trial]:
    """Every trial that ran for (name, letter): passed ones from their record, errored ones as reason ``error``."""
    rows: dict[int, dict[str, Any]] = {}
    usage: dict[int, dict[str, Any]] = {}
    for rec in collected.records.values():
        if rec.submission == name and rec.letter == letter:
            rows[rec.trial] = rec.trial_entry()
            usage[rec.trial] = dict(rec.usage)
    for nodeid, meta in collected.items.items():
        if meta.get("name") == name and meta.get("letter") == letter and int(meta["trial"]) not in rows:
            message = collected.errors.get(nodeid, "the item did not report a result")
            rows[int(meta["trial"])] = {
                "trial": int(meta["trial"]),
                "nodeid": nodeid,
                "reason": results.ERROR_REASON,
                "message": message,
            }
    return [
        results.Trial(
            **{**rows[t], "probs": _floats(rows[t].get("probs")), "trial_score": _s(trial_scores.get(t, "0"))},
            extra={"usage": usage[t]} if t in usage else {},
        )
        for t in sorted(rows)
    ]


def _floats(values: Sequence[float] | None) -> tuple[float, ...] | None:
    return tuple(values) if values is not None else None


def usage_totals(records: Iterable[TrialRecord]) -> results.Usage:
    counts = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0, "replayed_calls": 0}
    cost_usd: float | None = None  # None unless some call had a price
    for rec in records:
        for key in counts:
            counts[key] += int(rec.usage.get(key, 0) or 0)
        cost = rec.usage.get("cost_usd")
        if cost is not None:
            cost_usd = (cost_usd or 0.0) + float(cost)
    return results.Usage(
        prompt_tokens=counts["prompt_tokens"],
        completion_tokens=counts["completion_tokens"],
        calls=counts["calls"],
        replayed_calls=counts["replayed_calls"],
        cost_usd=cost_usd,
    )


def score(collected: Collected, settings: Any) -> tuple[Any, dict[str, dict[str, dict[str, Any]]], list[str]]:
    """Call the scoring module once (no second implementation) on what the run produced."""
    from pcg_plugin.problems.science_birds.scoring import official as scoring

    meta = submissions_meta(collected)
    letters = run_letters(collected, settings.letters)
    grouped = group(collected.records.values())
    inputs, numbers = scoring_inputs(
        grouped, meta, letters, settings.trials, edition(settings.edition).diversity_vector == "embedding"
    )
    lengths = {name: m.get("prompt_length") for name, m in meta.items()}
    result = scoring.score(
        inputs,
        edition=settings.edition,
        trials=settings.trials,
        letters=letters,
        disable_weights=settings.disable_weights,
        tie_break=settings.tie_break,
        prompt_lengths={k: v for k, v in lengths.items() if v is not None} or None,
    )
    return result, numbers, letters


def score_models(
    collected: Collected, settings: Any
) -> tuple[Any, dict[str, dict[str, dict[str, dict[str, Any]]]], list[str]]:
    """2025 with several models: each model's records scored on their own (weights per model, every submission
    of the run counting in P) and the prompt scores summed over models, by ``scoring.score_models`` alone."""
    from pcg_plugin.problems.science_birds.scoring import official as scoring

    meta = submissions_meta(collected)
    letters = run_letters(collected, settings.letters)
    per_model, numbers = {}, {}
    for model in collected.models(settings.models):
        grouped = group(collected.for_model(model).records.values())
        per_model[model], numbers[model] = scoring_inputs(grouped, meta, letters, settings.trials, True)
    lengths = {name: m.get("prompt_length") for name, m in meta.items()}
    result = scoring.score_models(
        per_model,
        trials=settings.trials,
        letters=letters,
        disable_weights=settings.disable_weights,
        tie_break=settings.tie_break,
        prompt_lengths={k: v for k, v in lengths.items() if v is not None} or None,
    )
    return result, numbers, letters


@dataclass(frozen=True)
class EachModel:
    """2023, 2024 with several models: each model's run scored alone by the official scorer; nothing combines
    them (those editions ran one model), so each submission x model is a row of its own."""

    per_model: dict[str, Any]  # model -> the official scorer's result of that model's trials alone


def score_each(collected: Collected, settings: Any) -> tuple[EachModel, dict[str, Any], list[str]]:
    """Each model's records scored as a run of that model alone (``score`` on its part of the run)."""
    per_model, numbers = {}, {}
    for model in collected.models(settings.models):
        per_model[model], numbers[model], _ = score(collected.for_model(model), settings)
    return EachModel(per_model), numbers, run_letters(collected, settings.letters)


def ranks_across_models(per_model: Mapping[str, Any]) -> dict[tuple[str, str], tuple[int, int]]:
    """(submission, model) -> (rank across every row, rank within its model) of a 2023/2024 several-model run:
    rows best first by their own model's prompt score, a tie ordered by the rank within the model (the official
    scorer's, which ranks ties apart by position unless ``--pcg-tie-break`` shares them), by the harness's one
    ranking of submission x model rows (``intervals.model_ranks``)."""
    order = list(per_model)
    rows = [(n, m, p.prompt_score, p.rank) for m, res in per_model.items() for n, p in res.programs.items()]
    rows.sort(key=lambda r: (-r[2], r[3] or 0, r[0], order.index(r[1])))
    across, within = model_ranks(range(len(rows)), lambda i: rows[i][2:], lambda i: rows[i][1])
    return {(rows[i][0], rows[i][1]): (across[i], within[i]) for i in range(len(rows))}


def _weights_doc(result: Any) -> dict[str, results.Weight]:
    return {
        letter: results.Weight(weight=_s(w.weight), w_sta=_s(w.w_sta), w_sim=_s(w.w_sim), w_div=_s(w.w_div))
        for letter, w in sorted(result.weights.items())
    }


def _letters_doc(collected: Collected, name: str, letters: Sequence[str], prog: Any) -> dict[str, results.Letter]:
    """Per letter of one program (of one model's result): char score, means, diversity and every trial."""
    out = {}
    for letter in letters:
        ch = prog.letters[letter]
        out[letter] = results.Letter(
            char_score=_s(ch.char_score),
            sta_mean=_s(ch.sta_mean),
            sim_mean=_s(ch.sim_mean),
            diversity=_s(ch.diversity),
            trials=tuple(trial_entries(collected, name, letter, dict(ch.trial_scores))),
        )
    return out


def per_model_document(collected: Collected, result: Any, letters: Sequence[str]) -> dict[str, results.ModelResults]:
    """results.json ``per_model``: for each model its own scorer's output (weights, competition score, each
    submission's prompt score, rank and letters) and ``normalized_score`` = 100·prompt_km / the total
    competition score (the published per-model shares, which add up to the submission's total)."""
    out = {}
    for model, res in result.per_model.items():
        part = collected.for_model(model)
        subs = {}
        for name in sorted(res.programs):
            prog = res.programs[name]
            subs[name] = results.ModelSubmission(
                model=model,
                prompt_score=_s(prog.prompt_score),
                normalized_score=_s(result.per_model_normalized[model][name]),
                model_normalized_score=_s(prog.normalized_score),
                rank=prog.rank,
                usage=usage_totals(r for r in part.records.values() if r.submission == name),
                letters=_letters_doc(part, name, letters, prog),
            )
        out[model] = results.ModelResults(
            competition_score=_s(res.competition_score), weights=_weights_doc(res), submissions=subs
        )
    return out


MODEL_RULE = (
    "2025 edition: each model's trials are scored on their own (weights per model) and a submission's prompt "
    "scores are summed over the models (rank: by the sum; per_model: each model's own ranking)"
)


def results_document(
    collected: Collected,
    settings: Any,
    *,
    run: results.Run,
    settings_doc: results.Settings,
    provenance: Mapping[str, Any],
    result: Any,
    letters: Sequence[str],
    workers: Mapping[str, Any] | None = None,
    folders: Sequence[Mapping[str, Any]] = (),
) -> results.Results:
    """The results.json document (docs/results-schema.md) from the scoring module's result."""
    common: dict[str, Any] = {
        "run": run,
        "settings": settings_doc,
        "provenance": results.Provenance.read(provenance, "provenance"),
        "models": tuple(settings.models),
        "workers": dict(workers or {}),
        "folders": tuple(results.Folder.read(f, f"folders[{i}]") for i, f in enumerate(folders)),
        "folder_errors": dict(sorted(collected.folder_problems.items())),
    }
    if isinstance(result, EachModel):  # 2023, 2024 with several models: each model's own; nothing sums them
        rows, per_model = each_model_rows(collected, result, letters)
        return results.Results(**common, competition_score=None, weights={}, submissions=rows, per_model=per_model)
    meta = submissions_meta(collected)
    several = hasattr(result, "per_model")  # a scoring.MultiModelResult: 2025 with several models
    one_model = settings_doc.model or edition(settings.edition).profile.model
    ranks = dict(result.ranking)
    subs = []
    for name in sorted(meta):
        m = meta[name]
        records = [r for r in collected.records.values() if r.submission == name]
        if several:
            scores = {
                "prompt_score": _s(result.totals[name]),
                "normalized_score": _s(result.normalized[name]),
                "rank": ranks[name],
                "letters": {},
            }
        else:
            prog = result.programs[name]
            scores = {
                "prompt_score": _s(prog.prompt_score),
                "normalized_score": _s(prog.normalized_score),
                "rank": prog.rank,
                "letters": _letters_doc(collected, name, letters, prog),
            }
        subs.append(
            results.Submission(
                model="all" if several else one_model, **_identity(name, m), usage=usage_totals(records), **scores
            )
        )
    subs.sort(key=lambda s: (s.rank is None, s.rank or 0, s.name))
    return results.Results(
        **common,
        competition_score=_s(result.competition_score),
        weights={} if several else _weights_doc(result),
        submissions=tuple(subs),
        per_model=per_model_document(collected, result, letters) if several else None,
        model_rule=MODEL_RULE if several else None,
    )


def _identity(name: str, meta: Mapping[str, Any]) -> dict[str, Any]:
    """What names a submission's row, from its item metadata."""
    keys = ("format", "path", "files_hash", "prompt_length")
    return {"name": name, "team": meta.get("team", name), **{k: meta.get(k) for k in keys}}


def each_model_rows(
    collected: Collected, result: EachModel, letters: Sequence[str]
) -> tuple[tuple[results.Submission, ...], dict[str, results.ModelResults]]:
    """2023, 2024 with several models: one row per submission x model with that model's own official figures
    and letters, ``rank`` across every row, ``rank_in_model`` and ``key``; ``per_model``: each model's
    competition score, weights and official ranking (its letters are in the rows)."""
    meta = submissions_meta(collected)
    ranks = ranks_across_models(result.per_model)
    order = list(result.per_model)
    subs, per_model = [], {}
    for model, res in result.per_model.items():
        part = collected.for_model(model)
        own = {}
        for name in sorted(res.programs):
            prog = res.programs[name]
            usage = usage_totals(r for r in part.records.values() if r.submission == name)
            own[name] = results.ModelSubmission(
                model=model,
                prompt_score=_s(prog.prompt_score),
                normalized_score=_s(prog.normalized_score),
                model_normalized_score=_s(prog.normalized_score),
                rank=prog.rank,
                usage=usage,
            )
            subs.append(
                results.Submission(
                    model=model,
                    **_identity(name, meta.get(name, {})),
                    usage=usage,
                    prompt_score=_s(prog.prompt_score),
                    normalized_score=_s(prog.normalized_score),
                    rank=ranks[(name, model)][0],
                    rank_in_model=ranks[(name, model)][1],
                    key=level_key(name, model),
                    letters=_letters_doc(part, name, letters, prog),
                )
            )
        per_model[model] = results.ModelResults(
            competition_score=_s(res.competition_score), weights=_weights_doc(res), submissions=own
        )
    subs.sort(key=lambda s: (s.rank or 0, s.name or "", order.index(s.model or "")))
    return tuple(subs), per_model
