"""`pcg pcgbench experiment` as a user runs it: one JSON object per run, runs that resume, the figures, pages and
baselines it writes; `pcg pcgbench random` as its Random x Q case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.cli import main
from pcg_plugin.problems.pcgbench.experiment import runner
from pcg_plugin.problems.pcgbench.experiment.random_summary import random_baseline, random_run
from pcg_plugin.problems.pcgbench.experiment.run import RunSpec, run_unit

SMALL = ["--runs", "2", "--generations", "2", "--population", "6", "-j", "1"]


def experiment(capsys: pytest.CaptureFixture[str], out: Path, *extra: str) -> tuple[list[dict[str, Any]], str]:
    assert main(["pcgbench", "experiment", "zelda-v0", *SMALL, "--out", str(out), "--json", *extra]) == 0
    captured = capsys.readouterr()
    return [json.loads(line) for line in captured.out.splitlines()], captured.err


def test_one_json_object_per_run_in_the_plans_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines, err = experiment(capsys, tmp_path, "--seed", "4", "--fitness", "quality,quality_control_diversity")
    assert [(r["generator"], r["fitness"], r["seed"]) for r in lines] == [
        (g, f, s) for g in ("random", "es", "ga") for f in ("q", "qtd") for s in (4, 5)
    ]
    first = lines[0]
    assert set(first) == {
        "variant",
        "generator",
        "fitness",
        "seed",
        "best",
        "final",
        "evaluated",
        "seconds",
        "cpu_seconds",
    }
    assert first["variant"] == "zelda-v0" and len(first["best"]) == 3 and first["evaluated"] == 18
    assert set(first["final"]) == {"feasible", "controlled", "unique"}
    assert all(r["best"] == sorted(r["best"]) for r in lines if r["generator"] != "ga")  # keep-best: never worse
    spec = RunSpec("zelda-v0", "es", "qtd", 5, population=6, generations=2)  # a run is its own seeded unit
    assert (
        next(r for r in lines if (r["generator"], r["fitness"], r["seed"]) == ("es", "qtd", 5))["best"]
        == run_unit(spec)["best"]
    )
    assert err.count("\n") == 12 and "[12/12] zelda-v0 ga qtd seed 5: best " in err


def test_a_killed_experiment_resumes_where_it_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = runner.run_unit

    def dies_on_the_fourth(spec: RunSpec) -> dict[str, Any]:
        calls.append(spec.name)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(spec)

    monkeypatch.setattr(runner, "run_unit", dies_on_the_fourth)
    argv = ["pcgbench", "experiment", "zelda-v0", *SMALL, "--out", str(tmp_path), "--generator", "es", "--json"]
    assert main(argv) != 0
    assert "interrupted" in capsys.readouterr().err
    assert len(list((tmp_path / "runs").rglob("*.json"))) == 3
    calls.clear()
    lines, err = experiment(capsys, tmp_path, "--generator", "es")
    assert calls == ["es-qt-s2", "es-qtd-s1", "es-qtd-s2"] and len(lines) == 6
    assert err.count("(stored;") == 3
    again, _ = experiment(capsys, tmp_path, "--generator", "es")
    assert again == lines  # the stored records, their timings included
    assert calls == ["es-qt-s2", "es-qtd-s1", "es-qtd-s2"]  # nothing run the third time


def test_runs_on_worker_processes_equal_runs_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    here, _ = experiment(capsys, tmp_path / "one", "--generator", "ga", "--fitness", "qtd")
    there, _ = experiment(capsys, tmp_path / "two", "--generator", "ga", "--fitness", "qtd", "-j", "2")
    assert [r["best"] for r in here] == [r["best"] for r in there]


def test_it_writes_figures_pages_and_baselines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pcgbench", "experiment", "pcgbench/zelda-v0", *SMALL, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "zelda-v0 GA QTD: best 0.1" in out and f"pages: {tmp_path / 'index.html'}" in out
    doc = json.loads((tmp_path / "figures.json").read_text())
    assert doc["protocol"]["command"].startswith("pcg pcgbench experiment zelda-v0 --generator random,es,ga")
    zelda = doc["variants"]["zelda-v0"]
    assert len(zelda["fig2"]) == len(zelda["fig3"]) == 9 and len(zelda["fig2"]["es-qt"]["mean"]) == 3
    for path in ("index.html", "fig2.svg", "fig3.svg", "zelda-v0/index.html", "zelda-v0/fig2.svg"):
        assert (tmp_path / path).read_text().strip(), path
    page = (tmp_path / "zelda-v0" / "index.html").read_text()
    assert page.count("<svg") == 2 and "<td>GA</td><td>QTD</td><td>2</td>" in page
    baseline = tmp_path / "baselines" / "zelda-v0" / "ga-qtd"
    assert 'team = "GA (QTD)"' in (baseline / "submission.toml").read_text()
    answers = json.loads((baseline / "answers.json").read_text())
    assert len(answers) == 2 and answers[0].startswith("```")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nowhere-v0"], "no variant 'nowhere-v0'"),
        (["zelda-v0", "--fitness", "speed"], "no fitness 'speed'"),
        (["zelda-v0", "--generator", "cmaes"], "expected a comma list of random, es, ga"),
        (["zelda-v0", "--population", "0"], "--population and --jobs must be >= 1"),
    ],
)
def test_bad_arguments_are_named(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["pcgbench", "experiment", *argv])
    assert message in str(exc.value) + capsys.readouterr().err


def test_random_is_the_experiments_random_under_q() -> None:
    """`pcg pcgbench random`: best quality = a running max at the reported generations, over uniform draws."""
    run = random_run("zelda-v0", generations=3, seed=1, report=(0, 1, 3, 50))
    assert list(run["best"]) == [0, 1, 3] and run["samples"] == 400
    assert run["best"][0] <= run["best"][1] <= run["best"][3] < 1
    assert random_run("zelda-v0", generations=3, seed=1, report=(0, 1, 3)) == run
    result = random_baseline("sokoban-v0", runs=2, generations=1, seed=5, report=(0, 1, 50))
    assert set(result["mean_best"]) == {"0", "1"} and len(result["per_run_best"]["1"]) == 2
    assert result["samples"] == 400 and result["feasible_samples"] == 0


def test_every_argument_is_described(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["pcgbench", "experiment", "--help"])
    text = capsys.readouterr().out
    for name in ("VARIANT", "--generator", "--fitness", "--runs R", "--generations G", "--population N", "--seed S"):
        assert name in text, name
    said = " ".join(text.split())
    for words in ("its 12 defaults", "run r uses seed S + r", "env.seed(seed)", "worker processes", "one JSON object"):
        assert words in said, words


def test_a_cluster_address_that_is_none_is_refused_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit, match=r"--cluster local:0: local:N needs a number of nodes N >= 1"):
        experiment(capsys, tmp_path, "--cluster", "local:0")
    assert not (tmp_path / "runs").exists()


@pytest.mark.slow  # a Ray cluster's start (20-70 s); tests/e2e/test_cluster_e2e.py's reason
def test_on_a_ray_cluster_the_runs_are_those_of_one_process_and_resume(tmp_path: Path) -> None:
    from cluster_support import run_in_netns, skip_reason

    reason = skip_reason()
    if reason is not None:
        pytest.skip(reason)
    args = ["pcgbench", "experiment", "zelda-v0", *SMALL, "--generator", "es,ga", "--fitness", "qtd", "--json"]
    here = run_in_netns([*args, "--out", str(tmp_path / "here")], tmp_path, module="pcg_plugin")
    assert here.returncode == 0, here.stderr[-3000:]
    keep = ("variant", "generator", "fitness", "seed", "best", "final", "evaluated")
    expected = [{k: json.loads(line)[k] for k in keep} for line in here.stdout.splitlines()]
    (tmp_path / "ray").mkdir()
    first = run_unit(RunSpec("zelda-v0", "es", "qtd", 1, population=6, generations=2))  # one run stored before
    runner.RunStore(tmp_path / "ray").save(first)
    ray = run_in_netns([*args, "--out", str(tmp_path / "ray"), "--cluster", "local:2"], tmp_path, module="pcg_plugin")
    assert ray.returncode == 0, ray.stderr[-3000:]
    assert [{k: json.loads(line)[k] for k in keep} for line in ray.stdout.splitlines()] == expected
    assert ray.stderr.count("stored;") == 1 and len(expected) == 4
