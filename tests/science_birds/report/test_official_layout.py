"""Official folder layout: file-name trial indexes, read/parse failure consequences, writers and round trips."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.errors import PcgError
from pcg_plugin.problems.science_birds.records import TrialRecord
from pcg_plugin.problems.science_birds.report import official_layout as ol
from pcg_plugin.problems.science_birds.scoring.official import LetterInput, score

D = Decimal


@pytest.mark.parametrize(
    ("name", "index"),
    [
        ("team_A_3.png", 3),
        ("my_team_name_A_10.xml", 10),
        ("competition\\my_team\\levels\\A\\my_team_A_7.xml", 7),
        ("team_A_3.backup.png", 3),
        ("team_A_03.png", 3),
        ("team_A_ 4x.png", 4),  # parseInt skips leading blanks and stops at the first non-digit
        ("team_A_x.png", None),
        ("noindex", None),
    ],
)
def test_trial_index_like_parseint(name: str, index: int | None) -> None:
    assert ol.trial_index(name) == index


@settings(max_examples=30)
@given(st.text(min_size=1, max_size=12).filter(lambda s: "." not in s), st.integers(0, 10**6))
def test_trial_index_of_any_team_name(team: str, n: int) -> None:
    assert ol.trial_index(f"{team}_B_{n}.png") == n


def _write(prog: Path, letter: str, sta: list[tuple[int, float]], sim: list[tuple[int, float]], rate: float) -> None:
    ol.write_stability_json(
        prog / "stability" / f"{letter}.json", [{"tag": f"{prog.name}_{letter}_{i}.xml", "score": s} for i, s in sta]
    )
    probs = [[0.0] * 26 for _ in sim]
    for p, (_, v) in zip(probs, sim, strict=True):
        p[ord(letter) - 65] = v
    ol.write_similarity_json(
        prog / "similarity" / f"{letter}.json",
        letter,
        [{"id": f"{prog.name}_{letter}_{i}.png", "probs": p} for (i, _), p in zip(sim, probs, strict=True)],
    )
    ol.write_diversity_json(prog / "diversity" / f"{letter}.json", [], [], rate)


def test_read_exactly_as_the_scorer(tmp_path: Path) -> None:
    prog = tmp_path / "team_x"
    _write(prog, "A", [(2, 0.5), (1, 1.0)], [(1, 0.25)], 0.1)
    li = ol.read_program_dir(prog, ["A"])["A"]
    assert li == LetterInput(((2, D("0.5")), (1, D("1.0"))), ((1, D("0.25")),), D("0.1"))
    assert ol.read_program_dir(prog, ["A"], edition="2023")["A"].stability == ((1, D("0.5")), (2, D("1.0")))


def test_read_failure_zeroes_the_letter_and_parse_failure_keeps_earlier(tmp_path: Path) -> None:
    prog = tmp_path / "t"
    _write(prog, "A", [(1, 1.0)], [(1, 0.5)], 0.3)
    _write(prog, "B", [(1, 1.0)], [(1, 0.5)], 0.3)
    (prog / "diversity" / "A.json").unlink()
    (prog / "similarity" / "B.json").write_text("{not json")
    got = ol.read_program_dir(prog, ["A", "B"], check_counts=False)
    assert got["A"] == LetterInput.failed()  # one read failed: sta = sim = div = 0
    assert got["B"] == LetterInput(stability=((1, D("1.0")),))  # parsed before the bad one: kept


def test_unequal_counts_name_what_is_missing(tmp_path: Path) -> None:
    prog = tmp_path / "t"
    _write(prog, "A", [(1, 1.0)], [(1, 0.5)], 0.3)
    _write(prog, "B", [(1, 1.0)], [(1, 0.5)], 0.3)
    (prog / "diversity" / "B.json").unlink()
    with pytest.raises(PcgError, match=r"diversity/: 1 files, missing B"):
        ol.read_layout(tmp_path, ["A", "B"])


def test_program_dirs_skip_logs_result_dot_and_sort_like_windows(tmp_path: Path) -> None:
    for name in ("zeta", "Alpha", "beta", "logs", "result", ".git"):
        (tmp_path / name).mkdir()
    (tmp_path / "file.txt").write_text("x")
    assert [p.name for p in ol.program_dirs(tmp_path)] == ["Alpha", "beta", "zeta"]


def _record(team: str, letter: str, trial: int, sta: float | None, sim: float | None) -> TrialRecord:
    probs = None
    if sim is not None:
        rest = (1 - sim) / 25
        probs = tuple(sim if i == ord(letter) - 65 else rest for i in range(26))
    return TrialRecord(
        nodeid=f"{team}-{letter}-{trial}",
        submission=team,
        letter=letter,
        trial=trial,
        sta=sta,
        sim=sim,
        probs=probs,
        total_blocks=4,
        moving_blocks=0,
    )


def test_stage_files_from_records_round_trip_into_the_scorer(tmp_path: Path) -> None:
    """The plugin's records -> stage files -> reader -> scorer gives what scoring the records directly gives."""
    from pcg_plugin.problems.science_birds.scoring.diversity import diversity

    recs = {
        "a": [_record("a", "A", 1, 1.0, 0.9), _record("a", "A", 2, 0.5, 0.4), _record("a", "A", 3, None, None)],
        "b": [_record("b", "A", 2, 1.0, 0.7), _record("b", "A", 1, 0.0, None)],
    }
    for team, rs in recs.items():
        ol.write_stage_files(tmp_path / team, team, "A", rs, 3)
    read = ol.read_layout(tmp_path, ["A"])
    direct = {
        team: {
            "A": LetterInput(
                stability=tuple(
                    (r.trial, D(repr(r.sta))) for r in sorted(rs, key=lambda r: r.trial) if r.sta is not None
                ),
                similarity=tuple(
                    (r.trial, D(repr(r.sim))) for r in sorted(rs, key=lambda r: r.trial) if r.sim is not None
                ),
                diversity=D(repr(diversity([r.probs for r in sorted(rs, key=lambda r: r.trial) if r.probs], 3))),
            )
        }
        for team, rs in recs.items()
    }
    assert read == direct
    assert score(read, letters=["A"], trials=3) == score(direct, letters=["A"], trials=3)
    sim = json.loads((tmp_path / "a" / "similarity" / "A.json").read_text())
    assert sim["count"] == 2 and len(sim["similarities"][0]["raws"]) == 26
    assert sim["trials"][0] == {"id": "a_A_1.png", "label": "A", "similarity": 0.9}
    div = json.loads((tmp_path / "a" / "diversity" / "A.json").read_text())
    assert div["diversities"][0]["pair"] == {"trial1": "a_A_1", "trial2": "a_A_2"} and div["count"] == 2
    sta = json.loads((tmp_path / "b" / "stability" / "A.json").read_text())
    assert [r["tag"] for r in sta["raws"]] == ["b_A_1.xml", "b_A_2.xml"] and sta["dataCount"] == 2


def test_similarity_needs_26_probabilities(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="26 expected"):
        ol.write_similarity_json(tmp_path / "A.json", "A", [{"id": "t_A_1.png", "probs": [1.0]}])


def test_result_files_quote_like_json2csv(tmp_path: Path) -> None:
    li = LetterInput(((1, D(1)),), ((1, D("0.5")),), D("0.5"))
    res = score({'say "hi"': {"A": li}}, letters=["A"], trials=1)
    ol.write_results(tmp_path, res)
    rows = (tmp_path / "character_scores.csv").read_bytes().decode().split("\r\n")
    assert rows[1].startswith('"say ""hi""","A",')
    assert (tmp_path / "prompt_scores_ranks.csv").read_text().endswith(",1")  # numeric rank unquoted, no eol
    const = json.loads((tmp_path / "constants.json").read_text())
    assert all(isinstance(v, str) for w in const["weights"] for v in w.values())


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 12), st.floats(0, 1)), max_size=12),
    st.lists(st.tuples(st.integers(1, 12), st.floats(0, 1)), max_size=12),
    st.floats(0, 1),
)
def test_written_stage_files_read_back_exactly(
    tmp_path_factory: pytest.TempPathFactory, sta: list[tuple[int, float]], sim: list[tuple[int, float]], rate: float
) -> None:
    prog = tmp_path_factory.mktemp("p") / "team"
    _write(prog, "C", sta, sim, rate)
    got = ol.read_program_dir(prog, ["C"])["C"]
    assert got.stability == tuple((i, D(repr(v))) for i, v in sta)
    assert got.similarity == tuple((i, D(repr(v))) for i, v in sim)
    assert got.diversity == D(repr(rate))


def test_result_csv_headers_are_the_official_columns(tmp_path: Path) -> None:
    """Spec §6.2 outputs: the v2.0.0 column names, in order (a reader of the official files looks them up)."""
    li = LetterInput(((1, D(1)),), ((1, D("0.5")),), D("0.5"))
    ol.write_results(tmp_path, score({"a": {"A": li}}, letters=["A"], trials=1))
    header = {
        name: (tmp_path / name).read_bytes().decode().split("\r\n")[0]
        for name in ("trial_scores.csv", "character_scores.csv", "prompt_scores_ranks.csv")
    }
    assert header == {
        "trial_scores.csv": '"teamName","character","trial","trial_score","stabilityScore","similarityScore",'
        '"diversityScore"',
        "character_scores.csv": '"teamName","character","characterScore","nonWeightedAverageStabilityScore",'
        '"nonWeightedAverageSimilarityScore","diversityScore"',
        "prompt_scores_ranks.csv": '"team","normalizedPromptScore","promptScore","rank"',
    }


def test_similarity_file_lists_each_class_probability_as_the_official_one(tmp_path: Path) -> None:
    """Spec §5 output, ``similarities:[{id, raws:[{id, label, softmax_prob}×26], cls_embedding?}]``: what the
    official diversity script (§6.1) reads back from our stage files as each trial's vector."""
    probs = [i / 325 for i in range(26)]
    ol.write_similarity_json(tmp_path / "C.json", "C", [{"id": "t_C_1.png", "probs": probs, "embedding": [0.5, 2.0]}])
    entry = json.loads((tmp_path / "C.json").read_text())["similarities"][0]
    assert entry["raws"] == [{"id": "t_C_1.png", "label": chr(65 + i), "softmax_prob": p} for i, p in enumerate(probs)]
    assert entry["cls_embedding"] == [0.5, 2.0] and entry["id"] == "t_C_1.png"
