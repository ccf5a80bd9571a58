"""The experiment's pages: one self-contained HTML page per variant (both figures inline, a table of every
generator x fitness) and an index linking them, written with the figures' JSON and SVG files."""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.problems.pcgbench.experiment.fitness import SHOWN
from pcg_plugin.problems.pcgbench.experiment.pictures import (
    NAMES,
    fig2,
    fig2_overview,
    fig3,
    fig3_overview,
    overview_fitness,
    split,
)

STYLE = (
    "body{font-family:system-ui,sans-serif;margin:24px;color:#1f2328}table{border-collapse:collapse;margin:12px 0}"
    "td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:right}th{background:#f6f8fa}"
    "td:first-child,th:first-child{text-align:left}code{background:#f6f8fa;padding:1px 4px}"
)


def _html(title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>{body}</body></html>\n"
    )


def _table(data: Mapping[str, Any]) -> str:
    head = (
        "<tr><th>generator</th><th>fitness</th><th>runs</th><th>best at the end (95 % interval)</th>"
        "<th>elites: successful / controlled / unique</th><th>final population (mean per run): feasible / "
        "controlled / unique</th><th>seconds</th></tr>"
    )
    rows = []
    for key, c in data["fig2"].items():
        gen, fit = split(key)
        e, f = data["fig3"][key], data["final"][key]
        rows.append(
            f"<tr><td>{NAMES.get(gen, gen)}</td><td>{SHOWN.get(fit, fit)}</td><td>{c['runs']}</td>"
            f"<td>{c['mean'][-1]:.3f} [{c['low'][-1]:.3f}, {c['high'][-1]:.3f}]</td>"
            f"<td>{e['successful']} / {e['controlled']} / {e['unique']}</td>"
            f"<td>{f['feasible']:g} / {f['controlled']:g} / {f['unique']:g}</td><td>{data['seconds'][key]:g}</td></tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def variant_page(variant: str, data: Mapping[str, Any], protocol: Mapping[str, Any]) -> str:
    about = (
        f"<p>The PCG Benchmark paper's experiment on <code>{escape(variant)}</code>: population "
        f"{protocol['population']}, {protocol['generations']} generations, seeds {protocol['seed']}&ndash;"
        f"{protocol['seed'] + protocol['runs'] - 1} ({escape(protocol['spaces'])} spaces). Command: "
        f"<code>{escape(protocol['command'])}</code></p>"
    )
    c = data["cost"]
    about += (
        f"<p>Cost: {c['evaluations']} evaluations, {c['cpu_seconds']} CPU seconds ({c['ms_per_evaluation']} ms "
        f"each); the paper's protocol (9 pairs x 10 runs x 201 x 100 evaluations) at this rate: "
        f"{c['paper_protocol_cpu_hours']} CPU hours on one core.</p>"
    )
    return _html(
        f"{variant}: Random, ES and GA",
        f"{about}<h2>Best fitness per generation (Fig. 2)</h2>{fig2(variant, data['fig2'])}"
        f"<h2>Successful, controlled and unique elites (Fig. 3)</h2>{fig3(variant, data['fig3'])}"
        f"<h2>Every generator and fitness</h2>{_table(data)}<p><a href='../index.html'>all variants</a></p>",
    )


def write_pages(out: Path, summary: Mapping[str, Mapping[str, Any]], protocol: Mapping[str, Any]) -> list[Path]:
    """`figures.json`, `fig2.svg` (Q), `fig3.svg`, `index.html` and `<variant>/index.html` (+ its two SVGs)."""
    written = [atomic_write(out / "figures.json", json.dumps({"protocol": protocol, "variants": summary}, indent=1))]
    written.append(atomic_write(out / "fig2.svg", fig2_overview(summary)))
    written.append(atomic_write(out / "fig3.svg", fig3_overview(summary)))
    for variant, data in summary.items():
        written.append(atomic_write(out / variant / "fig2.svg", fig2(variant, data["fig2"])))
        written.append(atomic_write(out / variant / "fig3.svg", fig3(variant, data["fig3"])))
        written.append(atomic_write(out / variant / "index.html", variant_page(variant, data, protocol)))
    links = "".join(f"<li><a href='{escape(v)}/index.html'>{escape(v)}</a></li>" for v in summary)
    index = _html(
        "PCG Benchmark: the paper's experiment",
        f"<p>Command: <code>{escape(protocol['command'])}</code></p><ul>{links}</ul>"
        f"<h2>Best {SHOWN[overview_fitness(summary)]} per generation (Fig. 2)</h2>{fig2_overview(summary)}"
        f"<h2>Successful, controlled and unique elites (Fig. 3)</h2>{fig3_overview(summary)}",
    )
    written.append(atomic_write(out / "index.html", index))
    return written
