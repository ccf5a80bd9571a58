"""The experiment's runs, each its own seeded unit: the plan (variant x generator x fitness x run, run r with seed
S + r), stored runs read back, the rest spread over worker processes and stored as each finishes, with a
progress line per run on stderr."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, TextIO

from pcg_plugin.problems.pcgbench.experiment.run import RunSpec, run_unit
from pcg_plugin.problems.pcgbench.experiment.store import RunStore

Record = dict[str, Any]


def plan(
    variants: Sequence[str],
    generators: Sequence[str],
    fitnesses: Sequence[str],
    runs: int,
    seed: int,
    population: int,
    generations: int,
    spaces: str = "reference",
) -> list[RunSpec]:
    """Every run, variant by variant, then generator, fitness and run (run r uses seed + r)."""
    return [
        RunSpec(v, g, f, seed + r, population, generations, spaces)
        for v in variants
        for g in generators
        for f in fitnesses
        for r in range(runs)
    ]


class Progress:
    """One line per finished run: `[k/N] variant generator fitness seed: best ... (seconds)`."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total, self.done, self.stream, self.start = total, 0, stream or sys.stderr, time.perf_counter()

    def __call__(self, record: Record, stored: bool) -> None:
        self.done += 1
        how = "stored" if stored else f"{record['seconds']:.1f} s"
        elapsed = time.perf_counter() - self.start
        print(
            f"[{self.done}/{self.total}] {record['variant']} {record['generator']} {record['fitness']} "
            f"seed {record['seed']}: best {record['best'][-1]:.3f} ({how}; {elapsed:.0f} s elapsed)",
            file=self.stream,
            flush=True,
        )


def execute(
    specs: Sequence[RunSpec],
    store: RunStore,
    jobs: int,
    done: Callable[[Record, bool], None] | None = None,
    cluster: str | None = None,
) -> Iterator[Record]:
    """Every run's record, in the order of `specs` (each yielded once it and all before it are finished);
    stored runs are read back, the others run on `jobs` processes (1: in this process), or as tasks on the Ray
    cluster at `cluster`, and stored as each comes back."""
    records: dict[int, Record] = {}
    todo = []
    for i, spec in enumerate(specs):
        found = store.load(spec)
        if found is None:
            todo.append(i)
        else:
            records[i] = found
            if done:
                done(found, True)
    next_out = 0

    def finished(i: int, record: Record) -> Iterator[Record]:
        nonlocal next_out
        store.save(record)
        records[i] = record
        if done:
            done(record, False)
        while next_out in records:
            yield records[next_out]
            next_out += 1

    while next_out in records:
        yield records[next_out]
        next_out += 1
    if cluster is None and (jobs <= 1 or len(todo) <= 1):
        for i in todo:
            yield from finished(i, run_unit(specs[i]))
        return
    if not todo:
        return
    with _spread(jobs, len(todo), cluster) as submit:
        pending: dict[Future[Record], int] = {submit(specs[i]): i for i in todo}
        while pending:
            ready, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in ready:
                yield from finished(pending.pop(future), future.result())


@contextlib.contextmanager
def _spread(jobs: int, count: int, cluster: str | None) -> Iterator[Callable[[RunSpec], Future[Record]]]:
    """Where the runs go: a Ray cluster (``cluster``: its address), else ``jobs`` processes of this machine."""
    if cluster is not None:
        from pcg_plugin.problems.pcgbench.experiment.on_ray import ray_submit  # Ray only when asked for

        with ray_submit(cluster) as submit:
            yield submit
        return
    with ProcessPoolExecutor(max_workers=min(jobs, count)) as pool:
        yield lambda spec: pool.submit(run_unit, spec)
