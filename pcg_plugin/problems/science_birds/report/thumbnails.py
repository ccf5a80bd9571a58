"""Small PNG thumbnails beside report.html, so the report of a 2,600-trial run stays a few MB and loads lazily.

A trial's image ``<team>/images/<C>/<stem>.png`` (1024x1024) gets ``thumbs/<team>/images/<C>/<stem>.png``
(128x128, 4 grey levels, about 0.5 KB): relative paths, so a copied run folder keeps its report working.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_save

THUMBS_DIR = "thumbs"
REDUCE = 8  # 1024 px -> 128 px (box average)
GREYS = 4  # palette size: the image is black on white, so 4 greys keep the anti-aliased edge


def thumbnail_rel(image_rel: str) -> str:
    """The thumbnail's path relative to the run folder (and to report.html)."""
    return f"{THUMBS_DIR}/{image_rel}"


def make_thumbnail(image: Any) -> Any:
    """A 128 px, 4-grey version of a level image (PIL in, PIL out)."""
    return image.convert("L").reduce(REDUCE).quantize(GREYS)


def write_thumbnail(run_dir: Path, image_rel: str, image: Any | None = None) -> Path | None:
    """Write the thumbnail of ``image_rel`` (from ``image`` when given, else read from disk); None when the
    image cannot be read (the report then shows the full image)."""
    target = Path(run_dir) / thumbnail_rel(image_rel)
    if image is None:
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(Path(run_dir) / image_rel) as img:
                small = make_thumbnail(img)
        except (OSError, UnidentifiedImageError, ValueError):
            return None
    else:
        small = make_thumbnail(image)
    return atomic_save(target, lambda tmp: small.save(tmp, format="PNG", optimize=True))


def ensure_thumbnail(run_dir: Path, image_rel: str) -> str | None:
    """The thumbnail's relative path, writing it first if a worker did not (older run folders)."""
    if (Path(run_dir) / thumbnail_rel(image_rel)).is_file():
        return thumbnail_rel(image_rel)
    return thumbnail_rel(image_rel) if write_thumbnail(run_dir, image_rel) is not None else None
