"""The house has floors and every arrow points down: the harness knows no problem, no shared package imports a
problem, and no problem imports another (read with ast by tests/import_graph.py, so an import inside a
function counts as much as one at the top). The floors are ``import_graph.FLOORS``; the picture of them on the
contributing pages is drawn from the same table (``scripts/figures/package_graph.py``)."""

from __future__ import annotations

import pytest
from import_graph import CORE_FLOORS, FLOORS, arrows_between, build_graph, core_floor_of, floor_of

CORE = ("pcg_plugin.core", "pcg_plugin.plugin", "pcg_plugin.hooks")
# what the core and the pytest entry may use besides themselves (the entry registers --pcg-sandbox-start, and
# --pcg-cluster with its driver: pcg_plugin.cluster knows no problem, test_no_shared_package_imports_a_problem)
SHARED = ("pcg_plugin.errors", "pcg_plugin.hooks", "pcg_plugin._util", "pcg_plugin.sandbox.start", "pcg_plugin.cluster")
PROBLEMS = "pcg_plugin.problems"
GRAPH = build_graph()


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_core_imports_no_problem():
    graph = GRAPH
    core = [m for m in graph if _within(m, CORE)]
    assert len(core) >= 8
    others = [m for m in graph if not _within(m, CORE + SHARED) and m != "pcg_plugin"]
    assert [(a, b) for a, b in arrows_between(graph, CORE, others) if b in others] == []


@pytest.mark.parametrize(
    "package", sorted({".".join(m.split(".")[:2]) for m in GRAPH if not m.startswith(PROBLEMS) and m != "pcg_plugin"})
)
def test_no_shared_package_imports_a_problem(package: str):
    """Every package outside problems/ (core, sandbox, llm, episode, _util, and the top modules) imports no
    module inside it: a problem's knowledge lives in its own folder."""
    assert arrows_between(GRAPH, [package], [PROBLEMS]) == []


def test_no_problem_imports_another_problem():
    graph = GRAPH

    def problem(m: str) -> str:
        return ".".join(m.split(".")[:3])

    crossing = [
        (a, b)
        for a, dsts in graph.items()
        if a.startswith(PROBLEMS + ".")
        for b in dsts
        if b.startswith(PROBLEMS + ".") and problem(a) != problem(b)
    ]
    assert crossing == []


def test_every_arrow_points_to_the_same_floor_or_below():
    graph = GRAPH
    up = [(a, b) for a, dsts in graph.items() for b in dsts if floor_of(b) > floor_of(a)]
    assert up == [], f"imports that climb a floor ({[n for n, _ in FLOORS]}): {up}"


def test_every_module_has_a_floor():
    assert all(floor_of(m) >= 0 for m in GRAPH)


def test_an_arrow_from_the_core_into_a_problem_is_seen():
    graph = {
        "pcg_plugin.core.session.items": {"pcg_plugin.errors"},
        "pcg_plugin.core.x": {"pcg_plugin.scoring"},
        "pcg_plugin.scoring": set(),
        "pcg_plugin.errors": set(),
    }
    assert arrows_between(graph, CORE, ["pcg_plugin.scoring"]) == [("pcg_plugin.core.x", "pcg_plugin.scoring")]


def test_an_arrow_that_climbs_is_seen():
    assert floor_of("pcg_plugin.problems.imagegame.item") > floor_of("pcg_plugin.llm.store")
    assert floor_of("pcg_plugin.core.session.items") > floor_of("pcg_plugin._util.atomic")


def test_every_core_module_stands_in_a_room():
    """Each module of the harness lives in one of its named rooms (``CORE_FLOORS``), none loose in ``core/``."""
    loose = [m for m in GRAPH if m.startswith("pcg_plugin.core.") and core_floor_of(m) < 0]
    assert loose == []


def test_inside_the_core_every_arrow_points_to_the_same_room_or_below():
    up = [
        (a, b)
        for a, dsts in GRAPH.items()
        for b in dsts
        if core_floor_of(a) >= 0 and core_floor_of(b) > core_floor_of(a)
    ]
    assert up == [], f"core imports that climb a room ({[n for n, _ in CORE_FLOORS]}): {up}"
