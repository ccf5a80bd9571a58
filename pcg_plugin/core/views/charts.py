"""Inline SVG charts of a run's trials (no script, no charting service): the mean score per target for each
submission, the distribution of trial scores, and why trials scored zero. Pure functions: rows in, SVG text out."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

PALETTE = ("#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#0598bc", "#bf3989", "#6e7781", "#4d2d00", "#116329")
WIDTH = 1000


def _svg(width: int, height: int, body: list[str], label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pcg-chart" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}" font-size="11" '
        f'font-family="system-ui,sans-serif">{"".join(body)}</svg>'
    )


LEGEND = 240  # px: one legend entry (a swatch and up to 34 characters)
LABEL = 24  # characters of a target's label on the axis (the dot's title has it all)


def _text_width(text: str) -> float:
    """About how wide ``text`` is at the charts' 11 px sans-serif (0.62 em a character: a little over)."""
    return 11 * 0.62 * len(text)


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v)


def _num(v: float) -> str:
    return f"{v:.4g}"


def _scale(lo: float, hi: float) -> tuple[float, float]:
    """The y range: [0, 1] for scores inside it, else the data's range (never empty)."""
    if lo >= 0 and hi <= 1:
        return 0.0, 1.0
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    return (lo, hi) if hi > lo else (lo - 1, hi + 1)


def by_target(rows: Sequence[Mapping[str, Any]], targets: Sequence[str]) -> str:
    """Mean trial score per target, one line of dots per submission (an errored trial counts as no score)."""
    subs = list(dict.fromkeys(str(r["submission"]) for r in rows))
    targets = [t for t in targets if any(r["target"] == t for r in rows)] or list(
        dict.fromkeys(str(r["target"]) for r in rows)
    )
    means: dict[tuple[str, str], float] = {}
    for s in subs:
        for t in targets:
            vals = [r["score"] for r in rows if r["submission"] == s and r["target"] == t and _finite(r["score"])]
            if vals:
                means[(s, t)] = sum(vals) / len(vals)
    if not means or not targets:
        return ""
    lo, hi = _scale(min(means.values()), max(means.values()))
    left, top, plot_h = 44, 10, 180
    step: float = max(12, min(60, (WIDTH - left - 20) // max(1, len(targets))))
    # wide enough for a legend entry per column (up to four) however few targets: a narrow chart cut its legend
    width = max(int(left + step * len(targets)) + 20, min(WIDTH, left + LEGEND * min(len(subs), 4) + 10))
    columns = max(1, min(4, (width - left - 10) // LEGEND))
    step = (width - left - 20) / len(targets)  # a chart widened for its legend spreads its targets over it
    labels = [str(t)[:LABEL] for t in targets]
    slanted = max(_text_width(t) for t in labels) > step - 4  # side by side they would overlap: slant them
    axis_h = int(max(_text_width(t) for t in labels) * 0.71) + 16 if slanted else 24
    legend_top = top + plot_h + axis_h + 10
    height = legend_top + 16 * ((len(subs) + columns - 1) // columns)

    def y(v: float) -> float:
        return top + plot_h - (v - lo) / (hi - lo) * plot_h

    body = [f'<line x1="{left}" y1="{y(lo):.1f}" x2="{width - 10}" y2="{y(lo):.1f}" stroke="#8c959f"/>']
    for frac in (0, 0.25, 0.5, 0.75, 1):
        v = lo + frac * (hi - lo)
        body.append(
            f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#57606a">{_num(v)}</text>'
            f'<line x1="{left}" y1="{y(v):.1f}" x2="{width - 10}" y2="{y(v):.1f}" stroke="#eaeef2"/>'
        )
    for i, label in enumerate(labels):
        x = left + step * i + step / 2
        if slanted:
            ly = top + plot_h + 8
            body.append(
                f'<text x="{x:.1f}" y="{ly}" text-anchor="end" transform="rotate(-45 {x:.1f} {ly})">'
                f"{escape(label)}</text>"
            )
        else:
            body.append(f'<text x="{x:.1f}" y="{top + plot_h + 14}" text-anchor="middle">{escape(label)}</text>')
    for n, s in enumerate(subs):
        colour = PALETTE[n % len(PALETTE)]
        pts = [(left + step * i + step / 2, y(means[(s, t)]), t) for i, t in enumerate(targets) if (s, t) in means]
        if len(pts) > 1:
            body.append(
                f'<polyline fill="none" stroke="{colour}" stroke-opacity=".5" points="'
                + " ".join(f"{x:.1f},{yy:.1f}" for x, yy, _ in pts)
                + '"/>'
            )
        for x, yy, t in pts:
            body.append(
                f'<circle cx="{x:.1f}" cy="{yy:.1f}" r="3.5" fill="{colour}"><title>{escape(s)} · '
                f"{escape(str(t))}: mean {_num(means[(s, t)])}</title></circle>"
            )
        lx, ly = left + (n % columns) * LEGEND, legend_top + 16 * (n // columns)
        body.append(
            f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{lx + 14}" y="{ly}">{escape(s)[:34]}</text>'
        )
    return _svg(width, height, body, "mean trial score per target, per submission")


def histogram(scores: Sequence[float], bins: int = 10) -> str:
    """How many trials scored in each tenth of the range (the zeros are the first bar's)."""
    if not scores:
        return ""
    lo, hi = _scale(min(scores), max(scores))
    counts = [0] * bins
    for v in scores:
        counts[min(bins - 1, max(0, int((v - lo) / (hi - lo) * bins)))] += 1
    left, top, plot_h, bar = 44, 10, 140, 40
    width, top_count = left + bins * bar + 20, max(counts)
    body = [
        f'<line x1="{left}" y1="{top + plot_h}" x2="{width - 10}" y2="{top + plot_h}" stroke="#8c959f"/>',
        f'<text x="{left - 4}" y="{top + 8}" text-anchor="end" fill="#57606a">{top_count}</text>',
    ]
    for i, c in enumerate(counts):
        h = plot_h * c / top_count if top_count else 0
        a, b = lo + (hi - lo) * i / bins, lo + (hi - lo) * (i + 1) / bins
        x = left + i * bar
        body.append(
            f'<rect x="{x + 2}" y="{top + plot_h - h:.1f}" width="{bar - 4}" height="{h:.1f}" fill="#54aeff">'
            f"<title>{_num(a)}–{_num(b)}: {c} trial(s)</title></rect>"
        )
        if c:
            body.append(f'<text x="{x + bar / 2}" y="{top + plot_h - h - 3:.1f}" text-anchor="middle">{c}</text>')
        body.append(f'<text x="{x}" y="{top + plot_h + 14}" text-anchor="middle" fill="#57606a">{_num(a)}</text>')
    body.append(
        f'<text x="{left + bins * bar}" y="{top + plot_h + 14}" text-anchor="middle" fill="#57606a">{_num(hi)}</text>'
    )
    return _svg(width, top + plot_h + 24, body, "distribution of trial scores")


def reasons(rows: Sequence[Mapping[str, Any]]) -> str:
    """Trials per zero reason (and per error), longest bar first."""
    counts = Counter(str(r["reason"]) for r in rows if r.get("reason"))
    if not counts:
        return ""
    ordered = counts.most_common()
    left, bar_h, span = 230, 18, 600
    top = max(counts.values())
    body = []
    for i, (reason, n) in enumerate(ordered):
        y = 6 + i * (bar_h + 4)
        w = span * n / top
        body.append(
            f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">{escape(reason)[:36]}</text>'
            f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="#ff8182"><title>{escape(reason)}'
            f': {n} trial(s)</title></rect><text x="{left + w + 4:.1f}" y="{y + 13}">{n}</text>'
        )
    return _svg(left + span + 60, 10 + len(ordered) * (bar_h + 4), body, "trials per zero reason")
