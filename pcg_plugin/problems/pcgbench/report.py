"""The HTML leaderboard of a PCG Benchmark run (report.html), rendered with Jinja2 from its results document.

Each content is drawn by its variant's kind (`ContentKind.draw`: an inline SVG or HTML, no image files, so the
report is one self-contained file; tiles for grids); the kind's `key` is the legend above the drawings. Each
instance shows its control as the benchmark gives it (`prompt.control_text`: `key = value`, talakat's list,
arcade's map as rows of 0/1).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.numbers import fixed
from pcg_plugin._util.paths import template_source
from pcg_plugin.core.contract.banner import unofficial
from pcg_plugin.problems.pcgbench import PLACES

REPORT_FILE = "report.html"
TEMPLATE = "pcgbench_report.html.j2"


def context(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What the template shows, with each valid trial's content drawn."""
    from pcg_plugin.problems.pcgbench.bench.registry import get_problem
    from pcg_plugin.problems.pcgbench.prompt import control_text

    kind = get_problem(doc["benchmark"]["name"]).content
    subs = []
    for s in doc["submissions"]:
        insts = []
        for inst in s["instances"]:
            trials = [
                {**t, "svg": kind.draw(t["content"]) if t.get("content") is not None else None} for t in inst["trials"]
            ]
            insts.append({**inst, "trials": trials, "control_text": control_text(inst["control"])})
        subs.append({**s, "instances": insts})
    banner = unofficial(doc["settings"])
    warnings = [banner] if banner else []
    several = len(doc.get("models") or ()) > 1  # one row per submission x model, each with its model's rank
    return {"doc": doc, "submissions": subs, "warnings": warnings, "legend": kind.key(), "several": several}


def render(doc: Mapping[str, Any]) -> str:
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["num"] = lambda v: fixed(v, PLACES)  # three places; none that is not 0 as 0
    return env.from_string(template_source(TEMPLATE)).render(**context(doc))


def write_report(doc: Mapping[str, Any], run_dir: Path) -> Path:
    return atomic_write(run_dir / REPORT_FILE, render(doc))
