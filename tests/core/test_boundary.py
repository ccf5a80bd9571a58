"""The harness knows no problem: no module of pcg_plugin.core (nor the pytest entry point and hook specs) imports
anything of ours but the core itself and the shared error and hook modules. Read from the source with ast, so
an import inside a function counts as much as one at the top."""

from __future__ import annotations

import ast
from pathlib import Path

import pcg_plugin

PACKAGE = Path(pcg_plugin.__file__).resolve().parent
CORE = ("pcg_plugin.core", "pcg_plugin.plugin", "pcg_plugin.hooks")
SHARED = ("pcg_plugin.errors", "pcg_plugin.hooks")  # what the core may use besides itself


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, name: str | None = None) -> set[str]:
    """Every pcg_plugin module a file (module ``name``) imports, relative imports resolved; ``from pkg import
    mod`` names mod."""
    name = name or module_name(path)
    out: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names if (PACKAGE.parent / f"{base}.{a.name}".replace(".", "/")).exists()
                    or (PACKAGE.parent / (f"{base}.{a.name}".replace(".", "/") + ".py")).exists()}  # fmt: skip
    return {m for m in out if m == "pcg_plugin" or m.startswith("pcg_plugin.")}


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_core_imports_no_problem():
    core_files = [p for p in sorted(PACKAGE.rglob("*.py")) if within(module_name(p), CORE)]
    assert len(core_files) >= 8
    arrows = sorted(f"{module_name(p)} -> {m}" for p in core_files for m in imports_of(p)
                    if m != "pcg_plugin" and not within(m, CORE + SHARED))  # fmt: skip
    assert arrows == []


def test_the_reader_sees_function_level_and_relative_imports(tmp_path):
    """The check above must not pass because it missed an import."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from ..paths import REPO_ROOT\n    import pcg_plugin.llm.store\n"
                     "    from pcg_plugin import provenance\n")  # fmt: skip
    found = imports_of(probe, "pcg_plugin.core.probe")
    assert found >= {"pcg_plugin.paths", "pcg_plugin.llm.store", "pcg_plugin.provenance"}
    assert not any(within(m, CORE + SHARED) for m in found)
