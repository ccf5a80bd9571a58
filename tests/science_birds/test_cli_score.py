"""`pcg score` on stage files rebuilt from the official 2023 trial CSV reproduces that year's tables exactly."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from pcg_plugin.cli import main
from pcg_plugin.problems.science_birds.report.official_layout import write_similarity_json, write_stability_json

OFFICIAL = "official-2023-results"


def _probs(letter: str, sim: float) -> list[float]:
    probs = [0.0] * 26
    probs[ord(letter) - 65] = sim
    return probs


def rebuild_2023(src: Path, data: Path) -> list[dict[str, str]]:
    """One folder per program with stability/similarity JSONs whose entries pair up, by array position, into
    the CSV's (sta, sim) for trials 1..10 (the 2023 scorer paired by position and had no diversity)."""
    rows = list(csv.DictReader((data / "trial_scores.csv").open(encoding="utf-8")))
    grouped: dict[tuple[str, str], list[dict[str, str]]] = {}
    for r in rows:
        grouped.setdefault((r["teamName"], r["character"]), []).append(r)
    for (team, letter), trials in grouped.items():
        trials.sort(key=lambda r: int(r["trial"]))
        write_stability_json(
            src / team / "stability" / f"{letter}.json",
            [{"tag": f"{team}_{letter}_{r['trial']}.xml", "score": float(r["stabilityScore"])} for r in trials],
        )
        write_similarity_json(
            src / team / "similarity" / f"{letter}.json",
            letter,
            [
                {"id": f"{team}_{letter}_{r['trial']}.png", "probs": _probs(letter, float(r["similarityScore"]))}
                for r in trials
            ],
        )
    return rows


def _read_csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


@pytest.fixture(scope="module")
def scored_2023(tmp_path_factory: pytest.TempPathFactory, reference: Path) -> tuple[Path, Path, str]:
    src = tmp_path_factory.mktemp("official2023")
    data = reference / OFFICIAL
    rebuild_2023(src, data)
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["score", str(src), "--edition", "2023"])
    assert rc == 0
    return src, data, out.getvalue()


def test_2023_constants_exact(scored_2023: tuple[Path, Path, str]) -> None:
    src, data, _ = scored_2023
    ours = json.loads((src / "result" / "constants.json").read_text())
    theirs = json.loads((data / "constants.json").read_text())
    assert ours == theirs  # competitionScore string-equal; weights are the JSON numbers of that year


def test_2023_trial_scores_exact(scored_2023: tuple[Path, Path, str]) -> None:
    src, data, _ = scored_2023
    text = (src / "result" / "trial_scores.csv").read_bytes()
    assert text == (data / "trial_scores.csv").read_bytes()  # every field, quoting and column order


def test_2023_character_scores_exact(scored_2023: tuple[Path, Path, str]) -> None:
    src, data, _ = scored_2023
    assert _read_csv(src / "result" / "character_scores.csv") == _read_csv(data / "character_scores.csv")
    assert (src / "result" / "character_scores.csv").read_bytes() == (data / "character_scores.csv").read_bytes()


def test_2023_prompt_scores_and_ranking(scored_2023: tuple[Path, Path, str]) -> None:
    """result.json holds JSON numbers; the baseline v1_sample is published as rank -1 and the teams renumbered,
    the three disqualified teams appended by hand (rank -2)."""
    src, data, stdout = scored_2023
    published = json.loads((data / "result.json").read_text())
    ours = _read_csv(src / "result" / "prompt_scores_ranks.csv")
    by_name = {r["team"]: r for r in ours}
    assert len(ours) == 16
    for entry in published:
        if entry["rank"] == -2:
            assert entry["teamName"] not in by_name
            continue
        row = by_name[entry["teamName"]]
        assert float(row["promptScore"]) == entry["promptScore"]
        assert float(row["normalizedPromptScore"]) == entry["normalizedPromptScore"]
    order = [r["team"] for r in ours if r["team"] != "v1_sample"]
    published_order = [e["teamName"] for e in sorted(published, key=lambda e: e["rank"]) if e["rank"] > 0]
    assert order == published_order
    assert [int(r["rank"]) for r in ours] == list(range(1, 17))
    total = sum(float(r["normalizedPromptScore"]) for r in ours)
    assert total == pytest.approx(100)
    assert "The Organizer" in stdout.splitlines()[1]


def test_unequal_file_counts_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prog = tmp_path / "team"
    write_stability_json(prog / "stability" / "A.json", [{"tag": "team_A_1.xml", "score": 1.0}])
    write_stability_json(prog / "stability" / "B.json", [{"tag": "team_B_1.xml", "score": 1.0}])
    write_similarity_json(prog / "similarity" / "A.json", "A", [{"id": "team_A_1.png", "probs": _probs("A", 1)}])
    rc = main(["score", str(tmp_path), "--edition", "2023", "--letters", "AB"])
    err = capsys.readouterr().err
    assert rc == 1
    assert "'team'" in err and "similarity/: 1 files, missing B" in err and "nothing written" in err
    assert not (tmp_path / "result").exists()


def test_not_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_2024_layout_writes_official_columns(tmp_path: Path) -> None:
    from pcg_plugin.problems.science_birds.report.official_layout import write_diversity_json

    for team, sta in (("a", 1.0), ("b", 0.5)):
        prog = tmp_path / team
        write_stability_json(
            prog / "stability" / "A.json", [{"tag": f"{team}_A_{i}.xml", "score": sta} for i in (2, 1)]
        )
        write_similarity_json(
            prog / "similarity" / "A.json",
            "A",
            [{"id": f"{team}_A_{i}.png", "probs": _probs("A", 0.5)} for i in (1, 2)],
        )
        write_diversity_json(prog / "diversity" / "A.json", [], [], 0.25)
    (tmp_path / "logs").mkdir()
    assert main(["score", str(tmp_path), "--letters", "A", "--trials", "2"]) == 0
    res = tmp_path / "result"
    head = (res / "trial_scores.csv").read_text().splitlines()[0]
    assert head == '"teamName","character","trial","trial_score","stabilityScore","similarityScore","diversityScore"'
    ranks = (res / "prompt_scores_ranks.csv").read_text().splitlines()
    assert ranks[0] == '"team","normalizedPromptScore","promptScore","rank"'
    assert ranks[1].startswith('"a",') and ranks[1].endswith(",1")
    const = json.loads((res / "constants.json").read_text())
    # avg sta = (2·1 + 2·0.5)/(2·2) = 0.75 -> 0.25; sim 0.5 -> 0.5; div 0.25 -> 0.75
    assert const["weights"][0] == {
        "character": "A",
        "weight": "0.09375",
        "weightStability": "0.25",
        "weightSimilarity": "0.5",
        "weightDiversity": "0.75",
    }


def test_a_program_folder_named_in_bytes_that_are_not_utf8_is_scored_and_written_escaped(
    tmp_path: Path, capsys
) -> None:
    import os

    for team, sta in (("team_a", 0.5), (os.fsdecode(b"t\xe9am"), 0.9)):
        write_stability_json(tmp_path / team / "stability" / "A.json", [{"tag": "x_A_1.xml", "score": sta}])
        write_similarity_json(
            tmp_path / team / "similarity" / "A.json", "A", [{"id": "x_A_1.png", "probs": _probs("A", 0.9)}]
        )
        (tmp_path / team / "diversity").mkdir()
        (tmp_path / team / "diversity" / "A.json").write_text('{"diversityRate": 1}')
    (tmp_path / os.fsdecode(b"t\xe9am") / "prompt.txt").write_text("a short prompt")
    assert main(["score", str(tmp_path), "--letters", "A", "--trials", "1", "--tie-break", "prompt-length"]) == 0
    ranks = _read_csv(tmp_path / "result" / "prompt_scores_ranks.csv")
    assert [(r["team"], r["rank"]) for r in ranks] == [("t\\xe9am", "1"), ("team_a", "2")]
    assert "  1  t\\xe9am" in capsys.readouterr().out
