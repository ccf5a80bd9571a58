"""A cluster run's claims (``cluster.claims.ClusterStore``): a trial is held by a Ray task's attempt, so a retry
after a lost node takes it over at once, the lost attempt can no longer write, and one file has one owner."""

from __future__ import annotations

import pytest

from pcg_plugin.cluster.claims import ClusterStore, attempt_owner
from pcg_plugin.errors import InfrastructureError
from pcg_plugin.llm.store import RecordedCall, TrialKey

KEY = TrialKey("2024", "gpt", "team", "hash", "A", 1)


def call(idx: int) -> RecordedCall:
    return RecordedCall(idx, "h", {"messages": []}, ["answer"], 1, 1, 0.0, 0.1)


def test_a_retry_takes_the_claim_of_its_lost_attempt_at_once(tmp_path):
    store = ClusterStore(tmp_path)
    first = store.claim(KEY, wait=0, owner=attempt_owner("run1", 1))
    store.record_call(KEY, first, call(0))
    second = store.claim(KEY, wait=0, owner=attempt_owner("run1", 2))  # no wait for the 900 s lease
    assert [c.idx for c in store.load(KEY).calls] == [0]  # what the lost attempt paid is replayed, not paid again
    with pytest.raises(InfrastructureError, match="lost the claim"):
        store.record_call(KEY, first, call(1))  # the lost attempt, if it still runs somewhere, writes nothing
    store.record_call(KEY, second, call(1))
    with pytest.raises(InfrastructureError, match="is held by"):
        store.claim(KEY, wait=0, owner=attempt_owner("run1", 1))  # an older attempt never takes it back


def test_a_claim_of_an_earlier_run_is_stale_and_a_plain_process_keeps_its_rule(tmp_path):
    store = ClusterStore(tmp_path)
    store.claim(KEY, wait=0, owner=attempt_owner("killed-driver", 3))
    assert store.claim(KEY, wait=0, owner=attempt_owner("rerun", 1)).startswith("ray:rerun:1:")
    other = TrialKey("2024", "gpt", "team", "hash", "B", 1)
    store.claim(other, wait=0)  # this live process (pytest -n 0 on the head), by pid
    with pytest.raises(InfrastructureError, match="is held by"):
        _claim_as_other_pid(store, other)


def _claim_as_other_pid(store: ClusterStore, key: TrialKey) -> None:
    """A live process on this host holds ``key``: a cluster attempt waits for it like any process would."""
    import os
    import subprocess
    import sys

    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with store._tx() as db:
            db.execute("UPDATE trials SET owner=? WHERE key_id=?", (f"{os.uname().nodename}:{holder.pid}:x", key.id))
        store.claim(key, wait=0, owner=attempt_owner("rerun", 1))
    finally:
        holder.kill()
        holder.wait()


def test_one_file_one_cluster_store(tmp_path):
    """A second run's store actor (another process) on the same file is refused, not interleaved."""
    import subprocess
    import sys

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pcg_plugin.cluster.claims import "
            f"ClusterStore; s = ClusterStore({str(tmp_path)!r}); print('ready', flush=True); "
            "time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(InfrastructureError, match="in use by another cluster run"):
            ClusterStore(tmp_path)
    finally:
        holder.kill()
        holder.wait()
    ClusterStore(tmp_path)  # its process is gone: the lock with it
