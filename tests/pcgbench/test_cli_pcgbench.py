import json
import re

import numpy as np
import pytest
from levels import SOKOBAN_MICROBAN

from pcg_plugin.cli import main
from pcg_plugin.problems.pcgbench.bench.registry import get_problem


def test_eval_json_contract(tmp_path, capsys):
    src = tmp_path / "levels.jsonl"
    src.write_text(
        json.dumps({"content": SOKOBAN_MICROBAN, "control": {"crates": 2}})
        + "\n"
        + json.dumps({"content": [[1]]})
        + "\n"
    )
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


def test_eval_prints_each_line_as_it_goes_and_a_level_without_a_player_loses_nothing(tmp_path, capsys):
    """A file holding a Sokoban level without a player used to lose every line (the diversity raised at the end)."""
    no_player = [[1 if v == 2 else v for v in row] for row in SOKOBAN_MICROBAN]
    src = tmp_path / "levels.jsonl"
    src.write_text(
        "\n".join(
            [
                json.dumps({"content": SOKOBAN_MICROBAN}),
                json.dumps({"content": no_player}),
                json.dumps({"content": "not a grid"}),
                json.dumps({"content": [[0, 1]] * 5}),
            ]
        )
        + "\n"
    )
    assert main(["pcgbench", "eval", "pcgbench/sokoban-v0", str(src), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line.get("valid") for line in lines] == [True, True, False, False, None]
    assert (
        lines[1]["info"]["players"] == 0 and lines[1]["quality"] == 1 / 3
    )  # (player 0 + crates 1 + balance 1) / 3 / 2
    assert lines[2]["reason"].startswith("not a grid") and lines[3]["reason"].startswith("wrong shape")
    assert lines[4] == {"diversity": 1.0, "per_item": [1.0, 1.0]}


def test_eval_streams_before_the_input_ends(tmp_path):
    """Each output line is flushed as soon as its input line is evaluated (a pipe reader sees it at once)."""
    import select
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "pcg_plugin", "pcgbench", "eval", "binary-v0", "-", "--json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin and proc.stdout
    try:
        proc.stdin.write(json.dumps({"content": [[1] * 14] * 14}) + "\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no output line while the input is still open"
        first = json.loads(proc.stdout.readline())
        assert first["valid"] and first["info"]["path"] == 26
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def test_list_names_every_variant_and_random_runs_any_of_them(capsys):
    from pcg_plugin.problems.pcgbench.bench.registry import names

    assert main(["pcgbench", "list"]) == 0
    assert capsys.readouterr().out.split() == names()
    assert main(["pcgbench", "random", "pcgbench/building-v0", "--runs", "1", "--generations", "0", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["problem"] == "building-v0" and result["samples"] == 100 and 0.4 < result["mean_best"]["0"] <= 1


def test_eval_and_random_take_floor_plans_letters_and_pattern_grids(tmp_path, capsys):
    """isaac's README floor plan (0.75), elimination's "stranger" (0.6452; 0.3333 at sequence 4), the Lode Runner
    README pattern grid (1.0), each beside a content of the wrong form, and the random baseline on each."""
    from pcg_plugin.problems.pcgbench.games.loderunner.problem import README_PATTERNS

    plan = {
        "layout": [0, 8, 12, 9, 0, 14, 11, 10, 4, 15, 7, 3, 0, 2, 0, 0],
        "start": 6,
        "boss": 8,
        "shop": 13,
        "treasure": 1,
    }
    cases = {
        "isaac-v0": ({"content": plan}, [1, 2], 0.75, "not a floor plan"),
        "elimination-v0": (
            {"content": [18, 19, 17, 0, 13, 6, 4, 17], "control": {"sequence": 4}},
            plan,
            0.645161290221991,
            "not letters",
        ),
        "loderunner-v0": ({"content": README_PATTERNS}, [[52] * 16] * 11, 1.0, "wrong alphabet"),
    }
    for variant, (good, bad, quality, reason) in cases.items():
        src = tmp_path / f"{variant}.jsonl"
        src.write_text(json.dumps(good) + "\n" + json.dumps({"content": bad}) + "\n")
        assert main(["pcgbench", "eval", variant, str(src), "--json"]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert abs(lines[0]["quality"] - quality) < 1e-12 and lines[1]["reason"].startswith(reason)
        assert lines[2] == {"diversity": 1.0, "per_item": [1.0]}
        assert main(["pcgbench", "random", variant, "--runs", "1", "--generations", "0", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["samples"] == 100


def test_every_argument_of_the_pcgbench_commands_is_described(capsys):
    """`pcg pcgbench random --help` left VARIANT, --runs and --generations without a word."""
    for action in ("eval", "random"):
        with pytest.raises(SystemExit):
            main(["pcgbench", action, "--help"])
        text = capsys.readouterr().out
        entries = re.findall(r"^  (\S.*?)(?:\s{2,}(\S.*))?$", text.split("positional arguments:")[1], re.M)
        assert entries and all(description for _name, description in entries), (action, text)
        for name in ("VARIANT",) + (
            ("--runs R", "--generations G", "--seed S", "--json") if action == "random" else ()
        ):
            assert any(n.startswith(name) for n, _ in entries), (action, name)


def test_eval_reads_the_benchmarks_own_controls(tmp_path, capsys):
    """The issue's cases: talakat's control as its control space samples it, and arcade's layout as rows of 0/1."""
    talakat, arcade = get_problem("talakat-v0"), get_problem("arcade-v0")
    src = tmp_path / "mixed.jsonl"
    src.write_text(
        json.dumps(
            {"content": talakat.content.sample(np.random.default_rng(1)), "control": {"bullets": [90, 98, 79, 91, 79]}}
        )
        + "\n"
    )
    assert main(["pcgbench", "eval", "talakat-v0", str(src), "--json"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["valid"] and first["controllability"] is not None
    src.write_text(json.dumps({"content": arcade.examples[0], "control": [[1] * 7] * 7}) + "\n")
    assert main(["pcgbench", "eval", "arcade-v0", str(src), "--json"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["valid"] and first["controllability"] == 1.0
