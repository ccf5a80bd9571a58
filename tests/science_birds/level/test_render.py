"""OCR image export: geometry of the official capture, and agreement with Unity's PNGs."""

from __future__ import annotations

import json

import numpy as np
from PIL import Image

from pcg_plugin.problems.science_birds.level.levelxml import parse_level
from pcg_plugin.problems.science_birds.level.physics import simulate
from pcg_plugin.problems.science_birds.level.render import black_mask, iou, render_level
from pcg_plugin.problems.science_birds.level.types import Block, Level


def test_empty_level_has_no_image() -> None:
    assert render_level(Level(())) is None


def test_single_b31_band_matches_unity() -> None:
    """The core AABB (0.70 wide) spans 824 px; the 0.24-tall sprite is 0.24*824/0.70 = 283 px tall."""
    image = render_level(Level((Block("RectSmall", "wood", 2.36015, -3.37995, 0),)))
    assert image.size == (1024, 1024)
    mask = black_mask(image)
    rows, cols = np.nonzero(mask)
    assert cols.min() == 100 and cols.max() == 923  # clipped at the 824 px region
    assert rows.max() - rows.min() + 1 in (282, 283, 284)
    assert set(np.unique(np.asarray(image))) <= {0, 255}
    assert not mask[:100].any() and not mask[-100:].any()


def test_rotated_block_is_drawn_rotated() -> None:
    image = render_level(Level((Block("RectSmall", "wood", 0, 0, 90),)))
    rows, cols = np.nonzero(black_mask(image))
    assert rows.max() - rows.min() + 1 == 824 and cols.max() - cols.min() + 1 < 300


def test_stable_calibration_images_match_unity(reference) -> None:
    root = reference / "unity-2023-calibration"
    scores = []
    for stability in sorted(root.glob("*/stability/*.json")):
        for raw in json.loads(stability.read_text())["raws"]:
            if raw["score"] < 1.0:
                continue
            path = root.joinpath(*raw["tag"].split("\\")[1:])
            ours = render_level(simulate(parse_level(path.read_text())).final_level)
            unity = Image.open(str(path).replace("/levels/", "/images/").replace(".xml", ".png"))
            scores.append(iou(ours, unity))
    assert len(scores) == 47
    assert min(scores) > 0.97
    assert sum(scores) / len(scores) > 0.995


def test_the_written_png_is_the_rendered_picture_in_rgb(tmp_path) -> None:
    """The image is written greyscale; read back as every reader does (``convert("RGB")``) it is the picture."""
    from pcg_plugin.problems.science_birds.outputs import write_image

    image = render_level(Level((Block("RectSmall", "wood", 0, 0, 30), Block("SquareHole", "ice", 1, 0, 0))))
    path = write_image(tmp_path, "t/images/A/t_A_1.png", image)
    with Image.open(path) as back:
        assert back.mode == "L"
        assert back.convert("RGB").tobytes() == image.convert("RGB").tobytes()
    assert set(np.unique(np.asarray(image.convert("RGB")))) == {0, 255}
