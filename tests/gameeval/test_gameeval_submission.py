"""gameeval.toml: model entries, models per role, a role's prompt or program; every mistake named."""

from __future__ import annotations

from pathlib import Path

import pytest

from pcg_plugin.errors import SubmissionError
from pcg_plugin.problems.gameeval.games import GAMES
from pcg_plugin.problems.gameeval.settings import resolve
from pcg_plugin.problems.gameeval.submission import detect

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gameeval"


def folder(tmp_path: Path, manifest: str, **files: str) -> Path:
    (tmp_path / "gameeval.toml").write_text(manifest)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    ("game", "kind", "fmt"),
    [
        ("askguess-easy", "askguess/selfplay", "gameeval_model"),
        ("askguess-hard", "askguess/questioner_prompt", "gameeval_prompt"),
        ("askguess-easy", "askguess/answerer_program", "gameeval_program"),
        ("spyfall", "spyfall/villager_prompt", "gameeval_prompt"),
        ("tofukingdom", "tofukingdom/prince_prompt", "gameeval_prompt"),
    ],
)
def test_examples_are_valid_submissions(game: str, kind: str, fmt: str) -> None:
    sub = detect(EXAMPLES / kind, GAMES[game])
    assert sub is not None and sub.format == fmt


def test_models_per_role(tmp_path: Path) -> None:
    sub = detect(folder(tmp_path, 'model = "a"\n[models]\nspy = "b"\n'), GAMES["spyfall"])
    assert sub is not None and (sub.model_for("spy"), sub.model_for("villager")) == ("b", "a")


@pytest.mark.parametrize(
    ("manifest", "files", "game", "match"),
    [
        ('[models]\nwizard = "x"\n', {}, "spyfall", "not SpyFall's"),
        ('role = "villager"\nprompt = "p.txt"\n', {"p.txt": "x"}, "askguess-easy", "role must name"),
        ('role = "questioner"\nprompt = "p.txt"\n', {"p.txt": "guess <<wrod>>"}, "askguess-easy", "<<wrod>>"),
        ('role = "Prince"\n', {}, "tofukingdom", "needs a prompt or a program"),
        ('prompt = "p.txt"\nprogram = "p.py"\n', {}, "spyfall", "not both"),
        ('colour = "red"\n', {}, "spyfall", "unknown key"),
        ("model = [\n", {}, "spyfall", "not TOML"),
        ('role = "spy"\nprompt = "../x.txt"\n', {}, "spyfall", "not a file inside"),
    ],
)
def test_mistakes_are_named(tmp_path: Path, manifest: str, files: dict, game: str, match: str) -> None:
    with pytest.raises(SubmissionError, match=match):
        detect(folder(tmp_path, manifest, **files), GAMES[game])


def test_settings_targets_and_offline_default(tmp_path: Path) -> None:
    s = resolve(
        GAMES["spyfall"],
        {"pcg_backend": "scripted", "pcg_gameeval_targets": "tiger&lion, ipad&iphone"},
        rootdir=tmp_path,
    )
    assert s.targets == ("ipad&iphone", "tiger&lion") and s.trials == 1
    assert len(resolve(GAMES["askguess-easy"], {"pcg_backend": "scripted"}, rootdir=tmp_path).targets) == 100
    assert resolve(GAMES["askguess-easy"], {"pcg_backend": "scripted"}, rootdir=tmp_path).trials == 20
    off = resolve(GAMES["tofukingdom"], {"pcg_backend": "offline"}, rootdir=tmp_path)
    assert off.targets == ("game/0",) and off.offline_default and off.notes
    with pytest.raises(ValueError, match="no word 'crab'"):
        resolve(GAMES["askguess-easy"], {"pcg_gameeval_targets": "crab"}, rootdir=tmp_path)
