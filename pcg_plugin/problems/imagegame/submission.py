"""What a picture-game submission is: a folder holding ``imagegame.toml``.

- ``model = "..."`` (optional): the model that plays both roles (self-play, as clembench compares models);
  without it, the run's model (``--pcg-model``, or the backend's default).
- ``giver_prompt = "giver.txt"`` (optional): a prompt-engineering entry, a template that replaces the Giver's
  first message. Placeholders: ``<TARGET_GRID>`` (required: the target, 5 lines of 5 space-separated cells),
  ``<GRID_DIMENSION>`` ("5 by 5", as clembench fills its own header) and ``<QUESTION>`` ("What is your next
  command?"). Later Giver turns and the Follower keep clembench's standard prompts.
- ``giver_program = "giver.py"`` (optional, instead of ``giver_prompt``): a TrialLoop program run in the sandbox;
  ``run(ctx, target_grid)`` returns the Giver's first message. Its own ``chat_with_chatgpt`` calls go through the
  episode's response store before the Giver's first turn. It may import its own modules (from its folder and
  the submission folder) and what a ``requirements.txt`` installs (``pcg_plugin.sandbox.environments``, as for Science
  Birds programs).

A manifest with neither prompt nor program is a model entry: the standard prompts, both roles the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pcg_plugin._util.names import shown
from pcg_plugin.episode.manifest import ManifestSubmission, file_inside, files_hash, read_manifest
from pcg_plugin.errors import SubmissionError

MANIFEST = "imagegame.toml"
REQUIREMENTS = "requirements.txt"
TARGET_GRID = "<TARGET_GRID>"
GRID_DIMENSION = "<GRID_DIMENSION>"
QUESTION = "<QUESTION>"
FORMATS = ("imagegame_model", "imagegame_prompt", "imagegame_program")
_KEYS = {"name", "model", "giver_prompt", "giver_program"}


@dataclass(frozen=True)
class Submission(ManifestSubmission):
    """A picture-game entry: a model in self-play, or a Giver prompt or program."""

    prompt: str | None
    files_hash: str


def detect(path: Path) -> Submission | None:
    """The submission in ``path``, None when it holds no manifest; a SubmissionError says what is wrong and how
    to fix it (the harness shows it as one failing item, so the folder is never dropped in silence)."""
    found = read_manifest(path, MANIFEST, _KEYS, "giver_prompt", "giver_program")
    if found is None:
        return None
    manifest, data = found
    model = data.get("model")
    name = shown(data.get("name") or path.name)  # text: a folder name that is not UTF-8 shown escaped
    files, prompt, entry, fmt = [manifest], None, manifest, "imagegame_model"
    if "giver_prompt" in data:
        entry, fmt = file_inside(path, data["giver_prompt"], "giver_prompt", manifest), "imagegame_prompt"
        prompt = entry.read_text(encoding="utf-8")
        if TARGET_GRID not in prompt:
            raise SubmissionError(
                f"{entry}: the Giver's prompt never shows the target grid; put {TARGET_GRID} where "
                "it goes (placeholders: <TARGET_GRID>, <GRID_DIMENSION>, <QUESTION>)"
            )
        files.append(entry)
    elif "giver_program" in data:
        entry, fmt = file_inside(path, data["giver_program"], "giver_program", manifest), "imagegame_program"
        files.extend(sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts))
        files.extend(p for p in [path / REQUIREMENTS] if p.is_file())  # what the program runs with
    return Submission(str(name), path, entry, fmt, model.strip() if model else None, prompt, files_hash(files))


def fill_prompt(template: str, target_grid: str, dimension: int, question: str) -> str:
    """The participant's Giver prompt for one instance (plain replacement, no other escaping)."""
    return (
        template.replace(TARGET_GRID, target_grid)
        .replace(GRID_DIMENSION, f"{dimension} by {dimension}")
        .replace(QUESTION, question)
    )


def not_a_submission(path: Path) -> str:
    return (
        f"{path} holds no {MANIFEST} (and no folder below it does): a picture-game submission is a folder with "
        f'{MANIFEST}, e.g. model = "gpt-4o" or giver_prompt = "giver.txt"; see examples/imagegame/'
    )
