"""Benchmark: milliseconds per level of simulate + render, on one core, for this tree or against another revision.

Usage:
  python scripts/bench/bench_pipeline.py [--repeat 3] [--sets calibration,glyphs]
  python scripts/bench/bench_pipeline.py --compare REV [--core N] [--repeat 3]

Sets: ``calibration`` (the 60 Unity-scored 2023 levels, 3.8 blocks on average) and ``glyphs`` (the letter-sized
structures of ``glyphs.letter_program``, A-Z x variants 0..``--variants``-1, ~24 blocks on average).
``--compare REV`` checks REV out into a temporary git worktree under /tmp and starts two server processes, one per
tree, both pinned to the same core (``taskset -c N``, OMP_NUM_THREADS=1); for every level it times the old and the
new tree one after the other (the order alternating from level to level, so machine noise hits both alike), checks
that both give the same moving count, and prints the speed-up per set (ratio of summed best-of-``--repeat`` times)
and on how many levels the moving count or the image's pixels differ,
with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
ROOT = Path(__file__).resolve().parents[2]
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def load_sets(names: list[str], variants: int) -> dict[str, list]:  # type: ignore[type-arg]
    """The named level sets, parsed by whichever pcg_plugin is first on sys.path."""
    from pcg_plugin.problems.science_birds.level.glyphs import letter_program
    from pcg_plugin.problems.science_birds.level.levelxml import parse_level
    from pcg_plugin.problems.science_birds.level.pipeline import build_level

    sets: dict[str, list] = {}  # type: ignore[type-arg]
    if "calibration" in names:
        paths = sorted((ROOT / "tests" / "data" / "unity-2023-calibration").glob("*/levels/*/*.xml"))
        sets["calibration"] = [parse_level(p.read_text()) for p in paths]
    if "glyphs" in names:
        sets["glyphs"] = [
            build_level("```\n" + letter_program(letter, v) + "\n```").level
            for letter in LETTERS
            for v in range(variants)
        ]
    return sets


def time_level(level, repeat: int, settings) -> tuple[float, float, float, int, str]:  # type: ignore[no-untyped-def]
    """Best-of-``repeat`` (total, physics, render) seconds, the moving count and a hash of the image's pixels."""
    import hashlib

    from pcg_plugin.problems.science_birds.level.pipeline import evaluate_level

    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        ev = evaluate_level(level, settings)
        runs.append((time.perf_counter() - t, ev.timings["physics"], ev.timings["render"]))
    best = min(runs)
    # the picture's grey levels, so an RGB image (older trees) and a greyscale one with the same pixels agree
    pixels = hashlib.sha256(ev.image.convert("L").tobytes()).hexdigest()[:16] if ev.image is not None else ""
    return best[0], best[1], best[2], ev.moving_blocks, pixels


def serve(tree: str, names: list[str], variants: int) -> None:
    """Answer ``set index repeat`` lines with one JSON line of timings, importing pcg_plugin from ``tree``."""
    sys.path.insert(0, tree)
    import pcg_plugin
    from pcg_plugin.problems.science_birds.level.physics import PhysicsSettings

    assert Path(pcg_plugin.__file__).resolve().is_relative_to(Path(tree).resolve()), pcg_plugin.__file__
    sets = load_sets(names, variants)
    settings = PhysicsSettings()
    time_level(sets[names[0]][0], 1, settings)  # warm imports
    print(json.dumps({n: len(v) for n, v in sets.items()}), flush=True)
    for line in sys.stdin:
        name, index, repeat = line.split()
        print(json.dumps(time_level(sets[name][int(index)], int(repeat), settings)), flush=True)


def compare(rev: str, names: list[str], variants: int, repeat: int, core: int) -> int:
    """Alternate old (REV) and new (this tree) per level in two pinned server processes."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    old_tree = tmp / "old"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old_tree), rev], check=True, capture_output=True
    )
    try:
        servers = {}
        for label, tree in (("old", old_tree), ("new", ROOT)):
            cmd = [
                "taskset",
                "-c",
                str(core),
                sys.executable,
                __file__,
                "--serve",
                str(tree),
                "--sets",
                ",".join(names),
                "--variants",
                str(variants),
            ]
            servers[label] = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env={**os.environ, "OMP_NUM_THREADS": "1"},
            )
        sizes = {label: json.loads(p.stdout.readline()) for label, p in servers.items()}  # type: ignore[union-attr]
        assert sizes["old"] == sizes["new"], sizes
        load = os.getloadavg()
        print(
            f"compare {rev} (old) with {ROOT.name} (new), core {core}, best of {repeat}, "
            f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at start"
        )
        for name, n in sizes["new"].items():
            sums = {"old": [0.0, 0.0, 0.0], "new": [0.0, 0.0, 0.0]}
            mismatch = images = 0
            for i in range(n):
                order = ("old", "new") if i % 2 == 0 else ("new", "old")
                got = {}
                for label in order:
                    p = servers[label]
                    p.stdin.write(f"{name} {i} {repeat}\n")  # type: ignore[union-attr]
                    p.stdin.flush()  # type: ignore[union-attr]
                    got[label] = json.loads(p.stdout.readline())  # type: ignore[union-attr]
                for label in got:
                    sums[label] = [a + b for a, b in zip(sums[label], got[label][:3], strict=True)]
                mismatch += got["old"][3] != got["new"][3]
                images += got["old"][4] != got["new"][4]
            o, w = sums["old"], sums["new"]
            print(
                f"{name}: {n} levels, moving counts differ on {mismatch}, images on {images}; "
                f"per level old {1000 * o[0] / n:.1f} ms "
                f"(physics {1000 * o[1] / n:.1f}, render {1000 * o[2] / n:.1f}), new {1000 * w[0] / n:.1f} ms "
                f"(physics {1000 * w[1] / n:.1f}, render {1000 * w[2] / n:.1f}); speed-up physics "
                f"{o[1] / w[1]:.2f}x, physics+render {o[0] / w[0]:.2f}x"
            )
        load = os.getloadavg()
        print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at end")
        for p in servers.values():
            p.stdin.close()  # type: ignore[union-attr]
            p.wait()
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old_tree)], check=False, capture_output=True
        )
    return 0


def report(names: list[str], variants: int, repeat: int) -> int:
    """This tree alone: median and percentiles per set."""
    sys.path.insert(0, str(ROOT))
    from pcg_plugin.problems.science_birds.level.physics import PhysicsSettings

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    settings = PhysicsSettings()
    for name, levels in load_sets(names, variants).items():
        time_level(levels[0], 1, settings)  # warm imports
        best = [time_level(level, repeat, settings) for level in levels]
        total = sorted(1000 * b[0] for b in best)
        q = statistics.quantiles(total, n=10)
        blocks = statistics.mean(len(level.blocks) for level in levels)
        print(
            f"{name}: {len(levels)} levels ({blocks:.1f} blocks on average), 1 core; simulate+render per level: "
            f"median {statistics.median(total):.1f} ms, p10 {q[0]:.1f}, p90 {q[-1]:.1f}, max {total[-1]:.1f}; "
            f"physics median {statistics.median(1000 * b[1] for b in best):.1f} ms, "
            f"render median {statistics.median(1000 * b[2] for b in best):.1f} ms"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per level (the best counts)")
    parser.add_argument("--sets", default="calibration,glyphs", help="comma-separated: calibration, glyphs")
    parser.add_argument("--variants", type=int, default=4, help="glyph variants per letter (0..N-1)")
    parser.add_argument("--compare", metavar="REV", help="alternate with git revision REV and print speed-ups")
    parser.add_argument("--core", type=int, default=None, help="CPU core both trees run on (default: the last)")
    parser.add_argument("--serve", metavar="TREE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = [n for n in args.sets.split(",") if n]
    if args.serve:
        serve(args.serve, names, args.variants)
        return 0
    if args.compare:
        core = args.core if args.core is not None else max(os.sched_getaffinity(0))
        return compare(args.compare, names, args.variants, args.repeat, core)
    return report(names, args.variants, args.repeat)


if __name__ == "__main__":
    raise SystemExit(main())
