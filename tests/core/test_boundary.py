"""The harness knows no problem: no module of pcg_plugin.core (nor the pytest entry point and hook specs) imports
anything of ours but the core itself and the shared error and hook modules (read with ast by
tests/import_graph.py, so an import inside a function counts as much as one at the top)."""

from __future__ import annotations

from import_graph import arrows_between, build_graph

CORE = ("pcg_plugin.core", "pcg_plugin.plugin", "pcg_plugin.hooks")
SHARED = ("pcg_plugin.errors", "pcg_plugin.hooks", "pcg_plugin.sandbox.start",
          "pcg_plugin._util.cache_dir")  # what the core may use besides itself


def test_the_core_imports_no_problem():
    graph = build_graph()
    core = [m for m in graph if any(m == p or m.startswith(p + ".") for p in CORE)]
    assert len(core) >= 8
    others = [m for m in graph if m not in core and m not in SHARED and m != "pcg_plugin"]
    assert [(a, b) for a, b in arrows_between(graph, CORE, others) if b in others] == []


def test_an_arrow_from_the_core_into_a_problem_is_seen():
    graph = {"pcg_plugin.core.items": {"pcg_plugin.errors"}, "pcg_plugin.core.x": {"pcg_plugin.scoring"},
             "pcg_plugin.scoring": set(), "pcg_plugin.errors": set()}  # fmt: skip
    assert arrows_between(graph, CORE, ["pcg_plugin.scoring"]) == [("pcg_plugin.core.x", "pcg_plugin.scoring")]
