"""Glyph-set physics outcomes (A-Z x variants 0..11): write the committed fixture, or check this tree against it.

Usage: python scripts/data/glyph_physics_fixture.py [--write] [--variants 12]
The fixture (tests/data/physics/glyph_outcomes.json) holds, per letter and variant, the block count and the moving
count that pytest-pcg's physics gave when it was written; ``--write`` rewrites it (only from a revision whose physics
is the reference), the default compares level by level and prints every difference (exit 1 if any).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pcg_plugin.problems.science_birds.level.glyphs import letter_program  # noqa: E402 - this checkout's pcg_plugin, on sys.path above
from pcg_plugin.problems.science_birds.level.physics import simulate  # noqa: E402 - this checkout's pcg_plugin, on sys.path above
from pcg_plugin.problems.science_birds.level.pipeline import build_level  # noqa: E402 - this checkout's pcg_plugin, on sys.path above

FIXTURE = ROOT / "tests" / "data" / "physics" / "glyph_outcomes.json"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def outcomes(variants: int) -> dict[str, dict[str, int]]:
    """``{"A0": {"total": n, "moving": m}, ...}`` from this tree's physics."""
    rows = {}
    for letter in LETTERS:
        for variant in range(variants):
            level = build_level("```\n" + letter_program(letter, variant) + "\n```").level
            sim = simulate(level)
            rows[f"{letter}{variant}"] = {"total": sim.total_blocks, "moving": sim.moving_blocks}
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the fixture from this tree")
    parser.add_argument("--variants", type=int, default=12, help="variants per letter (0..N-1)")
    args = parser.parse_args()
    t = time.perf_counter()
    rows = outcomes(args.variants)
    took = time.perf_counter() - t
    if args.write:
        lines = [f"{json.dumps(k)}: {json.dumps(rows[k], sort_keys=True)}" for k in sorted(rows)]
        FIXTURE.write_text("{\n" + ",\n".join(lines) + "\n}\n")
        print(f"wrote {len(rows)} levels to {FIXTURE.relative_to(ROOT)} ({took:.1f} s)")
        return 0
    want = json.loads(FIXTURE.read_text())
    diffs = [(k, want.get(k), v) for k, v in rows.items() if want.get(k) != v]
    for key, old, new in diffs:
        print(f"  {key}: fixture {old}, now {new}")
    stable = sum(v["moving"] == 0 for v in rows.values())
    print(f"{len(rows)} glyph levels, {stable} stand, {len(diffs)} differ from the fixture ({took:.1f} s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main())
