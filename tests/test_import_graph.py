"""The package's import graph (read by ``tests/import_graph.py``) has no circle, and the reader sees every arrow."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_graph import arrows_between, build_graph, cycles, folders  # tests/ is on sys.path (rootdir conftest)


@pytest.mark.parametrize("level", ["modules", "folders"])
def test_the_package_has_no_import_circle(level: str) -> None:
    graph = build_graph()
    found = cycles(graph if level == "modules" else folders(graph))
    assert not found, f"import circles between {level} (each group imports itself round a circle): " + "; ".join(
        " <-> ".join(group) for group in found
    )


def _package(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / "pkg" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_every_kind_of_import_is_an_arrow(tmp_path: Path) -> None:
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "import pkg.b\nfrom pkg import c\nfrom pkg.sub.d import thing\n",
            "b.py": "def f():\n    from . import sub\n",  # lazy and relative: the package ``pkg.sub``
            "c.py": "from .sub import d as dee\nfrom os import path\n",  # a submodule; the stdlib is not ours
            "sub/__init__.py": "from .d import thing\n",
            "sub/d.py": "from ..a import name\nthing = 1\n",  # two levels up, a name in pkg.a: an arrow to pkg.a
        },
    )
    graph = build_graph(pkg, "pkg")
    assert graph == {
        "pkg": set(),
        "pkg.a": {"pkg.b", "pkg.c", "pkg.sub.d"},
        "pkg.b": {"pkg.sub"},
        "pkg.c": {"pkg.sub.d"},
        "pkg.sub": {"pkg.sub.d"},
        "pkg.sub.d": {"pkg.a"},
    }
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c", "pkg.sub", "pkg.sub.d"]]
    assert arrows_between(graph, ["pkg.sub"], ["pkg.a", "pkg.b"]) == [("pkg.sub.d", "pkg.a")]
    assert folders(graph) == {
        "pkg": set(),
        "pkg.a": {"pkg.b", "pkg.c", "pkg.sub"},
        "pkg.b": {"pkg.sub"},
        "pkg.c": {"pkg.sub"},
        "pkg.sub": {"pkg.a"},
    }


def test_a_circle_through_a_folder_shows_only_at_folder_level() -> None:
    graph = {"p.child": {"p.compat.models"}, "p.compat.models": set(), "p.compat.shims.x": {"p.child"}}
    assert cycles(graph) == []
    assert cycles(folders(graph)) == [["p.child", "p.compat"]]


def test_no_circle_is_reported_for_a_one_way_graph() -> None:
    assert cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
