"""`pcg imagegame score` on the published clembench v2.0 episodes of fixtures/clembench_runs (SOURCE.md)."""

import json
from pathlib import Path

import pytest
from ig_helpers import FIXTURES, episode_id, published_episodes

from pcg_plugin.cli import main
from pcg_plugin.problems.imagegame import instances

EPISODES = published_episodes()
SCORED = [p for p in EPISODES if (p / "scores.json").is_file()]
LLAMA8B = FIXTURES / "v2.0/Meta-Llama-3.1-8B-Instruct-t0.0--Meta-Llama-3.1-8B-Instruct-t0.0/imagegame"


def _published(folder: Path) -> str:
    return (folder / "scores.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("folder", SCORED, ids=episode_id)
def test_json_output_is_the_published_scores_json_text(folder: Path, capsys) -> None:
    assert main(["imagegame", "score", "--json", str(folder)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [_published(folder)]  # keys, order, int vs float, NaN
    assert captured.err == ""


@pytest.mark.parametrize("folder", SCORED, ids=episode_id)
def test_text_output_names_the_folder_and_the_published_figures(folder: Path, capsys) -> None:
    assert main(["imagegame", "score", str(folder)]) == 0
    e = json.loads(_published(folder))["episode scores"]
    assert capsys.readouterr().out.splitlines() == [
        f"{folder}: Main Score {e['Main Score']} Success {e['Success']} Aborted {e['Aborted']}"
        f" requests {e['Parsed Request Count']}/{e['Request Count']} parsed"
    ]


def test_one_call_scores_a_whole_tree_in_folder_then_game_id_order(capsys) -> None:
    assert main(["imagegame", "score", "--json", str(FIXTURES)]) == 0
    printed = capsys.readouterr().out.splitlines()
    order = sorted(EPISODES, key=lambda p: (str(p.parent), int(p.name.split("_")[1])))
    assert [p.name for p in order][:3] == ["episode_2", "episode_3", "episode_4"]  # numeric, not text, order
    assert len(printed) == len(order)
    for folder, line in zip(order, printed, strict=True):
        if folder in SCORED:
            assert line == _published(folder), folder
        else:
            assert json.loads(line)["episode scores"]["Aborted"] == 1, folder


def test_text_output_and_aggregate(capsys) -> None:
    assert main(["imagegame", "score", "--aggregate", str(LLAMA8B / "0_compact_grids")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3
    assert out[0].endswith("episode_18: Main Score nan Success 0 Aborted 1 requests 3/4 parsed")
    assert out[-1] == "% Played 0.0  Quality Score nan  Quality Score (std) nan  clemscore nan"


def test_json_aggregate_line(capsys) -> None:
    """Random 3, 4 and 21 of Meta-Llama-3.1-8B: Main Scores 45, 57, 40 (published), all played."""
    assert main(["imagegame", "score", "--json", "--aggregate", str(LLAMA8B / "1_random_grids")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["episode scores"]["Main Score"] for line in lines[:-1]] == [45.0, 57.0, 40.0]
    summary = json.loads(lines[-1])
    assert summary == {"% Played": 100.0, "Quality Score": 47.33, "Quality Score (std)": 8.74, "clemscore": 47.33}


def test_unscorable_folders_are_named_and_fail_the_command(tmp_path, capsys) -> None:
    assert main(["imagegame", "score", str(tmp_path / "nothing")]) == 1
    assert "no interactions.json" in capsys.readouterr().err


def test_a_bad_folder_does_not_hide_the_good_ones(tmp_path, capsys) -> None:
    good = LLAMA8B / "1_random_grids" / "episode_3"
    assert main(["imagegame", "score", "--json", str(tmp_path / "nothing"), str(good)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [_published(good)]
    assert f"{tmp_path / 'nothing'}: no interactions.json" in captured.err and "(not scored)" in captured.err


def test_instances_option_reads_a_clembench_file(tmp_path, capsys) -> None:
    doc = instances.generate_instances(1, instances.v2_patterns(), instances.load_instances()[0])
    path = tmp_path / "instances.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["imagegame", "score", "--instances", str(path), str(LLAMA8B / "1_random_grids" / "episode_3")]) == 1
    assert "does not show the target" in capsys.readouterr().err
    path.write_text("{}", encoding="utf-8")
    assert main(["imagegame", "score", "--instances", str(path), str(LLAMA8B)]) == 2
    assert "cannot read --instances" in capsys.readouterr().err


def test_the_packaged_set_given_as_a_file_scores_like_the_default(tmp_path, capsys) -> None:
    doc = instances.generate_instances(
        instances.V2_SEED, instances.v2_patterns(), instances.load_instances()[0], instances.V2_DROPPED
    )
    path = tmp_path / "instances.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    folder = LLAMA8B / "1_random_grids" / "episode_21"
    assert main(["imagegame", "score", "--json", "--instances", str(path), str(folder)]) == 0
    assert capsys.readouterr().out.splitlines() == [_published(folder)]


def test_nan_prints_as_clembench_wrote_it(capsys) -> None:
    assert main(["imagegame", "score", "--json", str(LLAMA8B / "0_compact_grids" / "episode_21")]) == 0
    assert '"Main Score": NaN' in capsys.readouterr().out


@pytest.mark.parametrize("args", [["imagegame"], ["imagegame", "score"]])
def test_usage_errors(args) -> None:
    with pytest.raises(SystemExit):
        main(args)
