"""``--pcg-cluster`` with a shared service (Science Birds' classification service, ``--pcg-classify-mode
service``): one service per node that runs trials, started on that node, each trial actor handed its own node's;
the scores are those of ``-n 0``. One cluster start (a head and two one-CPU nodes, in a loopback-only network
namespace, ``cluster_support``): 20-40 s here."""

from __future__ import annotations

import re

import pytest
from cluster_support import run_in_netns, skip_reason
from e2e_support import VARIED_BODY, load_results, program, run_args, write_competition
from test_plugin_e2e import stable_view

REASON = skip_reason()
ARGS = ("--pcg-letters", "I,L", "--pcg-trials", "2", "--pcg-classify-mode", "service")  # 2 x 2 x 2 = 8 trials
LINE = re.compile(r"pcg cluster: node service on (\w+) \(.*, actor pid (\d+), gpu (\S+)\): serves (\d+) trial actors")


# A second cluster start (20-40 s idle, 4 min loaded): `pytest -m slow tests/e2e/test_cluster_services_e2e.py`
@pytest.mark.slow
@pytest.mark.skipif(REASON is not None, reason=REASON or "")
def test_each_node_gets_its_own_classification_service(competition):
    write_competition(competition.path, {"team_prog": {"entry.py": program(VARIED_BODY)}})
    serial = competition.runpytest_subprocess(*run_args("serial", *ARGS, "--pcg-store", "serial-store"), timeout=300)
    assert serial.ret == 0, serial.stdout.str()
    proc = run_in_netns([*run_args("cluster", *ARGS), "--pcg-cluster", "local:2"], competition.path)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "8 passed" in proc.stdout
    services = LINE.findall(proc.stdout)
    assert len(services) == 2, proc.stdout[-3000:]  # one per node, not one per run or per actor
    assert len({node for node, *_ in services}) == 2 and len({pid for _, pid, *_ in services}) == 2
    assert [(gpu, served) for _, _, gpu, served in services] == [("none", "1"), ("none", "1")]  # its node's actor
    cluster = load_results(competition.path, "cluster")
    assert stable_view(cluster) == stable_view(load_results(competition.path, "serial"))
    sims = [t["sim"] for s in cluster["submissions"] for d in s["letters"].values() for t in d["trials"]]
    assert len(sims) == 8 and all(sim is not None for sim in sims)  # classified, by the nodes' services


@pytest.mark.slow  # a cluster start (20-40 s idle): `pytest -m slow tests/e2e/test_cluster_services_e2e.py`
@pytest.mark.skipif(REASON is not None, reason=REASON or "")
def test_a_cpu_only_node_sends_its_images_to_the_gpu_nodes_service(competition):
    """local:2 with one node declaring a GPU (``--pcg-cluster-gpus 1``; Ray hands it out, the service runs on the
    CPU here): one service, on that node, listening on TCP, serving both nodes' trial actors; scores as -n 0."""
    write_competition(competition.path, {"team_prog": {"entry.py": program(VARIED_BODY)}})
    serial = competition.runpytest_subprocess(*run_args("serial", *ARGS, "--pcg-store", "serial-store"), timeout=300)
    assert serial.ret == 0, serial.stdout.str()
    args = [*run_args("cluster", *ARGS), "--pcg-cluster", "local:2", "--pcg-cluster-gpus", "1"]
    proc = run_in_netns(args, competition.path)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    services = LINE.findall(proc.stdout)
    assert [(gpu, served) for _, _, gpu, served in services] == [("0", "2")], proc.stdout[-3000:]
    cluster = load_results(competition.path, "cluster")
    assert stable_view(cluster) == stable_view(load_results(competition.path, "serial"))
    sims = [t["sim"] for s in cluster["submissions"] for d in s["letters"].values() for t in d["trials"]]
    assert len(sims) == 8 and all(sim is not None for sim in sims)
