"""Who holds a trial in a cluster run's response store: a Ray task's attempt, not a process. The store actor
owns the file; a node lost mid-trial leaves a claim whose process is on a host the store cannot see, so the
lease alone would stall the retried trial for up to ``LEASE_S``."""

from __future__ import annotations

import fcntl
import os
import uuid

from pcg_plugin.errors import InfrastructureError
from pcg_plugin.llm.store import ResponseStore


def attempt_owner(run: str, attempt: int) -> str:
    """A claim's owner in a cluster run: the trial (the row's key) is implied, so the run and the attempt."""
    return f"ray:{run}:{attempt}:{uuid.uuid4().hex[:8]}"


def parse_owner(owner: str) -> tuple[str, int] | None:
    parts = owner.split(":")
    if len(parts) == 4 and parts[0] == "ray" and parts[2].isdigit():
        return parts[1], int(parts[2])
    return None


class ClusterStore(ResponseStore):
    """The store the store actor owns. A claim belongs to a Ray task attempt: a later attempt of the same trial
    takes it over at once (its earlier attempt died with its node, however long the lease), an earlier one never
    takes it back (its writes are refused: "lost the claim"), and a claim of another run is stale (the file is
    locked by one store actor at a time, so that run is gone)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(path)
        lock = self.path.with_name(self.path.name + ".cluster-lock")
        self._lock_file = open(lock, "w")  # noqa: SIM115 - held for the store's life: the lock goes with its process
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InfrastructureError(f"{self.path} is in use by another cluster run's store") from None

    def holder_busy(self, holder: str, me: str) -> bool:
        theirs, mine = parse_owner(holder), parse_owner(me)
        if theirs is None or mine is None:
            return super().holder_busy(holder, me)
        return theirs[0] == mine[0] and theirs[1] > mine[1]
