"""What a picture-game submission is (imagegame.toml) and what a folder that cannot be one is told."""

from __future__ import annotations

from pathlib import Path

import pytest

from pcg_plugin.errors import SubmissionError
from pcg_plugin.problems.imagegame.submission import detect, fill_prompt


def folder(tmp_path: Path, manifest: str | None, **files: str) -> Path:
    path = tmp_path / "team"
    path.mkdir()
    if manifest is not None:
        (path / "imagegame.toml").write_text(manifest)
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def test_a_folder_without_manifest_is_nobodys_submission(tmp_path) -> None:
    assert detect(folder(tmp_path, None, **{"giver.txt": "<TARGET_GRID>"})) is None


def test_the_three_kinds(tmp_path) -> None:
    model = detect(folder(tmp_path, 'model = "gpt-4o"\n'))
    assert (model.format, model.model, model.prompt, model.name) == ("imagegame_model", "gpt-4o", None, "team")
    (tmp_path / "team" / "imagegame.toml").write_text('giver_prompt = "g.txt"\nname = "Team A"\n')
    (tmp_path / "team" / "g.txt").write_text("Draw <TARGET_GRID>")
    prompt = detect(tmp_path / "team")
    assert (prompt.format, prompt.model, prompt.prompt, prompt.name) == (
        "imagegame_prompt",
        None,
        "Draw <TARGET_GRID>",
        "Team A",
    )
    (tmp_path / "team" / "imagegame.toml").write_text('giver_program = "g.py"\n')
    (tmp_path / "team" / "g.py").write_text("# program\n")
    program = detect(tmp_path / "team")
    assert (program.format, program.program) == ("imagegame_program", (tmp_path / "team" / "g.py").resolve())


def test_the_identity_follows_the_files(tmp_path) -> None:
    path = folder(tmp_path, 'giver_prompt = "g.txt"\n', **{"g.txt": "A <TARGET_GRID>"})
    before = detect(path).files_hash
    (path / "g.txt").write_text("B <TARGET_GRID>")
    assert detect(path).files_hash != before


@pytest.mark.parametrize(
    ("manifest", "files", "message"),
    [
        ("model = ", {}, "is not TOML"),
        ('modle = "x"\n', {}, "unknown key(s) modle"),
        ('model = ""\n', {}, "model must be a model name"),
        ('giver_prompt = "g.txt"\ngiver_program = "g.py"\n', {}, "not both"),
        ('giver_prompt = "missing.txt"\n', {}, "is not a file inside"),
        ('giver_prompt = "../outside.txt"\n', {}, "is not a file inside"),
        ('giver_prompt = "g.txt"\n', {"g.txt": "describe the grid"}, "never shows the target grid; put <TARGET_GRID>"),
    ],
)
def test_a_manifest_that_cannot_be_evaluated_says_why(tmp_path, manifest, files, message) -> None:
    (tmp_path / "outside.txt").write_text("<TARGET_GRID>")
    with pytest.raises(SubmissionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        detect(folder(tmp_path, manifest, **files))


def test_placeholders_are_filled() -> None:
    text = fill_prompt("<GRID_DIMENSION>:\n<TARGET_GRID>\n<QUESTION>", "A ▢\n▢ A", 5, "Next?")
    assert text == "5 by 5:\nA ▢\n▢ A\nNext?"


def test_a_programs_identity_follows_its_requirements(tmp_path) -> None:
    path = folder(tmp_path, 'giver_program = "src/g.py"\n', **{"requirements.txt": "numpy==2.0\n"})
    (path / "src").mkdir()
    (path / "src" / "g.py").write_text("# program\n")
    before = detect(path).files_hash
    (path / "notes.txt").write_text("stray files are not the submission")
    assert detect(path).files_hash == before
    (path / "requirements.txt").write_text("numpy==2.1\n")
    assert detect(path).files_hash != before
