"""Terminal text: the run header and the end-of-run ranking table (pure functions returning lines)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pcg_plugin._util.numbers import fixed
from pcg_plugin.core.contract.banner import unofficial
from pcg_plugin.core.stats.intervals import rank_text
from pcg_plugin.llm.options import parse_model
from pcg_plugin.problems.science_birds.editions import edition as edition_record
from pcg_plugin.problems.science_birds.results import FILE, ModelResults, ModelSubmission, Results, Submission, coerce
from pcg_plugin.problems.science_birds.settings import Settings


def run_banner(settings: Any) -> str | None:
    """The unofficial banner of a run (``core.contract.banner.unofficial``: a double, another vendor), else, for an
    edition
    that ran one official model (2023, 2024), the note that another model answered: an edition stays official only
    on its own model. ``settings``: the results' settings (``backend``, ``edition``, ``model``, ``models``)."""
    from pcg_plugin.problems.science_birds.editions import EDITIONS

    said = unofficial({"backend": settings.backend})
    if said or settings.edition not in EDITIONS:
        return said
    edition = EDITIONS[settings.edition]
    official = edition.profile.model
    if edition.several_models or not official:
        return None
    # each model as the edition's profile would ask for it (``openai/gpt-4o`` asks for ``gpt-4o``)
    used = [m for m in (settings.models or (settings.model,)) if m and parse_model(m, None).name != official]
    if not used:
        return None
    return (
        f"UNOFFICIAL RUN: {', '.join(used)} answered, not the {edition.year} edition's official model {official}; "
        "the scores compare models, they are no official result"
    )


# What runs without --pcg-classifier (pcg_plugin.problems.science_birds.classify.hf._resolve), said so that nobody
# mistakes it for official.
EMBEDDED_NOTE = (
    "pcg-letters (embedded approximation; official similarity needs --pcg-classifier "
    "pittawat/vit-base-uppercase-english-characters)"
)


def header_lines(settings: Settings) -> list[str]:
    """Edition, backend (loudly when it is the offline default), model, record mode, seeds, classifier."""
    backend = settings.backend or "auto"
    if settings.offline_default:
        backend += " -> OFFLINE DEFAULT (SmolLM2-135M, no API key/base URL): scores are NOT comparable to the official"
    lines = [
        f"pcg: edition {settings.edition}, letters {','.join(settings.letters)}, {settings.trials} trials",
        f"pcg: backend {backend}",
        f"pcg: model {settings.model or ('SmolLM2-135M-Instruct' if settings.offline_default else '(edition default)')}"
        + (f" at {settings.base_url}" if settings.base_url else ""),
        f"pcg: record mode {settings.record}, store {settings.store}",
        "pcg: seeds: the edition's API seed policy; per-trial seeds derived from submission/letter/trial",
        f"pcg: classifier {settings.classifier or EMBEDDED_NOTE} on {settings.device} ({settings.classify_mode})",
    ]
    if settings.constrain != "off":
        lines.insert(
            4,
            f"pcg: constrained decoding: answers are generated under the {settings.constrain} grammar "
            "(--pcg-constrain off for the model's own text)",
        )
    if settings.multi_model and edition_record(settings.edition).several_models:
        lines.insert(
            3,
            f"pcg: {len(settings.models)} models, one item level each; the {settings.edition} edition's rule: each "
            "model's trials scored on their own, a submission's prompt scores summed over the models (ranked by "
            "the sum; each model's own ranking under 'per model')",
        )
    elif settings.multi_model:
        lines.insert(
            3,
            f"pcg: {len(settings.models)} models, one item level each; the {settings.edition} edition ran one model, "
            "so each model is scored alone by the official scorer: one row per submission x model, ranked across "
            "every row by prompt score and within its model as a run of that model alone",
        )
    lines.extend(f"pcg: {note}" for note in settings.notes)
    return lines


def preflight_line(
    settings: Settings, nodeids: Sequence[str], prompt_chars: Mapping[str, int] | None = None
) -> str | None:
    """The estimated cost of the calls this run will pay for (None for local, offline, scripted, replay-only);
    ``prompt_chars``: the characters of each 2023 prompt by submission name (its calls' real size)."""
    from types import SimpleNamespace

    from pcg_plugin.llm.estimate import preflight_text, tokens_in
    from pcg_plugin.problems.science_birds.editions import profile_for

    evaluations = [n for n in nodeids if n.count("::") >= 2]
    if not evaluations or settings.backend not in (None, "auto", "openai", "openai-compatible"):
        return None
    if settings.offline_default:
        return None
    name = settings.backend if settings.backend in ("openai", "openai-compatible") else "openai"
    from pcg_plugin.llm.store import ResponseStore

    assert settings.store is not None
    store = ResponseStore(settings.store)
    # ids are sub::letter::trial, or sub::model::letter::trial with several models (one estimate per model)
    models = settings.models if settings.multi_model else (settings.model,)
    lines = []
    for model in models:
        ids = [n.split("::") for n in evaluations]
        if settings.multi_model:
            ids = [p for p in ids if len(p) > 3 and p[1] == model]
        if not ids:
            continue
        profile_model = profile_for(settings.edition, model=model, base_url=settings.base_url).model
        paths = {p[0] for p in ids}
        sizes = prompt_chars or {}
        known = [tokens_in(sizes[n]) for n in map(submission_name, paths) if n in sizes]
        text = preflight_text(
            SimpleNamespace(name=name),
            store,
            edition=settings.edition,
            model=profile_model,
            submissions=len(paths),
            letters=len({p[-2] for p in ids}),
            trials=settings.trials,
            mode=settings.record,
            known_prompt_tokens=known,
        )
        if text:
            lines.append(f"pcg: {text}")
    return "\n".join(lines) or None


def submission_name(path: str) -> str:
    """The submission an item's id path names: a folder's name, a loose 2023 prompt's stem."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return last[: -len(".txt")] if last.lower().endswith(".txt") else last


def _fmt(value: Any, places: int = 4) -> str:
    """An official decimal at ``places`` places; one that is not 0 never as 0 (``_util.numbers.fixed``)."""
    if value is None:
        return "-"
    try:
        exact = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return str(value)
    text = f"{exact:.{places}f}"
    return fixed(float(exact), places) if exact != 0 and not text.strip("+-0.") else text


def trial_counts(sub: Submission, per_model: Mapping[str, ModelResults] | None = None) -> tuple[int, int, int]:
    """(trials, zero-score official failures, errored items) of one submission (over every model's letters
    when ``per_model``, results.json's several-model part, is given)."""
    n = zero = err = 0
    name = sub.name
    parts = [sub.letters] + [
        m.submissions[name].letters for m in (per_model or {}).values() if name is not None and name in m.submissions
    ]
    for trial in (t for part in parts for letter in part.values() for t in letter.trials):
        n += 1
        if trial.errored:
            err += 1
        elif trial.reason:
            zero += 1
    return n, zero, err


def _is_zero(value: Any) -> bool:
    try:
        return value is not None and Decimal(str(value)) == 0
    except (InvalidOperation, ValueError):
        return False


def zero_score_reason(
    sub: Submission, per_model: Mapping[str, ModelResults] | None = None, letters: Sequence[str] = ()
) -> str | None:
    """The terminal's line for a submission that scores 0 for its diversity (``diversity_cause``)."""
    cause = diversity_cause(sub, per_model, letters)
    return None if cause is None else f"{sub.key or sub.name} scores 0: {cause}"


def diversity_cause(
    sub: Submission, per_model: Mapping[str, ModelResults] | None = None, letters: Sequence[str] = ()
) -> str | None:
    """Why a submission none of whose trials scored 0 still scores 0, when diversity did it: a letter whose
    trials all built the same level has diversity 0, and its char score (stability x similarity x diversity)
    with it. None when the score is not 0 or diversity is not the reason (2023 has no diversity)."""
    if not _is_zero(sub.prompt_score):
        return None
    name = sub.name
    parts = [sub.letters] + [
        m.submissions[name].letters for m in (per_model or {}).values() if name is not None and name in m.submissions
    ]
    zeroed = sorted(
        {
            c
            for part in parts
            for c, lt in part.items()
            if _is_zero(lt.diversity) and not all(t.reason for t in lt.trials)
        }
    )
    if not zeroed:
        return None
    every = set(zeroed) >= set(letters or {c for part in parts for c in part})
    where = "every letter" if every else "letter" + ("s " if len(zeroed) > 1 else " ") + ", ".join(zeroed)
    return (
        f"diversity 0 in {where} (every trial of the letter built the same level), "
        "and a letter's char score is stability x similarity x diversity"
    )


WIDTH = 72  # the narrowest terminal the ranking is laid out for (pytest's own lines fit 80)


def ranking_table(
    submissions: Sequence[Submission], per_model: Mapping[str, ModelResults] | None = None, width: int = WIDTH
) -> list[str]:
    """The ranking, laid out to fit ``width`` columns where its names allow (a wrapped row would break every
    column below it)."""
    rows = sorted(submissions, key=lambda s: (s.rank is None, s.rank or 0, s.name))
    head = ("rank", "95% rank", "submission", "normalized", "prompt score", "trials", "zero", "errors")
    body = []
    for sub in rows:
        n, zero, err = trial_counts(sub, per_model)
        # 2023, 2024 with several models: the row's model and its rank within it
        name = f"{sub.name} @ {sub.model} (#{sub.rank_in_model})" if sub.rank_in_model is not None else sub.name
        body.append(
            (
                str(sub.rank if sub.rank is not None else "-"),
                rank_text(sub.extra.get("rank_interval")),
                name or "",
                _fmt(sub.normalized_score),
                _fmt(sub.prompt_score, 6),
                str(n),
                str(zero),
                str(err),
            )
        )
    widths = [max(len(r[i]) for r in (head, *body)) for i in range(len(head))]
    # two spaces between columns, one between the three counts (they read as words); one everywhere if too wide
    gaps = ["  "] * 5 + [" "] * 2
    if sum(widths) + sum(map(len, gaps)) > width:
        gaps = [" "] * 7

    def line(cells: Sequence[str]) -> str:
        out = [c.ljust(w) if i == 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "".join(cell + gap for cell, gap in zip(out, [*gaps, ""], strict=True)).rstrip()

    return [line(head), *(line(r) for r in body)]


def tie_note(submissions: Sequence[Submission], tie_break: str | None) -> str | None:
    """Submissions with equal normalized scores ranked apart, said so: the official scorer gives every
    submission its own rank (position + 1), ties included; ``--pcg-tie-break prompt-length`` is the option that
    breaks them by prompt length and shares a rank where that ties too. None where nothing ties so (or the
    tie-break ranked them)."""
    if tie_break:
        return None
    # ranked apart by the official scorer: within one model (2023, 2024 with several: by its rank there)
    groups: dict[tuple[str | None, Decimal], list[Submission]] = {}
    for sub in submissions:
        if sub.rank is not None and sub.normalized_score is not None:
            model = sub.model if sub.rank_in_model is not None else None
            groups.setdefault((model, Decimal(str(sub.normalized_score))), []).append(sub)

    def official(s: Submission) -> int:
        return (s.rank_in_model if s.rank_in_model is not None else s.rank) or 0

    tied = [
        (score, g)
        for (_, score), g in sorted(groups.items(), key=lambda kv: -kv[0][1])
        if len(set(map(official, g))) > 1
    ]
    if not tied:
        return None
    said = "; ".join(
        ", ".join(f"{s.key or s.name} {official(s)}" for s in sorted(g, key=official)) + f" (all {_fmt(score)})"
        for score, g in tied
    )
    return (
        f"equal scores ranked apart: {said}: the official scorer gives every submission its own rank "
        "(position + 1); --pcg-tie-break prompt-length ranks a tie by prompt length, sharing the rank where that "
        "ties too"
    )


def per_model_table(per_model: Mapping[str, ModelResults], order: Sequence[str]) -> list[str]:
    """2025 with several models: each model's prompt score, its share of the normalized total (the shares of a
    submission add up to its total) and the rank that model alone would give."""
    names = [n for n in order if any(n in d.submissions for d in per_model.values())]
    mw = max([len("model")] + [len(m) for m in per_model])
    sw = max([len("submission")] + [len(n) for n in names])
    lines = [
        "per model (normalized: the model's share of the total, the shares add up to it):",
        f"{'model':<{mw}}  {'submission':<{sw}}  {'normalized':>10}  {'prompt score':>12}  model rank",
    ]
    for model, doc in per_model.items():
        for name in names:
            v = doc.submissions.get(name, ModelSubmission())
            rank = v.rank if v.rank is not None else "-"
            lines.append(
                f"{model:<{mw}}  {name:<{sw}}  {_fmt(v.normalized_score):>10}  "
                f"{_fmt(v.prompt_score, 6):>12}  {rank!s:>10}"
            )
    return lines


def reason_counts(results: Results) -> dict[str, int]:
    """The trials that scored 0, by reason; an errored trial is an error, not a zero (``errored_count``)."""
    counts: dict[str, int] = {}
    for letters in results.letter_sets():
        for letter in letters.values():
            for trial in letter.trials:
                if trial.reason and not trial.errored:
                    counts[trial.reason] = counts.get(trial.reason, 0) + 1
    return dict(sorted(counts.items()))


def errored_count(results: Results) -> int:
    """The trials whose item errored (an infrastructure error or a bug: pytest's ERROR, no record)."""
    return sum(1 for letters in results.letter_sets() for c in letters.values() for t in c.trials if t.errored)


def summary_lines(
    results: Results | Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None = None
) -> list[str]:
    if error is not None:
        return [f"scoring the run failed: {error}", f"run folder: {run_dir}"]
    assert results is not None
    doc = coerce(results)
    subs, per_model = doc.submissions, doc.per_model or None
    lines = ranking_table(subs, per_model if doc.summed else None)
    if per_model and doc.summed:
        lines += per_model_table(per_model, [s.name for s in subs if s.name is not None])
    letters = list(doc.settings.letters or ())
    lines += [why for s in subs if (why := zero_score_reason(s, per_model, letters))]
    tied = tie_note(subs, doc.settings.tie_break)
    lines += [tied] if tied else []
    reasons = reason_counts(doc)
    if reasons:
        lines.append("trials scored 0 (reason: count): " + ", ".join(f"{k}: {v}" for k, v in reasons.items()))
    errored = errored_count(doc)
    if errored:
        lines.append(
            f"trials that errored: {errored} (ERROR: an infrastructure error or a bug, not the team's; no record, so "
            "the scorer counts each as missing; --lf reruns them)"
        )
    for problem in doc.folder_errors.values():
        lines.append(f"NOT EVALUATED: {problem}")
    if doc.settings.offline_default:
        lines.append("NOTE: generated by the offline default LLM, not the edition's official model")
    elif banner := run_banner(doc.settings):
        lines.append(f"NOTE: {banner}")
    if doc.settings.constrained_decoding:
        lines.append(f"NOTE: constrained decoding ({doc.settings.constrained_decoding})")
    if doc.per_model and not doc.summed:  # 2023, 2024 with several models: each model has its own
        lines += [f"competition score of {m}: {_fmt(p.competition_score, 6)}" for m, p in doc.per_model.items()]
    else:
        lines.append(f"competition score {_fmt(doc.competition_score, 6)}")
    lines.append(f"results: {Path(run_dir) / FILE}")
    lines.append(
        f"report:  {report}"
        if report
        else "report:  (no HTML report: pcg_plugin.problems.science_birds.report.html not available)"
    )
    return lines
