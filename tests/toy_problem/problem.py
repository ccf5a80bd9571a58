"""Toy problem "spell": two targets (the words ``cat`` and ``dog``); a submission is a folder holding
``spell.json``, ``{"cat": "...", "dog": "..."}``, the participant's spelling of each word. A trial scores the
share of letters spelt right in place; a word the file lacks scores 0 with the official reason ``no_answer``;
the answer ``!crash`` raises, to show how an infrastructure failure travels. Ranking: mean score, highest first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.contract.base import BaseProblem, Finished, WorkerStats
from pcg_plugin.core.contract.problem import SETTINGS_KEY
from pcg_plugin.core.records import calls
from pcg_plugin.errors import InfrastructureError, SubmissionError

TARGETS = ("cat", "dog")
TRIALS = 2
MANIFEST = "spell.json"


@dataclass(frozen=True)
class SpellSettings:
    out: Path | None = None
    trials: int = TRIALS
    targets: tuple[str, ...] = TARGETS
    models: tuple[str, ...] = ()
    multi_model: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"out": str(self.out) if self.out else None, "trials": self.trials, "targets": list(self.targets)}


@dataclass(frozen=True)
class SpellSubmission:
    name: str
    path: Path
    entry: Path
    answers: Mapping[str, str]
    format: str = "spelling"


@dataclass(frozen=True)
class SpellRecord:
    nodeid: str
    submission: str
    target: str
    trial: int
    score: float
    reason: str | None = None
    model: str | None = None
    answer: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def spelling_score(answer: str, word: str) -> float:
    """Share of the word's letters spelt right in place."""
    # an answer of another length: only the places both have are compared, the word's others count as wrong
    return sum(a == b for a, b in zip(answer, word, strict=False)) / len(word)


class Spell(BaseProblem):
    name = "spell"
    target_label = "word"

    def configure(self, config: pytest.Config) -> SpellSettings:
        return SpellSettings()

    def settings_from_dict(self, data: Mapping[str, Any]) -> SpellSettings:
        return SpellSettings(
            out=Path(data["out"]) if data["out"] else None, trials=data["trials"], targets=tuple(data["targets"])
        )

    def detect_folder(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> SpellSubmission | None:
        manifest = path / MANIFEST
        if not manifest.is_file():
            return None
        try:
            answers = json.loads(manifest.read_text())
        except ValueError as exc:
            raise SubmissionError(f'{manifest} is not JSON ({exc}); write {{"cat": ..., "dog": ...}}') from None
        return SpellSubmission(name=path.name, path=path, entry=manifest, answers=answers)

    def run_trial(
        self, config: pytest.Config, sub: SpellSubmission, target: str, trial: int, nodeid: str, model: str | None
    ) -> SpellRecord:
        answer = sub.answers.get(target)
        if answer == "!crash":
            raise InfrastructureError(f"{sub.name} {target} trial {trial}: the speller crashed")
        if answer is None:
            return SpellRecord(nodeid, sub.name, target, trial, 0.0, reason="no_answer")
        # the speller answers as a model would: its call goes into the trial's transcript
        calls.note(
            calls.Call(
                [{"role": "user", "content": f"Spell {target}."}],
                answer,
                3,
                len(answer),
                0.01,
                replayed=False,
                model="toy-speller",
            )
        )
        return SpellRecord(nodeid, sub.name, target, trial, spelling_score(answer, target), answer=answer)

    def trial_score(self, record: SpellRecord) -> float:
        return record.score

    def trial_states(self, record: SpellRecord) -> list[dict[str, Any]]:
        return [{"title": "spelt, letter by letter", "grid": [list(record.answer), list(record.target)]}]

    def describe(self, record: SpellRecord) -> str:
        return f"score 0: {record.reason}" if record.reason else "scored"

    def record_from_json(self, text: str) -> SpellRecord:
        return SpellRecord(**json.loads(text))

    def finish_run(
        self, config: pytest.Config, run: Mapping[str, Any], collected: Any, worker_stats: WorkerStats
    ) -> Finished:
        names = sorted({m["name"] for m in collected.items.values()})
        scores = {n: [r.score for r in collected.records.values() if r.submission == n] for n in names}
        settings = config.stash[SETTINGS_KEY]
        means = {n: sum(s) / (len(settings.targets) * settings.trials) for n, s in scores.items()}  # errors: 0
        ranking = sorted(names, key=lambda n: (-means[n], n))
        doc = {
            "problem": self.name,
            "submissions": [{"name": n, "score": means[n], "rank": i + 1} for i, n in enumerate(ranking)],
            "errors": dict(sorted(collected.errors.items())),
            "folder_errors": dict(sorted(collected.folder_problems.items())),
        }
        run_dir = Path(run["run_dir"])
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "results.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        rows = "".join(f"<tr><td>{s['rank']}<td>{s['name']}<td>{s['score']:.3f}" for s in doc["submissions"])
        report = run_dir / "report.html"
        report.write_text(
            f'<!doctype html><title>spell</title><body><table class="pcg-sort"><tr><th>rank<th>name'
            f"<th>score{rows}</table></body>"
        )
        return doc, report

    def summary_lines(
        self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None
    ) -> list[str]:
        if results is None:
            return super().summary_lines(results, run_dir, report, error)
        return [f"{s['rank']}. {s['name']} {s['score']:.3f}" for s in results["submissions"]]
