"""Finished runs on disk, one JSON file each, so a killed experiment resumes where it stopped: a run is stored
when it finishes (atomically), and a stored run with the same parameters is read back instead of run again."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.problems.pcgbench.bench.registry import variant_name
from pcg_plugin.problems.pcgbench.experiment.run import RunSpec


class RunStore:
    """`<out>/runs/<variant>/p<population>-g<generations>-<spaces>/<generator>-<fitness>-s<seed>.json`."""

    def __init__(self, out: Path) -> None:
        self.root = Path(out) / "runs"

    def path(self, spec: RunSpec) -> Path:
        sizes = f"p{spec.population}-g{spec.generations}-{spec.spaces}"
        return self.root / variant_name(spec.variant) / sizes / f"{spec.name}.json"

    def load(self, spec: RunSpec) -> dict[str, Any] | None:
        """The stored record of `spec`, or None (not run yet, or stored by other parameters or another version)."""
        path = self.path(spec)
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        wanted = {**asdict(spec), "variant": variant_name(spec.variant)}
        return record if all(record.get(k) == v for k, v in wanted.items()) and "best" in record else None

    def save(self, record: dict[str, Any]) -> Path:
        spec = RunSpec(**{k: record[k] for k in RunSpec.__dataclass_fields__})
        return atomic_write(self.path(spec), json.dumps(record, separators=(",", ":")) + "\n")
