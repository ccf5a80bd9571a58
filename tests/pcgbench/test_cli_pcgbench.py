import json

from levels import SOKOBAN_MICROBAN

from pcg_plugin.cli import main


def test_eval_json_contract(tmp_path, capsys):
    src = tmp_path / "levels.jsonl"
    src.write_text(json.dumps({"content": SOKOBAN_MICROBAN, "control": {"crates": 2}}) + "\n"
                   + json.dumps({"content": [[1]]}) + "\n")
    assert main(["pcgbench", "eval", "sokoban-v0", str(src), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert set(lines[0]) == {"valid", "reason", "info", "quality", "controllability"}
    assert lines[0]["quality"] == 1.0 and len(lines[0]["info"]["solution"]) == 10
    assert lines[1]["valid"] is False and lines[1]["reason"].startswith("wrong shape")
    assert lines[2] == {"diversity": 1.0, "per_item": [1.0]}


def test_random_json_contract(capsys):
    assert main(["pcgbench", "random", "zelda-v0", "--runs", "2", "--generations", "1", "--seed", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["problem"] == "zelda-v0" and set(result["mean_best"]) == {"0", "1"}
    assert result["samples"] == 400 and result["feasible_samples"] == 0
    assert 0.4 < result["mean_best"]["1"] < 0.5
