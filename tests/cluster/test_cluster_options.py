"""``--pcg-cluster`` without a cluster: the address grammar, refusing ``-n`` beside it, Ray never imported
without it, the worker's command line, and how a trial's outcome and files travel (``core.cluster``). The runs on
a simulated cluster are in ``tests/e2e/test_cluster_e2e.py`` and below (``slow``: one cluster start each)."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import pytest
from cluster_support import run_in_netns, skip_reason
from toy_problem import SPELL, spell_contest

from pcg_plugin.cluster import Address, parse_address
from pcg_plugin.cluster.outcome import Outcome, RemoteError, pack_error, put_files, take_files
from pcg_plugin.cluster.worker import worker_args
from pcg_plugin.errors import InfrastructureError


@pytest.fixture
def contest(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    spell_contest(
        pytester, monkeypatch, {"alpha": {"cat": "cat", "dog": "dot"}, "beta": {"cat": "cut", "dog": "!crash"}}
    )
    return pytester


@pytest.mark.parametrize(
    ("spec", "address"),
    [
        ("auto", Address("auto")),
        ("10.0.0.5:6379", Address("10.0.0.5:6379")),
        ("ray://head:10001", Address("ray://head:10001")),
        ("local:3", Address(None, nodes=3, cpus=1)),
    ],
)
def test_addresses(spec, address):
    assert parse_address(spec) == address


@pytest.mark.parametrize("spec", ["local:0", "local:x", "head", "local:"])
def test_a_bad_address_is_a_usage_error_naming_the_forms(spec):
    with pytest.raises(pytest.UsageError, match="local:N"):
        parse_address(spec)


def test_local_gpu_nodes_are_counted_among_the_nodes():
    assert parse_address("local:3", 2, 1) == Address(None, nodes=3, cpus=2, gpus=1)
    with pytest.raises(pytest.UsageError, match="--pcg-cluster-gpus 4: between 0 and the 3 nodes"):
        parse_address("local:3", 1, 4)


def test_the_worker_command_line_drops_the_cluster_options():
    args = [
        "subs",
        "--pcg-cluster",
        "local:3",
        "--pcg-cluster-cpus=2",
        "--pcg-cluster-fault",
        "remove-node-after:1",
        "--pcg-cluster-gpus",
        "1",
        "-k",
        "cat",
        "--pcg-clusterish",
    ]
    assert worker_args(args) == ["subs", "-k", "cat", "--pcg-clusterish"]


@pytest.mark.parametrize("workers", [["-n", "2"], ["--dist", "load"], ["--tx", "popen"]])
def test_xdist_beside_the_cluster_is_a_usage_error(contest, workers):
    result = contest.runpytest_inprocess("subs", *SPELL, "-p", "xdist", *workers, "--pcg-cluster", "local:2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pcg-cluster local:2 cannot be combined with *"])


def test_without_the_option_nothing_imports_ray(contest):
    code = (
        "import sys, pytest; rc = pytest.main(['subs', '-q', *sys.argv[1:]]); "
        "print('RAY', any(m == 'ray' or m.startswith('ray.') for m in sys.modules), rc)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *SPELL], cwd=contest.path, capture_output=True, text=True, check=False
    )
    assert "RAY False 1" in proc.stdout, proc.stdout + proc.stderr  # 1: beta's !crash fails, as it should
    # and the import check can fail: with the option, Ray is imported (and refused here, before any start)
    proc = subprocess.run(
        [sys.executable, "-c", code, *SPELL, "--co", "--pcg-cluster", "local:1"],
        cwd=contest.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "RAY False" in proc.stdout  # --co: nothing runs, so no cluster starts and Ray stays unimported


def test_a_trials_files_travel_to_the_run_folder(tmp_path):
    staging = tmp_path / "staging"
    (staging / "team/levels/A").mkdir(parents=True)
    (staging / "team/levels/A/team_A_1.xml").write_bytes(b"<Level/>")
    (staging / "team/raw.txt").write_bytes("é\r\n".encode())
    files = take_files(staging)
    assert files == (("team/levels/A/team_A_1.xml", b"<Level/>"), ("team/raw.txt", "é\r\n".encode()))
    assert not [p for p in staging.rglob("*") if p.is_file()]  # taken: the next trial sends only its own
    put_files(tmp_path / "run", files)
    assert (tmp_path / "run/team/raw.txt").read_bytes() == "é\r\n".encode()
    with pytest.raises(ValueError, match="outside the run folder"):
        put_files(tmp_path / "run", (("../escaped.txt", b"x"),))


def test_errors_travel_as_themselves_or_with_their_remote_traceback():
    infra = Outcome(failed_in="call", error=pack_error(InfrastructureError("the speller crashed"))).exception()
    assert isinstance(infra, InfrastructureError) and str(infra) == "the speller crashed"
    with pytest.raises(pytest.fail.Exception) as caught:
        pytest.fail("requirements cannot be met", pytrace=False)
    failed = Outcome(failed_in="setup", error=pack_error(caught.value)).exception()
    assert isinstance(failed, pytest.fail.Exception) and failed.msg == "requirements cannot be met"

    class Local(Exception):  # a class pickle cannot find again
        pass

    try:
        raise Local("a bug on the node")
    except Local as exc:
        remote = pickle.loads(pack_error(exc))
    assert isinstance(remote, RemoteError)
    assert "Local: a bug on the node" in str(remote) and "test_cluster_options.py" in str(remote)


REASON = skip_reason()


@pytest.mark.slow
@pytest.mark.skipif(REASON is not None, reason=REASON or "")
def test_the_toy_on_a_local_cluster_k_lf_and_failures(contest):
    """Outcomes, the failure text, -k and --lf on local:2 as in one process (beta's !crash errors twice: an
    infrastructure error is pytest's ERROR)."""
    base = ["subs", "-p", "toy_problem.plugin", "--pcg-problem", "spell", "--pcg-cluster", "local:2"]
    proc = run_in_netns(base, contest.path)
    last = proc.stdout.splitlines()[-1]
    assert "6 passed" in last and "2 errors" in last and "failed" not in last, proc.stdout[-3000:]
    assert "infrastructure error in subs/beta::dog::1: beta dog trial 1: the speller crashed" in proc.stdout
    doc = json.loads(next((contest.path / "pcg-runs").glob("*/results.json")).read_text())
    assert [s["name"] for s in doc["submissions"]] == ["alpha", "beta"]
    proc = run_in_netns([*base, "--lf", "-k", "trial_1"], contest.path)
    last = proc.stdout.splitlines()[-1]
    assert "7 deselected" in last and "1 error" in last and "passed" not in last, proc.stdout[-3000:]
    assert "pcg cluster local:2: 2 trial actors, 1 trials run" in proc.stdout
