"""Golden vectors of the PCG Benchmark reference (amidos2006/pcg_benchmark 00b96f5) for the pcgbench tests.

Run against the reference, never in the test suite (see SOURCE.md for the exact command). The contents are drawn
here with numpy (uniform, and "shaped" ones that reach the solvers and the height rules), then scored by the
reference's own problem objects: info, quality, controllability with a drawn control, every pairwise diversity,
and the set diversity of its PCGEnv (fraction and per-item values). One JSON file per variant.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pcg_benchmark

VARIANTS = [
    "binary-v0",
    "binary-wide-v0",
    "binary-large-v0",
    "sokoban-v0",
    "sokoban-complex-v0",
    "sokoban-large-v0",
    "zelda-v0",
    "zelda-enemies-v0",
    "zelda-large-v0",
    "building-v0",
    "building-large-v0",
    "building-tall-v0",
    "building-huge-v0",
]
# The building README's example (12 drops in the 7x7x12 space), scored by a 12-block variant registered here.
BUILDING_README = (
    [{"x": 2, "y": 2, "type": 3}]
    + [{"x": 3, "y": 3, "type": 0}] * 7
    + [
        {"x": 1, "y": 3, "type": 1},
        {"x": 3, "y": 3, "type": 2},
        {"x": 3, "y": 1, "type": 2},
        {"x": 3, "y": 3, "type": 1},
    ]
)
README_VARIANT = ("building-readme-v0", {"width": 7, "length": 7, "height": 12, "blocks": 12})
SOKOBAN_MICROBAN = [[0, 1, 4, 0, 0], [0, 1, 1, 0, 0], [0, 4, 3, 2, 1], [0, 1, 1, 3, 1], [0, 1, 1, 0, 0]]


def plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def grid(rng, rows, cols, floor, pieces):
    g = [[int(rng.random() < floor) for _ in range(cols)] for _ in range(rows)]
    cells = rng.choice(rows * cols, size=len(pieces), replace=False)
    for cell, tile in zip(cells, pieces, strict=True):
        g[int(cell) // cols][int(cell) % cols] = tile
    return g


def contents(name, p, rng):
    if name.startswith("building"):
        w, length, b = p._width, p._length, p._target
        uniform = [
            [
                {"x": int(rng.integers(w)), "y": int(rng.integers(length)), "type": int(rng.integers(4))}
                for _ in range(b)
            ]
            for _ in range(6)
        ]
        # towers: drops piled on a few spots, so that pieces land high, reach the top or fail
        towers = []
        for spots in (1, 2, 3, 4, 6, 9):
            xy = [(int(rng.integers(w)), int(rng.integers(length))) for _ in range(spots)]
            towers.append(
                [
                    {"x": xy[i % spots][0], "y": xy[i % spots][1], "type": int(rng.choice([0, 3, 3, 1, 2]))}
                    for i in range(b)
                ]
            )
        # disjoint 3x3 squares at x, y in {0, 4, 8, ...}, piled evenly: all land when B / squares <= H
        squares = [(x, y) for y in range(0, length - 2, 4) for x in range(0, w - 2, 4)]
        piles = [{"x": squares[i % len(squares)][0], "y": squares[i % len(squares)][1], "type": 3} for i in range(b)]
        extra = [BUILDING_README] if name == README_VARIANT[0] else []
        return uniform + towers + [piles] + extra
    rows, cols = (p._height, p._width)
    alphabet = {"binary": 2, "sokoban": 5, "zelda": 6}[name.split("-")[0]]
    out = [[[int(rng.integers(alphabet)) for _ in range(cols)] for _ in range(rows)] for _ in range(6)]
    for _ in range(6):
        if name.startswith("binary"):
            out.append(grid(rng, rows, cols, 0.6, []))
        elif name.startswith("sokoban"):
            k = int(rng.integers(1, 4))
            out.append(grid(rng, rows, cols, 0.85, [2] + [3] * k + [4] * k))
        else:
            out.append(grid(rng, rows, cols, 0.85, [2, 3, 4] + [5] * p._enemies))
    if name == "sokoban-v0":
        out += [SOKOBAN_MICROBAN, [[1 if v == 2 else v for v in row] for row in SOKOBAN_MICROBAN]]
    return out


def control(env, rng):
    space = env.control_space.range()
    return {k: int(rng.integers(r["min"], r["max"])) for k, r in space.items()}


def main(out_dir):
    from pcg_benchmark.probs.building import BuildingProblem

    pcg_benchmark.register(README_VARIANT[0], BuildingProblem, README_VARIANT[1])
    for name in [*VARIANTS, README_VARIANT[0]]:
        env = pcg_benchmark.make(name)
        p = env._problem
        rng = np.random.default_rng(sum(map(ord, name)))
        items = []
        cs = contents(name, p, rng)
        infos = []
        for c in cs:
            ctrl = control(env, rng)
            info = p.info(c)
            infos.append(info)
            shown = {k: plain(v) for k, v in info.items() if k != "content" and not k.startswith("lvl_")}
            items.append(
                {
                    "content": c,
                    "control": ctrl,
                    "info": shown,
                    "quality": float(p.quality(info)),
                    "controllability": float(p.controlability(info, ctrl)),
                }
            )
        pairs = [[float(p.diversity(a, b)) for b in infos] for a in infos]
        fraction, per_item, _ = env.diversity(infos)
        doc = {
            "variant": name,
            "items": items,
            "pairwise_diversity": pairs,
            "set_diversity": {"fraction": float(fraction), "per_item": plain(per_item)},
        }
        (Path(out_dir) / f"{name}.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        print(name, len(items), "items", sum(it["quality"] >= 1 for it in items), "feasible", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
