"""The report's cross-play section (``--pcg-cross-play``): the wins per model per assignment with a Total row, the
role x role matrix as a heatmap, and the ratings with their 95 % intervals as a chart. Inline SVG, no script: pure
functions from results.json's ``cross_play`` to HTML."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

CELL_W, CELL_H = 120, 34
FONT = 'font-family="system-ui,sans-serif" font-size="12"'


def _short(name: str, chars: int = 26) -> str:
    return name if len(name) <= chars else "…" + name[-(chars - 1) :]


def labels(models: Sequence[str]) -> dict[str, str]:
    """Each model's label on a chart: without the part every name shares up to a ``/`` or ``:``
    (``scripted/players:rules`` -> ``rules``), the whole name in each label's tooltip."""
    names = list(dict.fromkeys(models))
    cut = 0
    if len(names) > 1:
        first = names[0]
        for i, ch in enumerate(first):
            if any(len(n) <= i or n[i] != ch for n in names[1:]):
                break
            if ch in "/:":
                cut = i + 1
    return {n: n[cut:] or n for n in names}


def _fill(value: float | None) -> str:
    """White (0) to blue (100); grey where there is no value."""
    if value is None:
        return "#eeeeee"
    t = max(0.0, min(1.0, value / 100))
    r, g, b = (round(255 + (c - 255) * t) for c in (9, 105, 218))
    return f"rgb({r},{g},{b})"


def _num(value: Any) -> str:
    return "–" if value is None else f"{value:g}"


def heatmap(matrix: Mapping[str, Any]) -> str:
    """The role x role matrix: one cell per (row model, column model), coloured by its value (0-100), the rows'
    and columns' means in a last column and row."""
    rows, cols = matrix["rows"]["models"], matrix["columns"]["models"]
    short = {**labels([*rows, *cols]), "mean": "mean"}
    left, top = 190, 64
    width, height = left + (len(cols) + 1) * CELL_W + 10, top + (len(rows) + 1) * CELL_H + 30
    out = [
        f'<text x="{left}" y="16" font-weight="600">{escape(matrix["columns"]["role"])} →</text>',
        f'<text x="8" y="{top - 8}" font-weight="600">{escape(matrix["rows"]["role"])} ↓</text>',
    ]
    for j, name in enumerate([*cols, "mean"]):
        x = left + j * CELL_W + CELL_W / 2
        label = f"<title>{escape(name)}</title>{escape(_short(short[name], 18))}"
        out.append(f'<text x="{x}" y="{top - 10}" text-anchor="middle">{label}</text>')
    for i, name in enumerate([*rows, "mean"]):
        y = top + i * CELL_H
        label = f"<title>{escape(name)}</title>{escape(_short(short[name]))}"
        out.append(f'<text x="{left - 8}" y="{y + CELL_H / 2 + 4}" text-anchor="end">{label}</text>')
        if i < len(rows):
            values = [c["value"] if c else None for c in matrix["cells"][i]] + [matrix["row_means"][i]]
        else:
            values = [*matrix["column_means"], None]
        for j, value in enumerate(values):
            x = left + j * CELL_W
            mean = i == len(rows) or j == len(cols)
            cell = matrix["cells"][i][j] if not mean else None
            tip = f"{name} x {([*cols, 'mean'])[j]}: {_num(value)}" + (f", {cell['episodes']} episodes" if cell else "")
            colour = "#f6f8fa" if mean and value is None else _fill(value)
            ink = "#ffffff" if value is not None and value > 60 and not mean else "#1b1f24"
            out.append(
                f'<g><title>{escape(tip)}</title><rect x="{x}" y="{y}" width="{CELL_W - 2}" height="{CELL_H - 2}" '
                f'fill="{colour}" stroke="{"#57606a" if mean else "none"}" stroke-dasharray="3,2"/>'
                f'<text x="{x + CELL_W / 2}" y="{y + CELL_H / 2 + 4}" text-anchor="middle" fill="{ink}">'
                f"{_num(value)}</text></g>"
            )
    out.append(f'<text x="8" y="{height - 8}" fill="#57606a">{escape(matrix["value"])}</text>')
    return _svg(width, height, out, f"cross-play matrix: {matrix['rows']['role']} x {matrix['columns']['role']}")


def ratings_chart(ratings: Sequence[Mapping[str, Any]]) -> str:
    """Each model's rating (a dot) and its 95 % bootstrap interval (a bar), best first, on one Elo axis."""
    if not ratings:
        return ""
    lo = min(r["low"] for r in ratings)
    hi = max(r["high"] for r in ratings)
    lo, hi = (lo - 50, hi + 50) if hi > lo else (lo - 100, hi + 100)
    short = labels([r["model"] for r in ratings])
    left, right, row = 220, 40, 30
    width, height = 760, 40 + row * len(ratings) + 30

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (width - left - right)

    out = []
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        out.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="24" y2="{height - 26}" stroke="#d0d7de"/>')
        out.append(f'<text x="{x(v):.1f}" y="{height - 10}" text-anchor="middle" fill="#57606a">{v:.0f}</text>')
    for i, r in enumerate(ratings):
        y = 40 + i * row
        rank = f"{r['rank_low']}" if r["rank_low"] == r["rank_high"] else f"{r['rank_low']}–{r['rank_high']}"
        tip = f"{r['model']}: {r['rating']:.0f} (95% {r['low']:.0f} to {r['high']:.0f}), rank {rank}"
        name = escape(_short(short[r["model"]]))
        out.append(
            f"<g><title>{escape(tip)}</title>"
            f'<text x="{left - 10}" y="{y + 4}" text-anchor="end">{name} (rank {rank})</text>'
            f'<line x1="{x(r["low"]):.1f}" x2="{x(r["high"]):.1f}" y1="{y}" y2="{y}" stroke="#0969da" stroke-width="6" '
            f'stroke-linecap="round" opacity="0.45"/>'
            f'<circle cx="{x(r["rating"]):.1f}" cy="{y}" r="6" fill="#0969da"/>'
            f'<text x="{x(r["rating"]):.1f}" y="{y - 9}" text-anchor="middle">{r["rating"]:.0f}</text></g>'
        )
    out.append(f'<text x="{left}" y="16" fill="#57606a">rating (Elo scale) with its 95 % bootstrap interval</text>')
    return _svg(width, height, out, "ratings with 95 % intervals")


def _svg(width: float, height: float, body: list[str], label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pcg-chart" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(label)}" {FONT}>{"".join(body)}</svg>'
    )


def wins_table(doc: Mapping[str, Any]) -> str:
    """Adversarial games: wins per model per assignment (GameEval's TofuKingdom table) and the Total row."""
    models, roles = doc["models"], doc["roles"]
    head = "".join(f"<th>{escape(m)}</th>" for m in models)
    body = []
    for a in doc["assignments"]:
        who = " / ".join(f"{escape(r)}: {escape(a['roles'][r])}" for r in roles)
        cells = "".join(f"<td>{a['wins'].get(m, 0) if m in a['roles'].values() else '–'}</td>" for m in models)
        body.append(f'<tr><td class="l">{who}</td><td>{a["episodes"]}</td>{cells}</tr>')
    total = "".join(f"<td><b>{doc['totals'].get(m, 0)}</b></td>" for m in models)
    body.append(f'<tr><td class="l"><b>Total</b></td><td>{doc["decided"]} won</td>{total}</tr>')
    return f'<table><tr><th class="l">assignment</th><th>games</th>{head}</tr>{"".join(body)}</table>'


def ratings_table(ratings: Sequence[Mapping[str, Any]]) -> str:
    rows = "".join(
        f'<tr><td>{r["rank"]}</td><td>{r["rank_low"]}–{r["rank_high"]}</td><td class="l">{escape(r["model"])}</td>'
        f"<td>{r['rating']:.0f}</td><td>{r['low']:.0f} – {r['high']:.0f}</td>"
        f"<td>{r['wins']}</td><td>{r['games']}</td></tr>"
        for r in ratings
    )
    return (
        '<table><tr><th>rank</th><th>95% rank</th><th class="l">model</th><th>rating</th><th>95% interval</th>'
        f"<th>outcomes won</th><th>outcomes</th></tr>{rows}</table>"
    )


def section(doc: Mapping[str, Any] | None) -> str:
    """The report's cross-play section (empty without cross-play)."""
    if not doc:
        return ""
    method = doc["rating_method"]
    parts = [f'<h2 id="cross-play">Cross-play: {" x ".join(escape(r) for r in doc["roles"])}</h2>']
    if doc["kind"] == "adversarial":
        parts.append(
            '<p class="meta">Wins per model per assignment (the reference\'s counting: a game with no '
            "winner counts for nobody); Total = the games with a winner.</p>"
        )
        parts.append(wins_table(doc))
    if doc.get("matrix"):
        if doc["kind"] == "cooperative":
            parts.append(f'<p class="meta">{escape(doc["score"])}</p>')
        parts.append(f'<div class="pcg-heatmap">{heatmap(doc["matrix"])}</div>')
    parts.append(
        f'<h3>Ratings</h3><p class="meta">{escape(method["fit"])}, fitted by {escape(method["library"])} on every '
        f"episode's outcome ({doc['choices']} outcomes); {escape(method['scale'])}; {escape(method['intervals'])}. "
        "Few games give wide intervals: read the ranks with them.</p>"
    )
    parts.append(f'<div class="pcg-ratings">{ratings_chart(doc["ratings"])}</div>')
    parts.append(ratings_table(doc["ratings"]))
    return "\n".join(parts)
