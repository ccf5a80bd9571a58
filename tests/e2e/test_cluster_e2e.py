"""``--pcg-cluster``: the same scripted competition on a simulated Ray cluster (a head and three one-CPU nodes,
``ray.cluster_utils.Cluster``, started by the plugin inside a loopback-only network namespace) scores every trial
exactly as ``-n 0`` and ``-n 2`` do, with the run folder written by the driver; a node removed mid-run loses
nothing and pays nothing twice. One cluster start per test: each costs 20-40 s here."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from cluster_support import run_in_netns, skip_reason
from e2e_support import VARIED_BODY, load_results, program, run_args, write_competition
from test_plugin_e2e import stable_view

REASON = skip_reason()
needs_ray = pytest.mark.skipif(REASON is not None, reason=REASON or "")
ARGS = ("--pcg-letters", "I,L,T", "--pcg-trials", "3")  # 2 submissions x 3 letters x 3 trials = 18 trials
TRIALS = 18

# The scripted double, counting every request it answers (one line each) before it answers: "requests" below.
COUNTING = '''
from pathlib import Path
import scripted_llm

def respond(messages, n=1):
    with open(Path(__file__).with_name("requests.log"), "a") as log:
        log.write("x\\n")
    return scripted_llm.respond(messages, n)
'''


def stored_calls(root: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(root / "store" / "responses.sqlite3") as db:
        return db.execute("SELECT key_id, idx FROM calls ORDER BY key_id, idx").fetchall()


def run_files(run: Path) -> dict[str, bytes]:
    """The trial files of a run folder (levels and raw answers: what workers write), by relative path."""
    return {p.relative_to(run).as_posix(): p.read_bytes() for p in sorted(run.rglob("*"))
            if p.is_file() and p.suffix in (".xml", ".txt") and "/result" not in p.as_posix()}  # fmt: skip


@needs_ray
def test_a_cluster_with_a_node_removed_scores_like_n0_and_n2(competition):
    """local:3 with one node removed after 3 trials came back: every trial scored, the lost node's trials run
    again elsewhere (replaying what its attempt had stored), requests = stored calls, results.json as -n 0/-n 2."""
    write_competition(competition.path, {"team_prog": {"entry.py": program(VARIED_BODY)}})
    (competition.path / "counting_llm.py").write_text(COUNTING)
    runs = {}
    for out, extra in (("serial", []), ("parallel", ["-p", "xdist", "-n", "2"])):
        result = competition.runpytest_subprocess(*run_args(out, *ARGS, "--pcg-store", out + "-store", *extra),
                                                  timeout=300)  # fmt: skip
        assert result.ret == 0, result.stdout.str()
        runs[out] = load_results(competition.path, out)
    args = [*run_args("cluster", *ARGS, "--pcg-cluster", "local:3", "--pcg-cluster-fault", "remove-node-after:3")]
    args[args.index("scripted_llm:respond")] = "counting_llm:respond"
    proc = run_in_netns(args, competition.path)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert f"{TRIALS} passed" in proc.stdout
    assert "1 node removed" in proc.stdout and "attempt 1 lost" in proc.stdout, proc.stdout[-3000:]
    runs["cluster"] = load_results(competition.path, "cluster")
    assert stable_view(runs["cluster"]) == stable_view(runs["serial"]) == stable_view(runs["parallel"])
    trials = [t for s in runs["cluster"]["submissions"] for d in s["letters"].values() for t in d["trials"]]
    assert len(trials) == TRIALS and all(t["sta"] is not None for t in trials)
    requests = (competition.path / "requests.log").read_text().count("x")
    calls = stored_calls(competition.path)
    assert requests == len(calls) == TRIALS  # one call a trial, none paid twice
    assert len(set(calls)) == len(calls)
    assert run_files(competition.path / "cluster") == run_files(competition.path / "parallel") != {}
