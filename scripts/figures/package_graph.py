"""Draw the package graph by floor: docs/images/package-graph.svg, and the harness's rooms by floor:
docs/images/core-graph.svg (the contributing pages show both).

    python scripts/figures/package_graph.py           # write the picture
    python scripts/figures/package_graph.py --check   # exit 1 when the picture no longer matches the code

Each box is a package (a problem, or a shared package or top module of ``pcg_plugin``), standing on its floor
(``tests/import_graph.py`` ``FLOORS``, the table ``tests/core/test_boundary.py`` holds the imports to); each line
is one or more imports between two boxes, read with ``ast`` (an import inside a function counts), drawn from the
importer down to what it imports. Standard library only; the SVG is the same bytes for the same code.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from html import escape
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from import_graph import CORE_FLOORS, FLOORS, build_graph, core_floor_of, floor_of  # noqa: E402 - tests/, on sys.path

OUT = REPO / "docs" / "images" / "package-graph.svg"
CORE_OUT = REPO / "docs" / "images" / "core-graph.svg"
BOX_W, BOX_H, GAP, ROW_H, MARGIN, LABEL_W = 150, 34, 24, 92, 20, 110
COLORS = ("#e8eef7", "#dbe8d4", "#f3e6c8", "#efd9e6", "#d9e4f0", "#e4e4e4")


def box_of(module: str) -> str:
    """The box a module is drawn in: ``problems.<name>``, a package of pcg_plugin, or a top module."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "problems":
        return f"problems/{parts[2]}"
    if len(parts) == 1:
        return "__init__"
    return parts[1] + ("/" if _is_package(parts[1]) else ".py")


def _is_package(name: str) -> bool:
    return (REPO / "pcg_plugin" / name).is_dir()


def core_box_of(module: str) -> str:
    """The box a module of the harness is drawn in: its room, or a module (a folder: its own box) of the room."""
    parts = module.split(".")
    room = REPO.joinpath("pcg_plugin", "core", parts[2])
    if len(parts) == 3 or (room / parts[3]).is_dir():
        return "/".join(parts[2:4]) + "/"
    return parts[2] + "/"


def boxes_and_lines(core: bool = False) -> tuple[dict[int, list[str]], Counter[tuple[str, str]]]:
    graph = build_graph()
    floors: dict[int, set[str]] = {}
    lines: Counter[tuple[str, str]] = Counter()
    floor, box = (core_floor_of, core_box_of) if core else (floor_of, box_of)
    for src, dsts in graph.items():
        if src in ("pcg_plugin", "pcg_plugin.problems"):  # package docstrings only
            continue
        if core and floor(src) < 0:
            continue
        floors.setdefault(floor(src), set()).add(box(src))
        for dst in dsts:
            if dst in ("pcg_plugin", "pcg_plugin.problems") or (core and floor(dst) < 0):
                continue  # the package's version string, not a floor; outside the harness
            a, b = box(src), box(dst)
            if a != b:
                lines[(a, b)] += 1
    return {f: sorted(names) for f, names in floors.items()}, lines


def svg(core: bool = False) -> str:
    floors, lines = boxes_and_lines(core)
    levels = CORE_FLOORS if core else FLOORS
    widest = max(len(v) for v in floors.values())
    width = MARGIN * 2 + LABEL_W + widest * (BOX_W + GAP)
    height = MARGIN * 2 + len(levels) * ROW_H
    where: dict[str, tuple[float, float]] = {}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        '<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#777"/></marker></defs>',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for i, (name, _) in enumerate(levels):
        y = MARGIN + (len(levels) - 1 - i) * ROW_H
        out.append(
            f'<rect x="{MARGIN}" y="{y}" width="{width - 2 * MARGIN}" height="{ROW_H - 8}" rx="6" '
            f'fill="{COLORS[i % len(COLORS)]}"/>'
        )
        out.append(f'<text x="{MARGIN + 8}" y="{y + 20}" font-weight="bold">{i} {escape(name)}</text>')
        names = floors.get(i, [])
        x0 = MARGIN + LABEL_W + (widest - len(names)) * (BOX_W + GAP) / 2
        for j, box in enumerate(names):
            bx, by = x0 + j * (BOX_W + GAP), y + (ROW_H - 8 - BOX_H) / 2
            where[box] = (bx + BOX_W / 2, by)
            out.append(
                f'<rect x="{bx:.0f}" y="{by:.0f}" width="{BOX_W}" height="{BOX_H}" rx="4" fill="white" stroke="#555"/>'
            )
            out.append(f'<text x="{bx + BOX_W / 2:.0f}" y="{by + 21:.0f}" text-anchor="middle">{escape(box)}</text>')
    for (a, b), n in sorted(lines.items()):
        (ax, ay), (bx, by) = where[a], where[b]
        if ay == by:  # the same floor: an arc over the boxes
            mid = (ax + bx) / 2
            out.append(
                f'<path d="M{ax:.0f},{ay:.0f} Q{mid:.0f},{ay - 26:.0f} {bx:.0f},{by:.0f}" fill="none" '
                f'stroke="#777" stroke-width="1" marker-end="url(#a)"><title>{escape(a)} imports '
                f"{escape(b)} ({n})</title></path>"
            )
            continue
        out.append(
            f'<line x1="{ax:.0f}" y1="{ay + BOX_H:.0f}" x2="{bx:.0f}" y2="{by:.0f}" stroke="#777" '
            f'stroke-opacity="0.55" stroke-width="{min(1 + n / 8, 4):.1f}" marker-end="url(#a)"><title>'
            f"{escape(a)} imports {escape(b)} ({n} imports)</title></line>"
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the picture differs from the code's graph")
    args = ap.parse_args()
    stale = 0
    for out, text in ((OUT, svg()), (CORE_OUT, svg(core=True))):
        if args.check:
            same = out.is_file() and out.read_text(encoding="utf-8") == text
            stale += not same
            state = "current" if same else "out of date: python scripts/figures/package_graph.py"
            print(f"{out.relative_to(REPO)} is {state}")
            continue
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out.relative_to(REPO)}")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
