"""What a GameEval submission is: a folder holding ``gameeval.toml``.

- ``model = "..."`` (optional): the model of every role not named in ``[models]``; without it, the run's
  model (``--pcg-model``, or the backend's default).
- ``[models]`` (optional): self-play with a model per role, as the reference pits models against each other:
  Ask-Guess ``answerer``/``questioner``; SpyFall ``spy``/``villager``; TofuKingdom the camps ``prince``
  (Prince, Princess, Chef), ``queen`` (Queen, Guard, Minister), ``spy`` (Spy, Maid).
- ``role`` with ``prompt = "file.txt"``: a prompt-engineering entry; the text replaces that role's prompt
  (Ask-Guess: the role's system prompt; SpyFall ``spy``/``villager``: the game prompt opening every call;
  TofuKingdom ``Prince`` or a role name: its role prompt). Placeholders ``<<word>>`` (Ask-Guess),
  ``<<name>>``/``<<phrase>>`` (SpyFall), ``<<name>>`` (TofuKingdom players).
- ``role`` with ``program = "file.py"``: a TrialLoop program run in the sandbox; ``run(ctx, target)`` returns
  that role's prompt (the same placeholders), given the role's view of the episode (the answerer's word, a
  SpyFall player's word, a TofuKingdom player's identities list; empty for roles that know nothing). Its own
  chat calls go through the episode's response store before the game's first call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pcg_plugin._util.names import shown
from pcg_plugin.episode.manifest import ManifestSubmission, file_inside, files_hash, read_manifest
from pcg_plugin.errors import SubmissionError
from pcg_plugin.problems.gameeval.games import Game

MANIFEST = "gameeval.toml"
REQUIREMENTS = "requirements.txt"
FORMATS = ("gameeval_model", "gameeval_prompt", "gameeval_program")
_KEYS = {"name", "model", "models", "role", "prompt", "program"}
_SLOT = re.compile(r"<<(\w+)>>")


@dataclass(frozen=True)
class Submission(ManifestSubmission):
    """A GameEval entry: a model in self-play (``[models]`` may give roles their own), or a prompt or program
    for one ``role``."""

    models: Mapping[str, str] = field(default_factory=dict)
    role: str | None = None
    prompt: str | None = None
    files_hash: str = ""

    def model_for(self, model_role: str) -> str | None:
        return self.models.get(model_role, self.model)


def check_slots(text: str, game: Game, where: str) -> None:
    unknown = sorted(set(_SLOT.findall(text)) - set(game.slots))
    if unknown:
        raise SubmissionError(
            f"{where}: unknown placeholder(s) {', '.join('<<' + u + '>>' for u in unknown)} "
            f"({game.title} knows {', '.join('<<' + s + '>>' for s in game.slots)})"
        )


def detect(path: Path, game: Game) -> Submission | None:
    """The submission in ``path``, None when it holds no manifest; a SubmissionError says what is wrong."""
    found = read_manifest(path, MANIFEST, _KEYS, "prompt", "program")
    if found is None:
        return None
    manifest, data = found
    model = data.get("model")
    models = data.get("models", {})
    if not isinstance(models, dict) or not all(isinstance(v, str) and v.strip() for v in models.values()):
        raise SubmissionError(f"{manifest}: [models] maps roles to model names, got {models!r}")
    bad = sorted(set(models) - set(game.model_roles))
    if bad:
        raise SubmissionError(
            f"{manifest}: [models] role(s) {', '.join(bad)} are not {game.title}'s "
            f"(its roles: {', '.join(game.model_roles)})"
        )
    role = data.get("role")
    entry, fmt, prompt, files = manifest, "gameeval_model", None, [manifest]
    if "prompt" in data or "program" in data:
        if role not in game.prompt_roles:
            raise SubmissionError(
                f"{manifest}: role must name whose prompt this replaces, one of "
                f"{', '.join(game.prompt_roles)}; got {role!r}"
            )
        if "prompt" in data:
            entry, fmt = file_inside(path, data["prompt"], "prompt", manifest), "gameeval_prompt"
            prompt = entry.read_text(encoding="utf-8")
            check_slots(prompt, game, str(entry))
            files.append(entry)
        else:
            entry, fmt = file_inside(path, data["program"], "program", manifest), "gameeval_program"
            files.extend(sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts))
            files.extend(p for p in [path / REQUIREMENTS] if p.is_file())
    elif role is not None:
        raise SubmissionError(f"{manifest}: role = {role!r} needs a prompt or a program for that role")
    name = shown(data.get("name") or path.name)  # text: a folder name that is not UTF-8 shown escaped
    return Submission(
        str(name),
        path,
        entry,
        fmt,
        model.strip() if model else None,
        {k: v.strip() for k, v in models.items()},
        role,
        prompt,
        files_hash(files),
    )


def not_a_submission(path: Path) -> str:
    return (
        f"{path} holds no {MANIFEST} (and no folder below it does): a GameEval submission is a folder with "
        f'{MANIFEST}, e.g. model = "gpt-4o", or role = "questioner" and prompt = "q.txt"; see '
        "examples/gameeval/"
    )
