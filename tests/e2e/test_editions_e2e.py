"""Each edition end to end, checked against numbers the package did not compute.

A tiny competition per edition: the scripted LLM double fixes every response, so each trial's stability and
similarity are fixed too. The test then
- recomputes the official scores from the published formula (spec §6.2, §6.4) with exact fractions, from the
  per-trial numbers only (never through the package's records -> scoring-inputs code);
- recomputes each trial's probabilities (and, for 2025, the CLS embedding) from the run's images with
  transformers directly, so the diversity vector the plugin used is checked too;
- re-scores the stage files the run wrote with `pcg score` and requires exactly results.json's scores
  (two independent paths must agree).
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import shutil
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    TINY_CLASSIFIER,
    VARIED_BODY,
    assert_rescore_equals_results,
    load_results,
    program,
    run_args,
    write_competition,
)

from pcg_plugin.cli import main as pcg_main

LETTERS = ("I", "L")
TRIALS = 2
ARGS = ("--pcg-letters", ",".join(LETTERS), "--pcg-trials", str(TRIALS))

PROGRAM_2025 = """
from llms4pcg.competition import TrialContext, TrialLoop, chat_with_llm

class Entry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        return chat_with_llm(ctx, [{"role": "user", "content":
            f"TARGET={target_character} TRIAL={ctx.get_trial_number() + {OFFSET}}"}])[0]
"""

# A 2023 double: the same glyph programs, written with that year's function name (the 2023 scripts extract
# `ab_drop(...)`, not `drop_block(...)`: a 2023 run that looked for drop_block would score every trial no_code).
RESPONDER_2023 = """
import re
from pcg_plugin.problems.science_birds.level.glyphs import letter_program

def respond(messages, n=1):
    letter = re.search(r'TARGET="?([A-Z])', messages[-1]["content"]).group(1)
    return ["```\\n" + letter_program(letter, 1).replace("drop_block(", "ab_drop(") + "\\n```"] * n
"""


# -- the published formula, exactly, from per-trial numbers ----------------------------------------------------


def F(value: Any) -> Fraction:
    return Fraction(Decimal(str(value))) if value is not None else Fraction(0)


def cosine(u: list[float], v: list[float]) -> Fraction:
    dot = sum(a * b for a, b in zip(u, v, strict=True))
    return Fraction(1 - dot / math.sqrt(sum(a * a for a in u) * sum(b * b for b in v)))


def expected_diversity(vectors: list[list[float]]) -> Fraction:
    """Σ cosine distance over unordered pairs of the trials that have an image / (T(T+1)/2 - T)."""
    pairs = [cosine(vectors[i], vectors[j]) for i in range(len(vectors)) for j in range(i + 1, len(vectors))]
    return sum(pairs, Fraction(0)) / (Fraction(TRIALS * (TRIALS + 1), 2) - TRIALS)


def expected_scores(
    trials: dict[str, dict[str, list[tuple[Any, Any]]]],
    diversity: dict[str, dict[str, Fraction]] | None,
    *,
    disable_weights: bool = False,
) -> dict[str, Any]:
    """Spec §6.2 (§6.4 when ``diversity`` is None, 2023): weights from averages over P·T with the 1/26 floor,
    trial = weight·sta·sim, char = mean(trial)·div, prompt = mean(char), normalized = 100·prompt/Σ prompt."""
    names, P, T, floor = sorted(trials), len(trials), TRIALS, Fraction(1, 26)
    weights = {}
    for c in LETTERS:
        avg_sta = sum((F(sta) for n in names for sta, _ in trials[n][c]), Fraction(0)) / (P * T)
        avg_sim = sum((F(sim) for n in names for _, sim in trials[n][c]), Fraction(0)) / (P * T)
        weight = max(1 - avg_sta, floor) * max(1 - avg_sim, floor)
        if diversity is not None:
            avg_div = sum((diversity[n][c] for n in names), Fraction(0)) / P
            weight *= max(1 - avg_div, floor)
        weights[c] = Fraction(1) if disable_weights else weight
    char, prompt = {}, {}
    for n in names:
        for c in LETTERS:
            mean = sum((weights[c] * F(sta) * F(sim) for sta, sim in trials[n][c]), Fraction(0)) / T
            char[n, c] = mean * (diversity[n][c] if diversity is not None else 1)
        prompt[n] = sum((char[n, c] for c in LETTERS), Fraction(0)) / len(LETTERS)
    total = sum(prompt.values(), Fraction(0)) or Fraction(1)
    return {
        "weights": weights,
        "char": char,
        "prompt": prompt,
        "normalized": {n: 100 * prompt[n] / total for n in names},
    }


def close(value: str, expected: Fraction) -> bool:
    """Official numbers round every division to 20 places (the tiny classifier makes scores ~1e-7, so relative
    errors reach ~1e-12): agreement to 1e-9 relative tells a right number from a wrong one."""
    return abs(F(value) - expected) <= abs(expected) / 10**9 + Fraction(1, 10**18)


def trial_numbers(results: dict[str, Any]) -> dict[str, dict[str, list[tuple[Any, Any]]]]:
    """(sta, sim) per trial straight from results.json's trial entries (the records, not the scoring inputs)."""
    out: dict[str, dict[str, list[tuple[Any, Any]]]] = {}
    for sub in results["submissions"]:
        out[sub["name"]] = {}
        for c in LETTERS:
            entries = sub["letters"][c]["trials"]
            assert [t["trial"] for t in entries] == list(range(1, TRIALS + 1)), entries
            for t in entries:
                assert t["reason"] is None, t  # every trial of these competitions makes a level and an image
                assert t["sta"] == (t["total_blocks"] - t["moving_blocks"]) / t["total_blocks"]
            out[sub["name"]][c] = [(t["sta"], t["sim"]) for t in entries]
    return out


def check_scores(results: dict[str, Any], expected: dict[str, Any]) -> None:
    for c in LETTERS:
        assert close(results["weights"][c]["weight"], expected["weights"][c]), c
    for sub in results["submissions"]:
        name = sub["name"]
        assert close(sub["prompt_score"], expected["prompt"][name]), name
        assert close(sub["normalized_score"], expected["normalized"][name]), name
        for c in LETTERS:
            assert close(sub["letters"][c]["char_score"], expected["char"][name, c]), (name, c)


def classify_images(run: Path, results: dict[str, Any]) -> dict[tuple[str, str, int], tuple[list, list]]:
    """(26 probabilities, CLS embedding) per trial, from the run's PNGs through transformers directly: the
    official similarity script's softmax of the logits and hidden_states[-1][:, 0, :] (spec §5, §6.1)."""
    import torch
    from PIL import Image
    from transformers import AutoImageProcessor, AutoModelForImageClassification

    folder = run.parent / TINY_CLASSIFIER
    model = AutoModelForImageClassification.from_pretrained(folder).eval()
    processor = AutoImageProcessor.from_pretrained(folder)
    out = {}
    for sub in results["submissions"]:
        for c in LETTERS:
            for t in sub["letters"][c]["trials"]:
                image = Image.open(run / t["image"]).convert("RGB")
                with torch.no_grad():
                    res = model(**processor(images=image, return_tensors="pt"), output_hidden_states=True)
                probs = torch.softmax(res.logits, dim=-1)[0].tolist()
                out[sub["name"], c, t["trial"]] = (probs, res.hidden_states[-1][0, 0, :].tolist())
    return out


# -- pcg score over the stage files the run wrote --------------------------------------------------------------


def pcg_score(run: Path, tmp: Path, edition: str, *extra: str, prompts: dict[str, str] | None = None) -> Path:
    """Copy the run's per-team stage files, score them with `pcg score`, return the result/ folder."""
    src = tmp / f"rescore-{edition}"
    for team in (p for p in run.iterdir() if (p / "stability").is_dir()):
        for stage in ("stability", "similarity", "diversity"):
            if (team / stage).is_dir():
                shutil.copytree(team / stage, src / team.name / stage)
    for name, text in (prompts or {}).items():
        (src / name / "prompt.txt").write_text(text)
    with contextlib.redirect_stdout(io.StringIO()):
        rc = pcg_main(
            ["score", str(src), "--edition", edition, "--letters", "".join(LETTERS), "--trials", str(TRIALS), *extra]
        )
    assert rc == 0
    return src / "result"


def read_csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def check_stage_files_agree(results: dict[str, Any], result_dir: Path, trial_column: str) -> None:
    """`pcg score` over the stage files = results.json, digit for digit (scores, ranks, chars, trials)."""
    by_name = {s["name"]: s for s in results["submissions"]}
    ranks = read_csv(result_dir / "prompt_scores_ranks.csv")
    assert [r["team"] for r in ranks] == [s["name"] for s in results["submissions"]]
    for row in ranks:
        sub = by_name[row["team"]]
        assert (row["promptScore"], row["normalizedPromptScore"], int(row["rank"])) == (
            sub["prompt_score"],
            sub["normalized_score"],
            sub["rank"],
        )
    for row in read_csv(result_dir / "character_scores.csv"):
        assert row["characterScore"] == by_name[row["teamName"]]["letters"][row["character"]]["char_score"]
    for row in read_csv(result_dir / "trial_scores.csv"):
        trials = by_name[row["teamName"]]["letters"][row["character"]]["trials"]
        assert row[trial_column] == trials[int(row["trial"]) - 1]["trial_score"]
    assert read_csv(result_dir / "trial_scores.csv")[0].keys() >= {trial_column}


# -- the editions ------------------------------------------------------------------------------------------------


def test_2024_scores_equal_the_formula_and_the_stage_files(competition, tmp_path):
    write_competition(
        competition.path,
        {
            "team_prog": {"entry.py": program(VARIED_BODY)},
            "team_b": {
                "entry.py": program(
                    VARIED_BODY.replace("TRIAL={ctx.get_trial_number()}", "TRIAL={ctx.get_trial_number() + 1}")
                )
            },
        },
    )
    result = competition.runpytest_inprocess(*run_args("run", *ARGS, "--pcg-edition", "2024"))
    assert result.ret == 0, result.stdout.str()
    results = load_results(competition.path, "run")
    run = competition.path / "run"
    assert results["settings"]["diversity_vector"] == "probs"

    images = classify_images(run, results)
    diversity = {}
    for sub in results["submissions"]:
        diversity[sub["name"]] = {}
        for c in LETTERS:
            entries = sub["letters"][c]["trials"]
            for t in entries:  # the similarity is the target's softmax probability of this trial's image
                probs = images[sub["name"], c, t["trial"]][0]
                assert t["sim"] == pytest.approx(probs[ord(c) - 65], rel=1e-5)
                assert t["probs"] == pytest.approx(probs, rel=1e-5)
            diversity[sub["name"]][c] = expected_diversity([t["probs"] for t in entries])
    assert any(d > 0 for per in diversity.values() for d in per.values())
    expected = expected_scores(trial_numbers(results), diversity)
    check_scores(results, expected)
    for sub in results["submissions"]:
        for c in LETTERS:
            assert close(sub["letters"][c]["diversity"], diversity[sub["name"]][c])

    check_stage_files_agree(results, pcg_score(run, tmp_path, "2024"), "trial_score")
    assert_rescore_equals_results(run, results)  # `pcg score <run folder>` as it is: thumbs/ is not a program


def test_2025_diversity_is_the_cls_embedding_and_disable_weights_applies(competition, tmp_path):
    write_competition(
        competition.path,
        {
            "team_prog": {"entry.py": PROGRAM_2025.replace("{OFFSET}", "0")},
            "team_b": {"entry.py": PROGRAM_2025.replace("{OFFSET}", "1")},
        },
    )
    shutil.rmtree(competition.path / "submissions" / "team_prompt")
    result = competition.runpytest_inprocess(
        *run_args("run", *ARGS, "--pcg-edition", "2025", "--pcg-disable-weights", "true")
    )
    assert result.ret == 0, result.stdout.str()
    results = load_results(competition.path, "run")
    run = competition.path / "run"
    assert {s["format"] for s in results["submissions"]} == {"program-2025"}

    images = classify_images(run, results)
    diversity = {}
    for sub in results["submissions"]:
        diversity[sub["name"]] = {}
        for c in LETTERS:
            embeddings = [images[sub["name"], c, t["trial"]][1] for t in sub["letters"][c]["trials"]]
            diversity[sub["name"]][c] = expected_diversity(embeddings)
            assert close(sub["letters"][c]["diversity"], diversity[sub["name"]][c]), (sub["name"], c)
    expected = expected_scores(trial_numbers(results), diversity, disable_weights=True)
    assert all(results["weights"][c]["weight"] == "1" for c in LETTERS)
    check_scores(results, expected)

    rescored = pcg_score(run, tmp_path, "2025", "--disable-weights")
    check_stage_files_agree(results, rescored, "trial_score")
    # the option has an effect on pcg score too: without it the same stage files score differently
    weighted = read_csv(pcg_score(run, tmp_path / "w", "2025") / "prompt_scores_ranks.csv")
    assert {r["team"]: r["promptScore"] for r in weighted} != {
        s["name"]: s["prompt_score"] for s in results["submissions"]
    }
    assert_rescore_equals_results(run, results)  # the run folder: its settings (weights off) are the defaults


def test_2023_ab_drop_no_diversity_columns_and_tie_break(competition, tmp_path):
    """Two 2023 prompts that get identical answers tie; --pcg-tie-break prompt-length ranks the shorter first
    although its folder sorts last (the official order would put it second). The option is given in its other
    spelling (``prompt_length``): it reaches the scorer as the scorer's own."""
    long_prompt = "Please draw this for me, with care and patience: TARGET=<OBJECT>"
    short_prompt = "TARGET=<OBJECT>"
    shutil.rmtree(competition.path / "submissions")
    write_competition(
        competition.path, {"aa_long": {"prompt.txt": long_prompt}, "zz_short": {"prompt.txt": short_prompt}}
    )
    (competition.path / "scripted_llm.py").write_text(RESPONDER_2023)
    result = competition.runpytest_inprocess(
        *run_args("run", *ARGS, "--pcg-edition", "2023", "--pcg-tie-break", "prompt_length")
    )
    assert result.ret == 0, result.stdout.str()
    results = load_results(competition.path, "run")
    assert results["settings"]["tie_break"] == "prompt-length"
    run = competition.path / "run"
    assert [(s["name"], s["rank"]) for s in results["submissions"]] == [("zz_short", 1), ("aa_long", 2)]
    assert results["submissions"][0]["prompt_score"] == results["submissions"][1]["prompt_score"]
    assert Decimal(results["submissions"][0]["prompt_score"]) > 0

    expected = expected_scores(trial_numbers(results), None)
    check_scores(results, expected)
    header = (run / "result" / "trial_scores.csv").read_text().splitlines()[0]
    assert header == '"teamName","character","trial","trial_Score","stabilityScore","similarityScore"'

    prompts = {"aa_long": long_prompt, "zz_short": short_prompt}
    tie_broken = pcg_score(run, tmp_path, "2023", "--tie-break", "prompt-length", prompts=prompts)
    check_stage_files_agree(results, tie_broken, "trial_Score")
    plain = read_csv(pcg_score(run, tmp_path / "plain", "2023", prompts=prompts) / "prompt_scores_ranks.csv")
    assert [r["team"] for r in plain] == ["aa_long", "zz_short"]  # the official order: folder order
    assert_rescore_equals_results(run, results)  # the run folder: its tie-break and prompt lengths are the defaults
