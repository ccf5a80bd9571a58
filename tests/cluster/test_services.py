"""Where ``--pcg-cluster`` puts a node's shared services (``cluster.services``): only nodes that run trials
get one, pinned to the node, with no CPU, and with a GPU where the node has one. The run itself:
``tests/e2e/test_cluster_services_e2e.py``."""

from __future__ import annotations

import pytest

from pcg_plugin.cluster.services import route, service_nodes, trial_nodes

HEAD = {"NodeID": "a" * 56, "Alive": True, "Resources": {"head": 1.0, "memory": 1e9}}
CPU = {"NodeID": "c" * 56, "Alive": True, "Resources": {"CPU": 4.0, "worker": 1.0}}
GPU = {"NodeID": "e" * 56, "Alive": True, "Resources": {"CPU": 8.0, "GPU": 2.0}}
GONE = {"NodeID": "d" * 56, "Alive": False, "Resources": {"CPU": 4.0}}


def test_only_live_nodes_with_a_cpu_get_services():
    assert trial_nodes([HEAD, CPU, GONE, GPU]) == [CPU, GPU]
    assert trial_nodes([HEAD]) == []


def test_a_node_service_is_pinned_takes_no_cpu_and_its_nodes_gpu():
    pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[cluster]')")
    from pcg_plugin.cluster.services import service_options

    cpu, gpu = service_options(CPU), service_options(GPU)
    assert (cpu["num_cpus"], cpu["num_gpus"], gpu["num_cpus"], gpu["num_gpus"]) == (0, 0, 0, 1)
    assert cpu["scheduling_strategy"].node_id == CPU["NodeID"] and cpu["scheduling_strategy"].soft is False
    assert gpu["scheduling_strategy"].node_id == GPU["NodeID"]


GPU2 = {"NodeID": "f" * 56, "Alive": True, "Resources": {"CPU": 8.0, "GPU": 1.0}}
CPU2 = {"NodeID": "b" * 56, "Alive": True, "Resources": {"CPU": 2.0}}


def test_cpu_only_nodes_use_a_gpu_nodes_service_over_tcp():
    nodes = [CPU, GPU, CPU2, GPU2]
    chosen, tcp = service_nodes(nodes)
    assert (chosen, tcp) == ([GPU, GPU2], True)
    services = {GPU["NodeID"]: "svc-e", GPU2["NodeID"]: "svc-f"}
    assert route(nodes, services) == {
        CPU["NodeID"]: "svc-e",
        GPU["NodeID"]: "svc-e",
        CPU2["NodeID"]: "svc-f",
        GPU2["NodeID"]: "svc-f",
    }


def test_all_gpu_or_no_gpu_nodes_each_serve_themselves_locally():
    for nodes in ([CPU, CPU2], [GPU, GPU2]):
        chosen, tcp = service_nodes(nodes)
        assert (chosen, tcp) == (nodes, False)
        services = {n["NodeID"]: n["NodeID"][:1] for n in nodes}
        assert route(nodes, services) == services
    assert route([CPU], {}) == {}  # no service in this run
