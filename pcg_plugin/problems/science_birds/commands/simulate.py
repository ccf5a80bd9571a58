"""`pcg simulate LEVEL.xml...`: the stability test (and optionally the OCR image) for many levels in one process."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "run the Science Birds stability test on levels and optionally export their images"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("levels", nargs="+", help="level XML files (- reads one level from stdin)")
    parser.add_argument("--image-dir", help="write DIR/<level basename>.png for each level with blocks")
    parser.add_argument("--json", action="store_true", help="one JSON object per level per line")
    parser.add_argument("--damage", action="store_true", help="enable block damage/destruction (not default)")
    parser.add_argument(
        "--settle-time",
        type=float,
        default=None,
        metavar="S",
        help="stop once every block has rested S seconds (default 0.6; 0 runs all 500 steps)",
    )


def run(args: argparse.Namespace) -> int:
    from pcg_plugin._util.inputs import read_input
    from pcg_plugin.errors import PcgError
    from pcg_plugin.problems.science_birds.level.levelxml import parse_level
    from pcg_plugin.problems.science_birds.level.physics import PhysicsSettings
    from pcg_plugin.problems.science_birds.level.pipeline import evaluate_level

    settings = (
        PhysicsSettings(damage=args.damage)
        if args.settle_time is None
        else PhysicsSettings(damage=args.damage, settle_time=max(0.0, args.settle_time))
    )
    image_dir = Path(args.image_dir) if args.image_dir else None
    if image_dir:
        image_dir.mkdir(parents=True, exist_ok=True)
    status = 0
    for name in args.levels:
        try:
            ev = evaluate_level(parse_level(read_input(name)), settings)
        except (OSError, PcgError) as exc:
            message = getattr(exc, "strerror", None) or str(exc)
            print(f"pcg simulate: {name}: {message} (the level scores 0)", file=sys.stderr)
            if args.json:
                print(json.dumps({"level": name, "error": message}), flush=True)
            status = 1
            continue
        image_path = None
        if image_dir and ev.image is not None:
            stem = "stdin" if name == "-" else Path(name).stem
            image_path = str(image_dir / f"{stem}.png")
            ev.image.save(image_path)
        row = {
            "level": name,
            "total_blocks": ev.total_blocks,
            "moving_blocks": ev.moving_blocks,
            "stability": ev.stability,
            "image": image_path,
            "settings": settings.digest(),
        }
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(f"{name}: {ev.moving_blocks}/{ev.total_blocks} moving, stability {ev.stability:.4f}", flush=True)
    return status
