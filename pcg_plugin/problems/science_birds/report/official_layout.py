"""Readers and writers of the official folder layout: per-program stage JSONs and the scorer's result/ files."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pcg_plugin._util import jsontext
from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.names import shown
from pcg_plugin._util.paths import stem
from pcg_plugin.errors import PcgError
from pcg_plugin.problems.science_birds.editions import STAGES
from pcg_plugin.problems.science_birds.editions import edition as edition_record
from pcg_plugin.problems.science_birds.letters import LETTERS, letter_at, letter_index
from pcg_plugin.problems.science_birds.scoring.official import ZERO, LetterInput, ScoreResult, fmt, to_decimal

SKIPPED_DIRS = ("logs", "result")
CSV_EOL = "\r\n"  # the official result CSVs' line ending (see _csv)
_PARSE_INT = re.compile(r"\s*([+-]?\d+)")


def model_folder(model: str) -> str:
    """The folder of one model's official layout in a several-model run: the name with every character other
    than letters, digits, ``.``, ``_`` and ``-`` as ``_`` (``qwen2.5:32b`` -> ``qwen2.5_32b``; ``:`` and ``/`` are
    not folder names everywhere)."""
    folder = re.sub(r"[^A-Za-z0-9._-]", "_", model)
    return "_" + folder if folder in ("", ".", "..", "result", "logs") or folder.startswith(".") else folder


def model_folders(models: Sequence[str]) -> dict[str, str]:
    """model -> its folder; two models that would share one are a ValueError naming both."""
    out: dict[str, str] = {}
    for model in models:
        folder = model_folder(model)
        clash = next((m for m, f in out.items() if f == folder), None)
        if clash is not None:
            raise ValueError(
                f"--pcg-model: {clash!r} and {model!r} would share the run folder {folder!r}; "
                "rename one (e.g. serve it under another name)"
            )
        out[model] = folder
    return out


def trial_index(file_name: str) -> int | None:
    """``getTrialIndexFromFileName``: parseInt of the last ``_`` part cut at the first ``.`` (None = NaN).

    Works on a path too (a stability ``tag`` is the XML path): the last ``_`` part has no separator in it.
    """
    last = file_name.split("_")[-1].split(".")[0]
    m = _PARSE_INT.match(last)
    return int(m.group(1)) if m else None


def program_dirs(src: Path) -> list[Path]:
    """Every directory under SRC except dot-folders, ``logs`` and ``result`` (baselines included).

    Ordered as the official runs listed them (Windows, NTFS: case-insensitive), which fixes the row order of the
    result CSVs and the order of tied programs; the same on every OS here."""
    dirs = [p for p in Path(src).iterdir() if p.is_dir() and not p.name.startswith(".") and p.name not in SKIPPED_DIRS]
    return sorted(dirs, key=lambda p: (p.name.upper(), p.name))


def stage_files(program: Path, stage: str) -> list[str]:
    """The files the official count check sees in ``<program>/<stage>/`` (missing folder = none)."""
    folder = program / stage
    if not folder.is_dir():
        return []
    return sorted(f.name for f in folder.iterdir() if f.is_file())


def check_file_counts(program: Path, stages: Sequence[str] = STAGES) -> None:
    """The official scorer silently returns (writing nothing) when a program's stage folders hold different
    numbers of files; we raise instead, naming the program and what each folder lacks."""
    files = {s: stage_files(program, s) for s in stages}
    if len({len(v) for v in files.values()}) <= 1:
        return
    stems = {s: {Path(f).stem for f in v} for s, v in files.items()}
    everything = set().union(*stems.values())
    lines = [
        f"  {s}/: {len(files[s])} files, missing {', '.join(sorted(everything - stems[s])) or '-'}" for s in stages
    ]
    raise PcgError(
        f"program '{shown(program.name)}': the stage folders hold different numbers of files; the official scorer "
        'aborts without writing any result here ("Number of stability files and similarity files are not '
        'equal.").\n' + "\n".join(lines)
    )


def _entries(data: Any, key: str, id_key: str, value_key: str, pairing_by_position: bool) -> tuple:
    out = []
    items = data.get(key, []) if isinstance(data, dict) else []
    for pos, item in enumerate(items or []):
        if not isinstance(item, dict):
            continue
        idx = pos + 1 if pairing_by_position else trial_index(str(item.get(id_key, "")))
        value = item.get(value_key)
        out.append((idx if idx is not None else 0, to_decimal(value) if value is not None else to_decimal(0)))
    return tuple(out)


def read_letter(program: Path, letter: str, *, edition: str = "2024") -> LetterInput:
    """One (program, letter) exactly as the official scorer: read all files first (any read failure -> all 0),
    then parse stability, similarity, diversity in order (a parse failure keeps what was parsed before)."""
    stages = edition_record(edition).stages
    texts = {}
    for stage in stages:
        try:
            texts[stage] = (program / stage / f"{letter}.json").read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            return LetterInput.failed()
    by_position = edition_record(edition).pairing == "position"
    parsed: dict[str, Any] = {}
    try:
        parsed["stability"] = _entries(json.loads(texts["stability"]), "raws", "tag", "score", by_position)
        parsed["similarity"] = _entries(json.loads(texts["similarity"]), "trials", "id", "similarity", by_position)
        if "diversity" in texts:
            data = json.loads(texts["diversity"])
            rate = data.get("diversityRate") if isinstance(data, dict) else None
            parsed["diversity"] = to_decimal(rate) if rate is not None else to_decimal(0)
    except (ValueError, TypeError):
        pass
    return LetterInput(**parsed)


def read_program_dir(
    path: Path, letters: Sequence[str] = LETTERS, *, edition: str = "2024", check_counts: bool = True
) -> dict[str, LetterInput]:
    """``{letter: LetterInput}`` for one program folder (stability ``raws[].tag/score``, similarity
    ``trials[].id/similarity``, diversity ``diversityRate``; trial index from file names, 2023 by position)."""
    path = Path(path)
    if check_counts:
        check_file_counts(path, edition_record(edition).stages)
    return {c: read_letter(path, c, edition=edition) for c in letters}


def read_layout(
    src: Path, letters: Sequence[str] = LETTERS, *, edition: str = "2024", names: Sequence[str] | None = None
) -> dict[str, dict[str, LetterInput]]:
    """Every program under SRC (or the folders ``names`` under it: an absent one has no files and scores 0), by
    its folder's name as text (a name that is not UTF-8 ``shown`` escaped: the result CSVs and JSON are UTF-8).
    All count mismatches are reported together, before anything is scored."""
    found = program_dirs(Path(src))
    if names is None:
        progs = found
    else:  # results.json names programs as text: the folder on disk may hold bytes that are not UTF-8
        by_text = {shown(p.name): p for p in found}
        progs = [by_text.get(n, Path(src) / n) for n in names]
    problems = []
    for p in progs:
        try:
            check_file_counts(p, edition_record(edition).stages)
        except PcgError as exc:
            problems.append(str(exc))
    if problems:
        raise PcgError("\n".join(problems))
    return {shown(p.name): read_program_dir(p, letters, edition=edition, check_counts=False) for p in progs}


def _write_text(path: Path, text: str) -> Path:
    return atomic_write(path, text, newline="")  # byte for byte: no newline translation on Windows


def _write_json(path: Path, data: Any) -> Path:
    return _write_text(path, jsontext.dumps(data, indent=2, allow_nan=False) + "\n")


def write_stability_json(path: Path, raws: Sequence[Mapping[str, Any]]) -> Path:
    """Unity's StabilityData: ``{dataCount, rate, raws:[{tag, score, startingObjects, movingObjects}]}``."""
    raws = [
        {
            "tag": str(r["tag"]),
            "score": float(r["score"]),
            "startingObjects": int(r.get("startingObjects", 0)),
            "movingObjects": int(r.get("movingObjects", 0)),
        }
        for r in raws
    ]
    rate = sum(r["score"] for r in raws) / len(raws) if raws else 0.0
    return _write_json(path, {"dataCount": len(raws), "rate": rate, "raws": raws})


def write_similarity_json(path: Path, letter: str, trials: Sequence[Mapping[str, Any]]) -> Path:
    """``{count, similarityRate, trials:[{id, label, similarity}], similarities:[{id, raws:[{id, label,
    softmax_prob}×26], cls_embedding?}]}``; each trial is ``{"id": file name, "probs": 26 floats,
    "embedding": optional}`` and similarity = probs[letter_index(letter)]."""
    target = letter_index(letter)
    rows, sims = [], []
    for t in trials:
        probs = [float(p) for p in t["probs"]]
        if len(probs) != 26:
            raise ValueError(f"{t['id']}: {len(probs)} class probabilities, 26 expected")
        rows.append({"id": t["id"], "label": letter, "similarity": probs[target]})
        entry: dict[str, Any] = {
            "id": t["id"],
            "raws": [{"id": t["id"], "label": letter_at(i), "softmax_prob": p} for i, p in enumerate(probs)],
        }
        if t.get("embedding") is not None:
            entry["cls_embedding"] = [float(v) for v in t["embedding"]]
        sims.append(entry)
    rate = sum(r["similarity"] for r in rows) / len(rows) if rows else 0.0
    return _write_json(path, {"count": len(rows), "similarityRate": rate, "trials": rows, "similarities": sims})


def write_diversity_json(
    path: Path, trials: Sequence[tuple[str, Sequence[float]]], pairs: Iterable[tuple[str, str, float]], rate: float
) -> Path:
    """``{diversityRate, trials:[{trial: stem, vector}], diversities:[{pair:{trial1, trial2}, distance}], count}``."""
    return _write_json(
        path,
        {
            "diversityRate": float(rate),
            "trials": [{"trial": stem, "vector": [float(v) for v in vec]} for stem, vec in trials],
            "diversities": [{"pair": {"trial1": a, "trial2": b}, "distance": float(d)} for a, b, d in pairs],
            "count": len(trials),
        },
    )


def write_stage_files(program_dir: Path, name: str, letter: str, records: Sequence[Any], trials: int) -> None:
    """The three stage JSONs of one (program, letter) from the plugin's TrialRecords (sta present iff a level,
    sim/probs iff an image; the 2025 diversity vector is the CLS embedding when records carry one)."""
    from pcg_plugin.problems.science_birds.scoring.diversity import diversity, pair_distances

    program_dir = Path(program_dir)
    recs = sorted(records, key=lambda r: r.trial)
    write_stability_json(
        program_dir / "stability" / f"{letter}.json",
        [
            {
                "tag": f"{stem(name, letter, r.trial)}.xml",
                "score": r.sta,
                "startingObjects": r.total_blocks or 0,
                "movingObjects": r.moving_blocks or 0,
            }
            for r in recs
            if r.sta is not None
        ],
    )
    imaged = [r for r in recs if r.sim is not None and r.probs is not None]
    write_similarity_json(
        program_dir / "similarity" / f"{letter}.json",
        letter,
        [{"id": f"{r.stem}.png", "probs": r.probs, "embedding": r.embedding} for r in imaged],
    )
    use_embedding = bool(imaged) and all(r.embedding is not None for r in imaged)
    vecs = [(r.stem, r.embedding if use_embedding else r.probs) for r in imaged]
    pairs = pair_distances([v for _, v in vecs])
    write_diversity_json(
        program_dir / "diversity" / f"{letter}.json",
        vecs,
        [(vecs[i][0], vecs[j][0], d) for i, j, d in pairs],
        diversity([v for _, v in vecs], trials),
    )


def _csv(rows: Iterable[Sequence[Any]]) -> str:
    """@json2csv/node output: every field quoted except the numeric ``trial`` and ``rank``; lines end with
    json2csv's default ``os.EOL``, which on the Windows machine of the official runs was "\\r\\n" (the published
    CSVs have it); no final eol."""

    def cell(v: Any) -> str:
        if isinstance(v, int) and not isinstance(v, bool):
            return str(v)
        return '"' + str(v).replace('"', '""') + '"'

    return CSV_EOL.join(",".join(cell(v) for v in row) for row in rows)


def _h(*names: str) -> list[str]:
    return list(names)


def result_tables(result: ScoreResult) -> dict[str, Any]:
    """The four official result files as (name -> JSON object or CSV text). 2023 uses that year's columns
    (``trial_Score``, no diversity) and JSON numbers in constants.json; later editions the v2.0.0 ones."""
    y23 = not edition_record(result.edition).with_diversity  # 2023's columns: no diversity
    if y23:
        weights = [
            {
                "character": c,
                "weight": float(w.weight),
                "stabilityWeight": float(w.w_sta),
                "similarityWeight": float(w.w_sim),
            }
            for c, w in result.weights.items()
        ]
    else:
        weights = [
            {
                "character": c,
                "weight": fmt(w.weight),
                "weightStability": fmt(w.w_sta),
                "weightSimilarity": fmt(w.w_sim),
                "weightDiversity": fmt(w.w_div if w.w_div is not None else ZERO),
            }
            for c, w in result.weights.items()
        ]
    constants = {"competitionScore": fmt(result.competition_score), "weights": weights}
    trial_rows: list[list[Any]] = [
        _h(
            "teamName",
            "character",
            "trial",
            "trial_Score" if y23 else "trial_score",
            "stabilityScore",
            "similarityScore",
            *(() if y23 else ("diversityScore",)),
        )
    ]
    char_rows: list[list[Any]] = [
        _h(
            "teamName",
            "character",
            "characterScore",
            "nonWeightedAverageStabilityScore",
            "nonWeightedAverageSimilarityScore",
            *(() if y23 else ("diversityScore",)),
        )
    ]
    for name, prog in result.programs.items():
        for c, ch in prog.letters.items():
            extra = [] if y23 else [fmt(ch.diversity if ch.diversity is not None else to_decimal(0))]
            for t in ch.trials:
                trial_rows.append([name, c, t.trial, fmt(t.score), fmt(t.sta), fmt(t.sim), *extra])
            char_rows.append([name, c, fmt(ch.char_score), fmt(ch.sta_mean), fmt(ch.sim_mean), *extra])
    rank_rows: list[list[Any]] = [_h("team", "normalizedPromptScore", "promptScore", "rank")]
    for name, r in result.ranking:
        prog = result.programs[name]
        rank_rows.append([name, fmt(prog.normalized_score), fmt(prog.prompt_score), r])
    return {
        "constants.json": constants,
        "trial_scores.csv": _csv(trial_rows),
        "character_scores.csv": _csv(char_rows),
        "prompt_scores_ranks.csv": _csv(rank_rows),
    }


def write_results(result_dir: Path, result: ScoreResult) -> list[Path]:
    """``result/constants.json``, ``trial_scores.csv``, ``character_scores.csv``, ``prompt_scores_ranks.csv``."""
    out = []
    for name, content in result_tables(result).items():
        if isinstance(content, str):
            out.append(_write_text(Path(result_dir) / name, content))
        else:
            out.append(_write_text(Path(result_dir) / name, json.dumps(content)))
    return out
