"""`pcg classify IMAGE...`: letter probabilities for level images, many images in one process, in batches."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pcg_plugin.problems.science_birds.letters import LETTERS

HELP = "classify level images as letters (default model: the embedded one; --model for the official ViT)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", type=Path, metavar="IMAGE", help="image files (PNG, JPEG, ...)")
    parser.add_argument(
        "--model",
        default=None,
        help="hub id or local model folder (official scores: pittawat/vit-base-uppercase-english-characters "
        "or a local copy of it); default: the embedded pcg-letters approximation",
    )
    parser.add_argument("--device", default="auto", help="auto (cuda, then mps, then cpu), cpu, cuda, cuda:1, mps")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--batch-size", type=int, default=32, help="images per forward pass")
    parser.add_argument("--json", action="store_true", help="one JSON object per image per line")
    parser.add_argument("--embedding", action="store_true", help="with --json, add the diversity embedding")


def _read(path: Path):
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            im.load()
            return im.copy()
    except (OSError, UnidentifiedImageError) as exc:
        return exc


def run(args: argparse.Namespace) -> int:
    from pcg_plugin.errors import PcgError
    from pcg_plugin.problems.science_birds.classify import Classifier

    try:
        clf = Classifier.load(args.model, device=args.device, threads=args.threads, batch_size=args.batch_size)
    except PcgError as exc:
        print(f"pcg classify: {exc}", file=sys.stderr)
        return 2
    status = 0
    paths: list[Path] = list(args.images)
    for start in range(0, len(paths), max(1, args.batch_size)):
        chunk = paths[start : start + args.batch_size]
        loaded = [(p, _read(p)) for p in chunk]
        good = [(p, im) for p, im in loaded if not isinstance(im, Exception)]
        for p, im in loaded:
            if isinstance(im, Exception):
                status = 1
                print(
                    f"pcg classify: cannot read {p}: {im} (an image that cannot be read scores similarity 0)",
                    file=sys.stderr,
                )
        results = clf.classify([im for _, im in good])
        for (p, _), res in zip(good, results, strict=True):
            if args.json:
                obj: dict[str, object] = {"image": str(p), "top": res.top, "probs": list(res.probs)}
                if args.embedding:
                    obj["embedding"] = list(res.embedding)
                print(json.dumps(obj))
            else:
                ranked = sorted(zip(res.probs, LETTERS, strict=True), reverse=True)[:3]
                print(f"{p}\t{res.top}\t" + " ".join(f"{c}={q:.3f}" for q, c in ranked))
        sys.stdout.flush()
    return status
