"""The spending cap (``--pcg-max-cost``, ``PCG_MAX_COST``), end to end against the loopback OpenAI-compatible server
of ``tests/in_flight_cases.py`` (a PCG Benchmark competition of two submissions x 2 instances x 2 trials): reached at
``-n 2`` with trials in flight (exit code 2, "stopped at the cost cap: $spent of $cap", spent <= cap, the trials not
run listed as not run and never scored as zeros), a rerun with a higher cap paying only what is missing, and a model
without a price refused before any call.

The price table makes the sums exact: "double" costs $0 per prompt token and $1000 per million completion tokens, the
server bills 7 completion tokens a call ($0.007), and a call's worst case is its 16 384 unbounded reply tokens
($16.384). Under a $16.419 cap one call is in flight at a time and five calls paid leave exactly room for a sixth:
after six ($0.042) none fits, so the run stops at $0.0420."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import loopback_llm
import pytest
from cluster_support import skip_reason, two_hosts_reason
from in_flight_cases import CASES, SlowServer, command, load, make_work, stable_rows, stored_calls

CASE = "pcgbench"
TRIALS = 2
CALL_USD = 0.007
CAP = "16.419"


@pytest.fixture
def competition(tmp_path: Path) -> Any:
    make_work(tmp_path, CASE)
    (tmp_path / "prices.json").write_text(json.dumps({"models": {"double": [0, 1000]}}))
    path = str(CASES[CASE]["path"])
    sys.path[:0] = [str(tmp_path), path]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), path, os.environ.get("PYTHONPATH", "")])}
    for var in ("OPENAI_API_KEY", "PYTEST_XDIST_WORKER", "PCG_MAX_COST", "PCG_PRICES"):
        env.pop(var, None)
    try:
        server = SlowServer(load(CASES[CASE]["responder"]), delay=0.05)
        with loopback_llm.serve(server):
            yield tmp_path, server, env
    finally:
        sys.path.remove(str(tmp_path))
        sys.path.remove(path)


def run(work: Path, server: SlowServer, env: dict[str, str], workers: int, *extra: str) -> subprocess.CompletedProcess:
    model = ["--pcg-backend", "openai-compatible", "--pcg-base-url", server.url, "--pcg-model", "double"]
    cmd = command(CASE, "run", TRIALS, workers, *model, "--pcg-in-flight", "4", *extra, small=True)
    return subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600, check=False)


def trials_of(rows: list[dict[str, Any]]) -> set[str]:
    return {f"{r['submission']}::{r['target']}::{r['trial']}" for r in rows}


def test_the_cap_stops_the_run_at_n2_and_a_rerun_with_a_higher_cap_pays_only_the_rest(competition: Any) -> None:
    work, server, env = competition
    capped = run(work, server, env, 2, "--pcg-prices", "prices.json", "--pcg-max-cost", CAP, "-rs")
    out = capped.stdout
    assert capped.returncode == 2, out[-3000:] + capped.stderr[-2000:]
    assert "stopped at the cost cap: $0.0420 of $16.4190" in out, out[-3000:]
    paid = len(server.bodies)
    assert paid == stored_calls(work, "run") == 6  # every call sent was answered, stored and counted
    doc = json.loads((work / "run" / "results.json").read_text())
    assert doc["cost_cap"]["reached"] is True and doc["cost_cap"]["cap_usd"] == float(CAP)
    assert doc["cost_cap"]["spent_usd"] == pytest.approx(paid * CALL_USD) and paid * CALL_USD <= float(CAP)
    not_run, aside = doc["not_run"], doc["cost_cap"]["not_scored"]
    assert not_run and set(not_run.values()) == {"cost cap"}
    scored = {s["name"] for s in doc["submissions"]}
    rows = stable_rows(work, "run")
    assert not trials_of(rows) & set(not_run)  # a trial not run is no row: not a zero
    assert not scored & {n.split("::")[0].rsplit("/", 1)[-1] for n in not_run}  # nor is its submission scored
    refused = re.findall(r"SKIPPED .*?not run \(cost cap\): (\w+)/(\w+)/trial (\d+)", out)
    assert refused and {f"subs/{s}::{i}::{t}" for s, i, t in refused} <= set(not_run), out[-3000:]
    assert {r["submission"] for r in rows} == scored and not scored & {a.rsplit("/", 1)[-1] for a in aside}
    assert len(rows) + len(not_run) + sum(int(a.split(", ")[1].split()[0]) for a in aside.values()) == 8

    env = {**env, "PCG_MAX_COST": "100"}  # the variable instead of the option, a cap the rest fits in
    again = run(work, server, env, 0, "--pcg-prices", "prices.json")
    assert again.returncode == 0, again.stdout[-3000:]
    asked = len(server.bodies) - paid
    assert asked == stored_calls(work, "run") - paid > 0  # only what was not stored is asked
    doc = json.loads((work / "run" / "results.json").read_text())
    assert doc["cost_cap"] == {
        "cap_usd": 100.0,
        "spent_usd": pytest.approx(asked * CALL_USD),
        "reached": False,
        "not_scored": {},
    }
    assert doc["not_run"] == {} and len(stable_rows(work, "run")) == 8
    assert not list((work / "run-store").glob("spending-*"))  # each run's ledger went with it


def test_a_model_without_a_price_is_refused_before_any_call(competition: Any) -> None:
    work, server, env = competition
    result = run(work, server, env, 0, "--pcg-max-cost", "5")
    assert result.returncode == 4, result.stdout[-2000:] + result.stderr[-2000:]
    assert "the model 'double' has no price" in result.stderr and "--pcg-prices" in result.stderr
    assert server.bodies == [] and stored_calls(work, "run") == 0


@pytest.mark.parametrize(
    ("flag", "value", "named"),
    [("--pcg-max-cost", "0", "--pcg-max-cost: 0 must be"), ("PCG_MAX_COST", "ten", "$PCG_MAX_COST: 'ten' is not")],
)
def test_a_cap_that_is_no_amount_is_a_usage_error(competition: Any, flag: str, value: str, named: str) -> None:
    work, server, env = competition
    if flag.startswith("--"):
        result = run(work, server, env, 0, "--pcg-prices", "prices.json", flag, value)
    else:
        result = run(work, server, {**env, flag: value}, 0, "--pcg-prices", "prices.json")
    assert result.returncode == 4 and server.bodies == []
    assert named in result.stderr, result.stderr[-2000:]


@pytest.mark.slow  # a Ray cluster start (15-20 s): .ci/run's second step
@pytest.mark.skipif(skip_reason() is not None or two_hosts_reason() is not None, reason="no Ray or no two hosts")
def test_the_cap_holds_on_a_cluster(tmp_path: Path) -> None:
    """--pcg-cluster local:2 with trials in flight: every trial actor asks the driver's one ledger actor, and the run
    stops where -n 2 does. The server runs beside the run in a network namespace of the test's own."""
    from cluster_support import two_hosts
    from in_flight_cases import serve_elsewhere

    make_work(tmp_path, CASE)
    (tmp_path / "prices.json").write_text(json.dumps({"models": {"double": [0, 1000]}}))
    path = str(CASES[CASE]["path"])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), path, os.environ.get("PYTHONPATH", "")])}
    env.update(RAY_USAGE_STATS_ENABLED="0")
    for var in ("OPENAI_API_KEY", "PYTEST_XDIST_WORKER", "PCG_MAX_COST", "PCG_PRICES"):
        env.pop(var, None)
    with two_hosts() as hosts:
        server = serve_elsewhere(CASE, tmp_path, 0.05, hosts.cmd(hosts.run, []))
        try:
            url = server.stdout.readline().strip()
            model = ["--pcg-backend", "openai-compatible", "--pcg-base-url", url, "--pcg-model", "double"]
            extra = ["--pcg-prices", "prices.json", "--pcg-max-cost", CAP, "--pcg-cluster", "local:2"]
            cmd = command(CASE, "run", TRIALS, 0, *model, "--pcg-in-flight", "4", *extra, small=True)
            done = subprocess.run(
                hosts.cmd(hosts.run, cmd), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
            )
        finally:
            seen = json.loads(server.communicate(input="", timeout=60)[0].strip().splitlines()[-1])
    assert done.returncode == 2, done.stdout[-4000:] + done.stderr[-2000:]
    assert "stopped at the cost cap: $0.0420 of $16.4190" in done.stdout
    assert "pcg cluster: spending ledger: one actor, 6 calls let start" in done.stdout, done.stdout[-3000:]
    assert seen["requests"] == stored_calls(tmp_path, "run") == 6
    doc = json.loads((tmp_path / "run" / "results.json").read_text())
    assert doc["cost_cap"]["spent_usd"] == pytest.approx(0.042) and set(doc["not_run"].values()) == {"cost cap"}


def test_one_cap_holds_over_a_suite_and_each_problem_lists_what_it_did_not_run(competition: Any) -> None:
    """A suite (two PCG Benchmark variants) shares one ledger: the run stops at the same $0.0420 of $16.4190, the
    top results.json and each problem's own say so, and no trial not run is scored as a zero."""
    work, server, env = competition
    suite = "pcgbench/binary-v0,pcgbench/binary-wide-v0"
    capped = run(work, server, env, 0, "--pcg-problem", suite, "--pcg-prices", "prices.json", "--pcg-max-cost", CAP)
    out = capped.stdout
    assert capped.returncode == 2, out[-3000:] + capped.stderr[-2000:]
    assert "stopped at the cost cap: $0.0420 of $16.4190" in out, out[-3000:]
    assert len(server.bodies) == stored_calls(work, "run") == 6
    top = json.loads((work / "run" / "results.json").read_text())
    assert top["cost_cap"]["reached"] is True and top["cost_cap"]["spent_usd"] <= float(CAP)
    assert top["not_run"] and set(top["not_run"].values()) == {"cost cap"}
    member_not_run: dict[str, str] = {}
    for entry in top["problems"]:
        doc = json.loads((work / "run" / entry["folder"] / "results.json").read_text())
        assert doc["cost_cap"]["reached"] is True
        member_not_run.update(doc["not_run"])
        rows = stable_rows(work, f"run/{entry['folder']}")
        assert not {f"{r['submission']}::{entry['problem']}::{r['target']}::{r['trial']}" for r in rows} & set(
            doc["not_run"]
        )
    assert member_not_run == top["not_run"]
