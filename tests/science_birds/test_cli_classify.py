"""`pcg classify`: JSON lines per image, plain text, unreadable images and bad models reported, not crashed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from tiny_vit import save_tiny_vit  # tests/ is on sys.path (rootdir conftest, prepend import mode)

from pcg_plugin.cli import main
from pcg_plugin.problems.science_birds.classify import LETTERS


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_vit(tmp_path_factory.mktemp("clivit"), list(LETTERS))


def _images(folder: Path, n: int) -> list[Path]:
    paths = []
    for i in range(n):
        im = Image.new("RGB", (120, 120), "white")
        ImageDraw.Draw(im).rectangle((10 + i * 5, 10, 60, 100 - i * 3), fill="black")
        path = folder / f"img{i}.png"
        im.save(path)
        paths.append(path)
    return paths


def test_json_lines_one_per_image_in_order(tmp_path: Path, model_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = _images(tmp_path, 5)
    rc = main(
        ["classify", *map(str, paths), "--model", str(model_dir), "--device", "cpu", "--json", "--batch-size", "2"]
    )
    assert rc == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["image"] for r in rows] == [str(p) for p in paths]
    for r in rows:
        assert len(r["probs"]) == 26 and math.isclose(sum(r["probs"]), 1.0, rel_tol=1e-5)
        assert r["top"] == LETTERS[max(range(26), key=r["probs"].__getitem__)]
        assert "embedding" not in r


def test_embedding_on_request_and_text_mode(
    tmp_path: Path, model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (path,) = _images(tmp_path, 1)
    assert main(["classify", str(path), "--model", str(model_dir), "--json", "--embedding"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert len(row["embedding"]) == 16
    assert main(["classify", str(path), "--model", str(model_dir)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{path}\t") and line.split("\t")[1] in LETTERS


def test_unreadable_image_is_reported_others_still_classified(
    tmp_path: Path, model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _images(tmp_path, 2)
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"not a png")
    rc = main(
        [
            "classify",
            str(good[0]),
            str(bad),
            str(tmp_path / "missing.png"),
            str(good[1]),
            "--model",
            str(model_dir),
            "--json",
        ]
    )
    out = capsys.readouterr()
    assert rc == 1
    assert [json.loads(x)["image"] for x in out.out.splitlines()] == [str(good[0]), str(good[1])]
    assert "broken.png" in out.err and "missing.png" in out.err


def test_unloadable_model_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (path,) = _images(tmp_path, 1)
    assert main(["classify", str(path), "--model", str(tmp_path / "no-model")]) == 2
    assert "could not load classifier" in capsys.readouterr().err
