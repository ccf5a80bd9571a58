"""The experiment's figures as self-contained SVG (no script, no charting library), in the harness charts' style:
Fig. 2 as line panels with the interval as a band, Fig. 3 as grouped bars. Pure functions: numbers in, SVG out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from pcg_plugin.core.views.charts import PALETTE
from pcg_plugin.problems.pcgbench.experiment.fitness import FITNESSES, SHOWN

GENS = ("random", "es", "ga")
FITS = tuple(FITNESSES)
COLOURS = {"random": PALETTE[0], "es": PALETTE[1], "ga": PALETTE[2]}
NAMES = {"random": "Random", "es": "ES", "ga": "GA"}
METRICS = ("successful", "controlled", "unique")
SHADE = {"q": 1.0, "qt": 0.65, "qtd": 0.35}  # Fig. 3 overview: one colour per generator, lighter per fitness
PANEL_W, PANEL_H, PAD = 300, 190, 36


def svg(width: int, height: int, body: Sequence[str], label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{escape(label)}" font-size="11" font-family="system-ui,sans-serif">'
        f'<rect width="{width}" height="{height}" fill="white"/>{"".join(body)}</svg>'
    )


def _frame(x: float, y: float, w: float, h: float, title: str, ymax: float, ticks: Sequence[float]) -> list[str]:
    out = [f'<text x="{x + w / 2:.1f}" y="{y - 8:.1f}" text-anchor="middle" font-weight="bold">{escape(title)}</text>']
    out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="none" stroke="#8c959f"/>')
    for t in ticks:
        ty = y + h - t / ymax * h
        out.append(f'<line x1="{x}" x2="{x + w}" y1="{ty:.1f}" y2="{ty:.1f}" stroke="#eaeef2"/>')
        out.append(f'<text x="{x - 4}" y="{ty + 4:.1f}" text-anchor="end">{t:g}</text>')
    return out


def line_panel(x: float, y: float, title: str, lines: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One panel: per generator its mean best fitness per generation and the interval band, y in [0, 1]."""
    w, h = PANEL_W - PAD - 10, PANEL_H - 2 * PAD
    out = _frame(x, y, w, h, title, 1.0, (0, 0.25, 0.5, 0.75, 1))
    gens = max((len(c["mean"]) for c in lines.values()), default=1) - 1

    def px(g: int) -> float:
        return x + (g / gens * w if gens else w / 2)

    def py(v: float) -> float:
        return y + h - max(0.0, min(1.0, v)) * h

    for gen, c in lines.items():
        colour = COLOURS.get(gen, PALETTE[3])
        band = [f"{px(g):.1f},{py(v):.1f}" for g, v in enumerate(c["high"])]
        band += [f"{px(g):.1f},{py(v):.1f}" for g, v in reversed(list(enumerate(c["low"])))]
        out.append(f'<polygon points="{" ".join(band)}" fill="{colour}" fill-opacity="0.15"/>')
        mean = " ".join(f"{px(g):.1f},{py(v):.1f}" for g, v in enumerate(c["mean"]))
        out.append(f'<polyline points="{mean}" fill="none" stroke="{colour}" stroke-width="2"/>')
    out.append(f'<text x="{x}" y="{y + h + 14}">0</text>')
    out.append(f'<text x="{x + w}" y="{y + h + 14}" text-anchor="end">{gens}</text>')
    out.append(f'<text x="{x + w / 2}" y="{y + h + 14}" text-anchor="middle" fill="#57606a">generation</text>')
    return out


def bar_panel(
    x: float,
    y: float,
    title: str,
    groups: Sequence[tuple[str, Sequence[tuple[str, float, float]]]],
    ymax: float,
    width: float = PANEL_W,
) -> list[str]:
    """One panel of grouped bars: per group (label, [(colour, opacity, value)])."""
    w, h = width - PAD - 10, PANEL_H - 2 * PAD
    ymax = max(ymax, 1.0)
    step = max(1, round(ymax / 4))
    out = _frame(x, y, w, h, title, ymax, list(range(0, int(ymax) + 1, step)))
    slot = w / max(1, len(groups))
    for i, (label, bars) in enumerate(groups):
        bw = slot * 0.8 / max(1, len(bars))
        for j, (colour, opacity, value) in enumerate(bars):
            bh = value / ymax * h
            bx = x + i * slot + slot * 0.1 + j * bw
            out.append(
                f'<rect x="{bx:.1f}" y="{y + h - bh:.1f}" width="{max(bw - 1, 1):.1f}" height="{bh:.1f}" '
                f'fill="{colour}" fill-opacity="{opacity}"><title>{escape(label)}: {value:g}</title></rect>'
            )
        out.append(f'<text x="{x + (i + 0.5) * slot:.1f}" y="{y + h + 14}" text-anchor="middle">{escape(label)}</text>')
    return out


def legend(x: float, y: float, generators: Sequence[str]) -> list[str]:
    out = []
    for i, gen in enumerate(generators):
        out.append(f'<rect x="{x + i * 90}" y="{y - 9}" width="12" height="12" fill="{COLOURS.get(gen, PALETTE[3])}"/>')
        out.append(f'<text x="{x + i * 90 + 16}" y="{y + 1}">{NAMES.get(gen, gen)}</text>')
    return out


def split(key: str) -> tuple[str, str]:
    gen, _, fit = key.partition("-")
    return gen, fit


def _present(keys: Iterable[str], part: int, order: Sequence[str]) -> list[str]:
    """The generators (part 0) or fitnesses (part 1) among `keys`, in the canonical order."""
    found = {split(k)[part] for k in keys}
    return [o for o in order if o in found] + sorted(found - set(order))


def fig2(variant: str, curves: Mapping[str, Mapping[str, Any]]) -> str:
    """One panel per fitness, one line per generator: the best fitness per generation (mean and interval)."""
    fits = list(dict.fromkeys(split(k)[1] for k in curves))
    gens = list(dict.fromkeys(split(k)[0] for k in curves))
    body = legend(PAD, 16, gens)
    for i, fit in enumerate(fits):
        lines = {split(k)[0]: c for k, c in curves.items() if split(k)[1] == fit}
        body += line_panel(PAD + i * PANEL_W, 50, f"{variant}: best {SHOWN.get(fit, fit)}", lines)
    return svg(PANEL_W * max(1, len(fits)) + 10, PANEL_H + 30, body, f"{variant}: best fitness per generation")


def fig3(variant: str, counts: Mapping[str, Mapping[str, int]]) -> str:
    """One panel per count (successful, controlled, unique elites), grouped by fitness, one bar per generator."""
    fits, gens = _present(counts, 1, FITS), _present(counts, 0, GENS)
    ymax = max((c["runs"] for c in counts.values()), default=1)
    body = legend(PAD, 16, gens)
    for i, metric in enumerate(METRICS):
        groups = [
            (
                SHOWN.get(f, f),
                [(COLOURS.get(g, PALETTE[3]), 1.0, counts[f"{g}-{f}"][metric]) for g in gens if f"{g}-{f}" in counts],
            )
            for f in fits
        ]
        body += bar_panel(PAD + i * PANEL_W, 50, f"{metric} elites (of {ymax} runs)", groups, ymax)
    return svg(PANEL_W * len(METRICS) + 10, PANEL_H + 30, body, f"{variant}: successful, controlled, unique elites")


def overview_fitness(summary: Mapping[str, Mapping[str, Any]]) -> str:
    """The fitness Fig. 2 plots: Q, or the first fitness run where Q was not."""
    found = _present([k for v in summary.values() for k in v["fig2"]], 1, FITS)
    return found[0] if found else "q"


def fig2_overview(summary: Mapping[str, Mapping[str, Any]], columns: int = 4) -> str:
    """The paper's Fig. 2: one panel per variant, the best fitness (`overview_fitness`) per generation, one line
    per generator."""
    keys = [k for v in summary.values() for k in v["fig2"]]
    fitness = overview_fitness(summary)
    body = legend(PAD, 16, _present(keys, 0, GENS))
    for n, (variant, data) in enumerate(summary.items()):
        lines = {split(k)[0]: c for k, c in data["fig2"].items() if split(k)[1] == fitness}
        title = f"{variant}: best {SHOWN.get(fitness, fitness)}"
        body += line_panel(PAD + n % columns * PANEL_W, 50 + n // columns * PANEL_H, title, lines)
    rows = (len(summary) + columns - 1) // columns
    return svg(PANEL_W * columns + 10, PANEL_H * rows + 30, body, f"best {SHOWN.get(fitness, fitness)} per generation")


def fig3_overview(summary: Mapping[str, Mapping[str, Any]], width: int = 4 * PANEL_W) -> str:
    """The paper's Fig. 3: one panel per count, a group of bars per variant, one bar per generator x fitness
    (colour: generator; Q, QT, QTD ever lighter)."""
    keys = [k for v in summary.values() for k in v["fig3"]]
    body = legend(PAD, 16, _present(keys, 0, GENS))
    body.append(f'<text x="{PAD + 290}" y="17">in each colour Q, QT, QTD (lighter); counts of the runs\' elites</text>')
    ymax = max((c["runs"] for v in summary.values() for c in v["fig3"].values()), default=1)
    for m, metric in enumerate(METRICS):
        groups = []
        for variant, data in summary.items():
            counts = data["fig3"]
            order = [f"{g}-{f}" for g in GENS for f in FITS if f"{g}-{f}" in counts]
            bars = [(COLOURS[split(k)[0]], SHADE[split(k)[1]], counts[k][metric]) for k in order]
            groups.append((variant.removesuffix("-v0"), bars))
        body += bar_panel(PAD, 50 + m * PANEL_H, f"{metric} elites (of {ymax} runs)", groups, ymax, width)
    return svg(width + 10, PANEL_H * len(METRICS) + 30, body, "successful, controlled, unique elites")
