"""The picture of the package by floor on the contributing pages is the code's own graph, redrawn
(scripts/figures/package_graph.py): a move or a new import that changes it fails here until the picture is made
again."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "figures" / "package_graph.py"


def _script():
    spec = importlib.util.spec_from_file_location("package_graph", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_picture_is_current():
    graph = _script()
    assert graph.OUT.read_text(encoding="utf-8") == graph.svg(), "run: python scripts/figures/package_graph.py"
    assert graph.CORE_OUT.read_text(encoding="utf-8") == graph.svg(core=True), (
        "run: python scripts/figures/package_graph.py"
    )


def test_every_package_stands_on_a_floor_and_every_line_points_down_or_across():
    graph = _script()
    floors, lines = graph.boxes_and_lines()
    floor_of = {box: f for f, boxes in floors.items() for box in boxes}
    assert {"core/", "sandbox/", "llm/", "episode/", "problems/science_birds", "problems/pcgbench"} <= set(floor_of)
    assert lines and all(floor_of[a] >= floor_of[b] for a, b in lines)


def test_the_harness_picture_shows_every_room_and_every_line_points_down_or_across():
    graph = _script()
    floors, lines = graph.boxes_and_lines(core=True)
    floor_of = {box: f for f, boxes in floors.items() for box in boxes}
    rooms = {f"{name}/" for name, _ in graph.CORE_FLOORS}
    assert rooms <= set(floor_of), sorted(rooms - set(floor_of))
    assert {"session/inflight/", "views/site/"} <= set(floor_of)
    assert lines and all(floor_of[a] >= floor_of[b] for a, b in lines)
