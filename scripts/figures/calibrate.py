"""Calibration report: our stability test and image against the Unity evaluator on tests/data/unity-2023-calibration.

Usage: python scripts/figures/calibrate.py [--damage] [--json] [--verbose]
Prints how many levels get Unity's stable/unstable verdict, how many get the exact movingObjects, and the mean pixel
IoU of our image against Unity's PNG (stable levels, and all).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
CALIBRATION = ROOT / "tests" / "data" / "unity-2023-calibration"  # its SOURCE.md: where it comes from
sys.path.insert(0, str(ROOT))

from pcg_plugin.problems.science_birds.level.levelxml import parse_level  # noqa: E402 - this checkout's pcg_plugin, on sys.path above
from pcg_plugin.problems.science_birds.level.physics import PhysicsSettings  # noqa: E402 - this checkout's pcg_plugin, on sys.path above
from pcg_plugin.problems.science_birds.level.pipeline import evaluate_level  # noqa: E402 - this checkout's pcg_plugin, on sys.path above
from pcg_plugin.problems.science_birds.level.render import iou  # noqa: E402 - this checkout's pcg_plugin, on sys.path above


def calibration_rows(root: Path, settings: PhysicsSettings) -> list[dict]:
    """One row per Unity-scored level: Unity's numbers, ours, and the image IoU."""
    rows = []
    for stability in sorted(root.glob("*/stability/*.json")):
        for raw in json.loads(stability.read_text())["raws"]:
            path = root.joinpath(*raw["tag"].split("\\")[1:])
            ev = evaluate_level(parse_level(path.read_text()), settings)
            png = path.parent.parent.parent / "images" / path.parent.name / (path.stem + ".png")
            rows.append(
                {
                    "level": str(path.relative_to(root)),
                    "unity_moving": raw["movingObjects"],
                    "unity_total": raw["startingObjects"],
                    "unity_stable": raw["score"] >= 1.0,
                    "moving": ev.moving_blocks,
                    "total": ev.total_blocks,
                    "stable": ev.moving_blocks == 0,
                    "iou": iou(ev.image, Image.open(png)) if ev.image is not None and png.exists() else None,
                }
            )
    return rows


def summary(rows: list[dict]) -> dict:
    stable_ious = [r["iou"] for r in rows if r["unity_stable"] and r["iou"] is not None]
    all_ious = [r["iou"] for r in rows if r["iou"] is not None]
    return {
        "levels": len(rows),
        "verdict_agree": sum(r["stable"] == r["unity_stable"] for r in rows),
        "exact_moving": sum(r["moving"] == r["unity_moving"] for r in rows),
        "unity_stable_levels": sum(r["unity_stable"] for r in rows),
        "mean_iou_stable": sum(stable_ious) / len(stable_ious) if stable_ious else None,
        "mean_iou_all": sum(all_ious) / len(all_ious) if all_ious else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--damage", action="store_true", help="turn block damage/destruction on")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--verbose", action="store_true", help="list every level that disagrees")
    args = parser.parse_args()
    root = CALIBRATION
    settings = PhysicsSettings(damage=args.damage)
    rows = calibration_rows(root, settings)
    s = summary(rows)
    if args.json:
        print(json.dumps({**s, "settings": settings.digest()}))
        return 0
    n = s["levels"]
    print(
        f"calibration set: {root} ({n} Unity-scored levels, {s['unity_stable_levels']} stable), "
        f"physics settings {settings.digest()}{' with damage' if args.damage else ''}"
    )
    print(f"stable/unstable verdict agrees: {s['verdict_agree']}/{n}")
    print(f"exact movingObjects:           {s['exact_moving']}/{n}")
    print(f"mean pixel IoU, stable levels: {s['mean_iou_stable']:.4f}")
    print(f"mean pixel IoU, all levels:    {s['mean_iou_all']:.4f}")
    if args.verbose:
        for r in rows:
            if r["moving"] != r["unity_moving"] or (r["iou"] or 0) < 0.97:
                print(
                    f"  {r['level']}: moving {r['moving']} vs Unity {r['unity_moving']} "
                    f"of {r['total']}, IoU {r['iou']:.3f}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
