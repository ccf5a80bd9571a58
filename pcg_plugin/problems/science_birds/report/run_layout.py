"""A pytest-pcg run folder read as the official scorer's input.

A run folder holds the official layout and more: ``thumbs/`` (the report's images), ``report.html``,
``results.json``, the classifier service's files, and with several models one official tree per model. The
official scorer counts every sub-folder as a program; on a run folder that would add programs that never ran
(a team ``thumbs`` scored 0, changing every weight). Here the programs are the submissions the run's own
results.json names, and the settings it scored with are the defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pcg_plugin.problems.science_birds import results
from pcg_plugin.problems.science_birds.report.official_layout import model_folders


@dataclass(frozen=True)
class RunFolder:
    """What a run's results.json says about scoring it again: which folders are programs and how it scored."""

    names: tuple[str, ...]  # the submissions, each a folder of the official layout (absent = no files, all 0)
    edition: str
    letters: tuple[str, ...]
    trials: int
    disable_weights: bool
    tie_break: str | None
    prompt_lengths: Mapping[str, int]
    models: Mapping[str, str] | None  # several models: model -> its official tree's folder; else None


def is_run_folder(src: Path) -> bool:
    return (Path(src) / results.FILE).is_file()


def read_run_folder(src: Path) -> RunFolder:
    """The run's programs and scoring settings from its results.json (a ResultsError when unreadable)."""
    doc = results.read(Path(src))
    settings = doc.settings
    weights = doc.weights or next((m.weights for m in (doc.per_model or {}).values()), {})
    letters = tuple(sorted(weights)) or tuple(settings.letters or ())  # the letters the run scored (-k may cut)
    names = tuple(sorted({s.name for s in doc.submissions if s.name}))  # the order the run scored them in
    return RunFolder(
        names=names,
        edition=settings.edition or "2024",
        letters=letters,
        trials=settings.trials or 10,
        disable_weights=bool(settings.disable_weights),
        tie_break=settings.tie_break,
        prompt_lengths={s.name: s.prompt_length for s in doc.submissions if s.name and s.prompt_length is not None},
        models=model_folders(list(doc.per_model)) if doc.per_model else None,
    )
