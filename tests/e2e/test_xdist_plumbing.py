"""Records reach the controller only through reports: identical for -n 0 and -n 2 (pipeline replaced by a
deterministic stand-in here, so this checks the plumbing alone; test_plugin_e2e checks the real pipeline)."""

from __future__ import annotations

import json

import pytest
from e2e_support import load_results, run_args

CONFTEST = """
import json
from dataclasses import replace
from pathlib import Path

import pytest
import pcg_plugin.problems.science_birds.item as item
from pcg_plugin.problems.science_birds.records import TrialRecord, trial_seed


def fake_run_trial(sub, letter, trial, nodeid, ctx, model=None):
    seed = trial_seed(sub.name, letter, trial)
    probs = tuple(((seed >> i) % 97 + 1) / 1000.0 for i in range(26))
    return TrialRecord(nodeid=nodeid, submission=sub.name, letter=letter, trial=trial, format=sub.format, seed=seed,
                       sta=1.0, sim=probs[ord(letter) - 65], probs=probs, timings={"generate": 0.0})


item.run_trial = fake_run_trial
ctx_loads = []


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    controller = session.config.pluginmanager.get_plugin("pcg-controller")
    if controller is None:
        return
    records = {k: json.loads(v.to_json()) for k, v in sorted(controller.collected.records.items())}
    Path(session.config.rootpath, "records-" + session.config.getoption("pcg_out") + ".json").write_text(
        json.dumps({"records": records, "items": sorted(controller.collected.items),
                    "workers": sorted(controller.worker_stats)}))
"""


def test_records_travel_on_reports(competition):
    """A serial run and one at ``-n 2`` of the same 12 trials: the same records (timings aside), the ``-n 2``
    ones from its two workers."""
    competition.makeconftest(CONFTEST)
    runs = {}
    for out, extra in (("a", []), ("b", ["-p", "xdist", "-n", "2"])):
        result = competition.runpytest_subprocess(
            *run_args(out, "--pcg-letters", "I,L", "--pcg-trials", "3", *extra), timeout=120
        )
        result.assert_outcomes(passed=12)
        runs[out] = json.loads((competition.path / f"records-{out}.json").read_text())
        assert len(runs[out]["records"]) == 12 and len(runs[out]["items"]) == 12
        assert len(runs[out]["workers"]) == (2 if extra else 0)
        for rec in runs[out]["records"].values():
            rec.pop("timings")
    assert runs["a"]["records"] == runs["b"]["records"]


FLAKY = CONFTEST.replace(
    "def fake_run_trial(sub, letter, trial, nodeid, ctx, model=None):\n",
    "def fake_run_trial(sub, letter, trial, nodeid, ctx, model=None):\n"
    "    import os\n"
    "    from pcg_plugin.errors import InfrastructureError\n"
    "    if os.environ.get('BREAK') == nodeid:\n"
    "        raise InfrastructureError('model server unreachable')\n",
)


@pytest.mark.slow  # tests/sandbox/test_faults.py reruns its infrastructure errors with --lf too (the test loop)
def test_infrastructure_errors_error_and_lf_reruns_them(competition, monkeypatch):
    competition.makeconftest(FLAKY)
    broken = "submissions/team_prog::L::2"
    monkeypatch.setenv("BREAK", broken)
    args = [a for a in run_args("c", "--pcg-letters", "I,L", "--pcg-trials", "2") if a != "no:cacheprovider"]
    args.remove("-p")
    result = competition.runpytest_subprocess(*args, timeout=120)
    result.assert_outcomes(passed=7, errors=1, failed=0)  # an infrastructure error: pytest ERROR, not FAILED
    result.stdout.fnmatch_lines([f"*infrastructure error in {broken}: model server unreachable*"])
    assert "Traceback" not in result.stdout.str()
    monkeypatch.delenv("BREAK")
    result = competition.runpytest_subprocess(*args, "--lf", timeout=120)
    result.assert_outcomes(passed=1)


def test_the_controller_starts_and_stops_the_classification_service(competition):
    """Service mode under xdist: the controller starts the one service before the workers exist, hands it to
    them through workerinput (no worker takes the lazy-start lock) and stops it when pytest unconfigures."""
    result = competition.runpytest_subprocess(
        *run_args(
            "run", "--pcg-letters", "I", "--pcg-trials", "1", "--pcg-classify-mode", "service", "-p", "xdist", "-n", "2"
        ),
        timeout=300,
    )
    assert result.ret == 0, result.stdout.str()
    run = competition.path / "run"
    assert (run / "classify-service.log").is_file()  # started for this run
    assert not (run / ".pcg-classify-service.lock").exists()  # ... by the controller, not lazily by a worker
    assert not (run / ".pcg-classify-service.json").exists()  # ... and stopped (stop() removes its info file)
    results = load_results(competition.path, "run")
    assert all(t["sim"] is not None for s in results["submissions"] for t in s["letters"]["I"]["trials"])
