"""The episode problems' shared manifest reader: each refusal names the file and what to fix."""

from __future__ import annotations

import pytest

from pcg_plugin.episode.manifest import read_manifest
from pcg_plugin.errors import SubmissionError

KEYS = {"name", "model", "prompt", "program"}


def _read(tmp_path, text: str | None):  # type: ignore[no-untyped-def]
    if text is not None:
        (tmp_path / "game.toml").write_text(text, encoding="utf-8")
    return read_manifest(tmp_path, "game.toml", KEYS, "prompt", "program")


def test_no_manifest_is_no_submission(tmp_path) -> None:
    assert _read(tmp_path, None) is None


def test_a_valid_manifest_comes_back_with_its_path(tmp_path) -> None:
    manifest, data = _read(tmp_path, 'model = "gpt-4o"\nprompt = "p.txt"\n')
    assert manifest == tmp_path / "game.toml" and data == {"model": "gpt-4o", "prompt": "p.txt"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("model = ", "is not TOML"),
        ('modle = "x"', "unknown key(s) modle (known: model, name, program, prompt)"),
        ('prompt = "a"\nprogram = "b"', "give prompt or program, not both"),
        ("model = 3", "model must be a model name, got 3"),
        ('model = "  "', "model must be a model name"),
    ],
)
def test_each_refusal_names_the_file_and_the_fix(tmp_path, text: str, message: str) -> None:
    with pytest.raises(SubmissionError, match=r"game\.toml") as info:
        _read(tmp_path, text)
    assert message in str(info.value)


def test_a_file_that_is_not_utf8_is_not_toml(tmp_path) -> None:
    (tmp_path / "game.toml").write_bytes(b'model = "\xff"')
    with pytest.raises(SubmissionError, match="is not TOML"):
        read_manifest(tmp_path, "game.toml", KEYS, "prompt", "program")
