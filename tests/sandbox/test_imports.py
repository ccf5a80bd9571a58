"""The static import graph: local files reached from the entry, external names with their statements.

The property test checks the graph against the real import system: a generated program is run in a child
interpreter loaded the way the sandbox loads it, and the local files Python actually imported must be exactly
the files the graph says are reachable.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pcg_plugin.sandbox.imports import reachable


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _rel(root: Path, paths: list[Path]) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def test_nested_program_with_sibling_modules_and_packages(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "tot/__init__.py": "",
            "tot/tot.py": """
            from pathlib import Path
            import helpers
            from tot import scoring  # tot/tot.py itself (the entry folder comes first): no submodule
            from team import scoring
            from dotenv import load_dotenv

            def run():
                import re
                from lib.deep import inner
            """,
            "tot/helpers.py": "import numpy as np\n",
            "team/__init__.py": "",
            "team/scoring.py": "from . import helpers\n",
            "team/helpers.py": "",
            "lib/__init__.py": "",
            "lib/deep/__init__.py": "from .inner import f\n",
            "lib/deep/inner.py": "from ..top import g\ndef f(): pass\n",
            "lib/top.py": "def g(): pass\n",
            "lib/unused.py": "import openai\n",
            "tot/unused.py": "import anthropic\n",
        },
    )
    graph = reachable(tmp_path / "tot/tot.py", [tmp_path / "tot", tmp_path])
    assert _rel(tmp_path, graph.files) == [
        "tot/tot.py",
        "tot/helpers.py",
        "team/__init__.py",
        "team/scoring.py",
        "lib/__init__.py",
        "lib/deep/__init__.py",
        "lib/deep/inner.py",
        "team/helpers.py",
        "lib/top.py",
    ]
    assert set(graph.external) == {"pathlib", "dotenv", "re", "numpy"}
    (site,) = graph.external["dotenv"]
    assert (site.where(tmp_path), site.statement, site.guarded) == (
        "tot/tot.py:6",
        "from dotenv import load_dotenv",
        False,
    )
    assert graph.external["numpy"][0].where(tmp_path) == "tot/helpers.py:1"
    assert not graph.reaches(tmp_path / "lib/unused.py") and graph.reaches(tmp_path / "lib/top.py")
    assert graph.unresolved == [] and graph.unparsable == []


def test_entry_folder_shadows_the_root_and_packages_beat_modules(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "app/main.py": "import util\nimport pkg\n",
            "app/util.py": "",
            "util.py": "import requests\n",
            "pkg.py": "import socket\n",
            "pkg/__init__.py": "",
        },
    )
    graph = reachable(tmp_path / "app/main.py", [tmp_path / "app", tmp_path])
    assert _rel(tmp_path, graph.files) == ["app/main.py", "app/util.py", "pkg/__init__.py"]
    assert graph.external == {}


def test_from_package_import_submodule_star_and_dynamic(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "main.py": """
            import importlib
            from models import *
            from models import llm, helper_name
            importlib.import_module("plugins.extra")
            __import__("json")
            """,
            "models/__init__.py": "__all__ = ['chat']\nhelper_name = 1\n",
            "models/chat.py": "",
            "models/llm.py": "",
            "models/other.py": "",
            "plugins/extra.py": "",
        },
    )
    graph = reachable(tmp_path / "main.py", [tmp_path])
    assert sorted(_rel(tmp_path, graph.files)) == [
        "main.py",
        "models/__init__.py",
        "models/chat.py",
        "models/llm.py",
        "plugins/extra.py",
    ]
    assert set(graph.external) == {"importlib", "json"}


def test_guarded_imports_are_marked(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "main.py": """
        from typing import TYPE_CHECKING
        try:
            import ujson as json
        except ImportError:
            import json
        try:
            import yaml
        except KeyError:
            pass
        if TYPE_CHECKING:
            import mypy_extensions
        """
        },
    )
    graph = reachable(tmp_path / "main.py", [tmp_path])
    guarded = {name: [s.guarded for s in sites] for name, sites in graph.external.items()}
    assert guarded == {"typing": [False], "ujson": [True], "json": [False], "yaml": [False], "mypy_extensions": [True]}


def test_official_names_stay_external_and_broken_files_are_listed(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "main.py": "import chatgpt4pcg.competition\nfrom .missing import x\nimport broken\n",
            "chatgpt4pcg/__init__.py": "",
            "broken.py": "def (:\n",
        },
    )
    graph = reachable(tmp_path / "main.py", [tmp_path], external={"chatgpt4pcg"})
    assert set(graph.external) == {"chatgpt4pcg"}
    assert [s.statement for s in graph.unresolved] == ["from .missing import x"]
    assert _rel(tmp_path, graph.unparsable) == ["broken.py"]


def test_cycles_and_missing_search_paths_terminate(tmp_path: Path) -> None:
    _write(tmp_path, {"a.py": "import b\n", "b.py": "import a\nimport a\n"})
    graph = reachable(tmp_path / "a.py", [tmp_path / "nope", tmp_path])
    assert _rel(tmp_path, graph.files) == ["a.py", "b.py"]


# ------------------------------------------------------------------------------------------------------------
# the real import system as the oracle

_MODULES = (
    "app/main.py",
    "app/sib.py",
    "pkg/__init__.py",
    "pkg/a.py",
    "pkg/sub/__init__.py",
    "pkg/sub/b.py",
    "top.py",
    "ns/e.py",
)
_ABSOLUTE = (
    "import sib",
    "import top",
    "import pkg",
    "import pkg.a",
    "from pkg import a",
    "from pkg.sub import b",
    "import pkg.sub.b",
    "from pkg.sub.b import X",
    "import ns.e",
    "from ns import e",
    "try:\n    import not_installed_zz\nexcept ImportError:\n    pass",
)
_RELATIVE = {
    "pkg/__init__.py": ("from . import a", "from .sub import b"),
    "pkg/a.py": ("from . import sub", "from .sub import b", "from .sub.b import X"),
    "pkg/sub/__init__.py": ("from . import b", "from .. import a"),
    "pkg/sub/b.py": ("from .. import a", "from ..a import X", "from . import b"),
}
_LOADER = """
import importlib.util, json, sys
entry, paths, root = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
sys.path[:0] = paths
spec = importlib.util.spec_from_file_location("pcg_submission", entry)
module = importlib.util.module_from_spec(spec)
sys.modules["pcg_submission"] = module
spec.loader.exec_module(module)
print(json.dumps(sorted({m.__file__ for m in list(sys.modules.values())
                         if getattr(m, "__file__", None) and m.__file__.startswith(root)})))
"""


@st.composite
def _programs(draw: st.DrawFn) -> dict[str, str]:
    files = {}
    for rel in _MODULES:
        pool = _ABSOLUTE + _RELATIVE.get(rel, ())
        statements = draw(st.lists(st.sampled_from(pool), max_size=3))
        files[rel] = "X = 1\n" + "".join(s + "\n" for s in statements)
    return files


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(program=_programs())
def test_graph_matches_what_python_imports(tmp_path_factory, program: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("prog").resolve()
    _write(root, program)
    entry, paths = root / "app/main.py", [root / "app", root]
    out = subprocess.run(
        [sys.executable, "-I", "-B", "-c", _LOADER, str(entry), json.dumps([str(p) for p in paths]), str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    imported = set(json.loads(out.stdout))
    assert {str(p) for p in reachable(entry, paths).files} == imported
