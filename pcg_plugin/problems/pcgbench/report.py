"""The HTML leaderboard of a PCG Benchmark run (report.html), rendered with Jinja2 from its results document.

Each level is drawn as an inline SVG of coloured squares (no image files, so the report is one self-contained
file); a legend gives each tile's colour.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pcg_plugin.atomic import atomic_write
from pcg_plugin.paths import REPO_ROOT

REPORT_FILE = "report.html"
TEMPLATE = "pcgbench_report.html.j2"
TILE = 10  # pixels per tile

# Tile colours by tile name (every legend of the three problems is covered).
COLOURS = {"solid": "#3b3b3b", "wall": "#3b3b3b", "empty": "#f4f4f4", "player": "#1f77d4", "crate": "#c8842c",
           "target": "#e0413c", "key": "#f2c200", "door": "#7a4a1e", "enemy": "#9c27b0"}  # fmt: skip


def _template_source() -> str:
    try:
        from importlib.resources import files

        return (files("pcg_plugin.templates") / TEMPLATE).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return (REPO_ROOT / "templates" / TEMPLATE).read_text(encoding="utf-8")


def level_svg(grid: Sequence[Sequence[int]], legend: Sequence[str], tile: int = TILE) -> str:
    """One level as an SVG of coloured squares (codes outside the legend never reach here: they are invalid)."""
    rows, cols = len(grid), len(grid[0]) if grid else 0
    rects = "".join(f'<rect x="{x * tile}" y="{y * tile}" width="{tile}" height="{tile}" fill="{COLOURS[legend[v]]}"/>'
                    for y, row in enumerate(grid) for x, v in enumerate(row))  # fmt: skip
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * tile}" height="{rows * tile}" '
            f'viewBox="0 0 {cols * tile} {rows * tile}" shape-rendering="crispEdges">{rects}</svg>')  # fmt: skip


def context(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What the template shows, with each valid trial's level drawn."""
    legend = doc["benchmark"]["legend"]
    subs = []
    for s in doc["submissions"]:
        insts = []
        for inst in s["instances"]:
            trials = [{**t, "svg": level_svg(t["content"], legend) if t.get("content") else None}
                      for t in inst["trials"]]  # fmt: skip
            insts.append({**inst, "trials": trials})
        subs.append({**s, "instances": insts})
    warnings = []
    backend = doc["settings"].get("backend_used") or {}
    if backend.get("offline_default"):
        warnings.append(f"The offline default LLM ({doc['settings'].get('model_used') or 'SmolLM2'}) wrote these "
                        "levels: it exists so the pipeline runs offline, not to rank anyone.")  # fmt: skip
    return {"doc": doc, "submissions": subs, "warnings": warnings,
            "legend": [(code, name, COLOURS[name]) for code, name in enumerate(legend)]}  # fmt: skip


def render(doc: Mapping[str, Any]) -> str:
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return env.from_string(_template_source()).render(**context(doc))


def write_report(doc: Mapping[str, Any], run_dir: Path) -> Path:
    return atomic_write(run_dir / REPORT_FILE, render(doc))
