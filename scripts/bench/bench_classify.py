"""Images per second of a letter classifier on one CPU core (or a chosen device), at batch 1 and batch 32.

Images are 1024x1024 renders like the pipeline's (the glyph programs through
pcg_plugin.problems.science_birds.level.pipeline when it is importable, else drawn from the glyph cells), so the
processor's resize is part of what is timed.
Usage: python scripts/bench/bench_classify.py [--model ID_OR_PATH] [--threads 1] [--device cpu] [--images 64]
"""

from __future__ import annotations

import argparse
import time

from PIL import Image, ImageDraw

from pcg_plugin.problems.science_birds.classify import Classifier
from pcg_plugin.problems.science_birds.level import glyphs


def level_images(n: int) -> list[Image.Image]:
    """n black-on-white 1024 px block-letter images (cycling A..Z)."""
    out = []
    for k in range(n):
        cells = glyphs.built_cells(glyphs.LETTERS[k % 26], k // 26 % 4)
        im = Image.new("RGB", (1024, 1024), "white")
        d = ImageDraw.Draw(im)
        top, c0 = max(r for r, _ in cells), min(c for _, c in cells)
        s = 824 / max(top + 1, max(c for _, c in cells) - c0 + 1)
        for r, c in cells:
            d.rectangle((100 + (c - c0) * s, 100 + (top - r) * s, 100 + (c - c0 + 1) * s, 100 + (top - r + 1) * s), 0)
        out.append(im)
    return out


def rate(clf: Classifier, images: list[Image.Image], batch: int, repeats: int) -> float:
    clf.batch_size = batch
    clf.classify(images[:batch])  # warm-up
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        clf.classify(images)
        best = min(best, time.perf_counter() - t0)
    return len(images) / best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", default=None, help="hub id or folder; default: the embedded model")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 = one CPU core)")
    ap.add_argument("--images", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    clf = Classifier.load(args.model, device=args.device, threads=args.threads)
    images = level_images(args.images)
    print(f"model {clf.name} digest {clf.digest} device {clf.device} threads {args.threads}")
    print(f"params {sum(p.numel() for p in clf.model.parameters()):,}")
    for batch in (1, 32):
        print(
            f"batch {batch:>2}: {rate(clf, images, batch, args.repeats):8.1f} images/s "
            f"(1024 px input, best of {args.repeats})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
