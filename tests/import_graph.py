"""The package's own import graph, read with ``ast`` (no module is imported): arrows, cycles, forbidden arrows.

Every ``import`` and ``from ... import`` counts, at module level or inside a function (a lazy import is still an
arrow); relative imports are resolved; ``from pcg_plugin import x`` is an arrow to ``pcg_plugin.x`` when ``x`` is
a module. A package's ``__init__`` is the package's own node; importing ``a.b`` is not counted as importing ``a``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

PACKAGE = "pcg_plugin"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

Graph = dict[str, set[str]]


def module_names(root: Path = ROOT, package: str = PACKAGE) -> dict[str, Path]:
    """Dotted name -> file for every module under ``root`` (``pkg/__init__.py`` is ``pkg``)."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _target(name: str, modules: dict[str, Path]) -> str | None:
    """The longest known module that ``name`` starts with (``a.b.func`` -> ``a.b``), or None if not ours."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> Iterable[str]:
    """The dotted names one import statement reaches (before they are matched to modules)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    for alias in node.names:
        yield f"{base}.{alias.name}"  # a submodule if there is one, else _target falls back to ``base``


def build_graph(root: Path = ROOT, package: str = PACKAGE) -> Graph:
    """Module -> the package modules it imports."""
    modules = module_names(root, package)
    graph: Graph = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for dotted in _imported(node, name, path.name == "__init__.py"):
                    target = _target(dotted, modules)
                    if target is not None and target != name:
                        graph[name].add(target)
    return graph


def folders(graph: Graph, depth: int = 2) -> Graph:
    """The same graph with each module replaced by its folder (``pcg_plugin.sandbox.official_api.shims.x`` ->
    ``pcg_plugin.sandbox.official_api``).

    A circle through a folder shows here even when no single module closes it: the sandbox child puts
    ``compat/shims`` on its path and loads them by their own names, which no import statement in it says.
    """

    def top(module: str) -> str:
        return ".".join(module.split(".")[:depth])

    out: Graph = {}
    for src, dsts in graph.items():
        out.setdefault(top(src), set()).update(top(d) for d in dsts if top(d) != top(src))
    return out


def cycles(graph: Graph) -> list[list[str]]:
    """Every group of modules that import each other round a circle (strongly connected, more than one)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan; the graph is small enough for recursion
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _within(module: str, prefixes: Iterable[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def arrows_between(graph: Graph, sources: Iterable[str], targets: Iterable[str]) -> list[tuple[str, str]]:
    """Arrows from a module in ``sources`` to one in ``targets`` (each given as modules or package prefixes)."""
    sources, targets = tuple(sources), tuple(targets)
    return sorted(
        (src, dst) for src, dsts in graph.items() if _within(src, sources) for dst in dsts if _within(dst, targets)
    )


# The floors of the house, lowest first: a module may import its own floor and those below, never above.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("pcg_plugin.errors", "pcg_plugin.hooks", "pcg_plugin._util")),
    ("harness", ("pcg_plugin.core",)),
    ("services", ("pcg_plugin.sandbox", "pcg_plugin.llm", "pcg_plugin.cluster")),
    ("episodes", ("pcg_plugin.episode",)),
    ("problems", ("pcg_plugin.problems",)),
    ("entry", ("pcg_plugin.plugin", "pcg_plugin.cli", "pcg_plugin.__main__", "pcg_plugin")),
)


# The harness's own floors, lowest first (``pcg_plugin.core.<room>``): the same rule inside the core.
CORE_FLOORS: tuple[tuple[str, str], ...] = (
    ("stats", "bootstrap intervals"),
    ("contract", "what a problem is, how one is chosen"),
    ("inputs", "what was submitted"),
    ("records", "what a trial leaves"),
    ("results", "finished runs and their judgement"),
    ("views", "seeing trials and runs"),
    ("session", "running a session"),
    ("commands", "the pcg commands of the harness"),
)


def core_floor_of(module: str) -> int:
    """The core floor of a ``pcg_plugin.core.<room>...`` module (its index in ``CORE_FLOORS``); -1: not in one."""
    parts = module.split(".")
    if parts[:2] != ["pcg_plugin", "core"] or len(parts) < 3:
        return -1
    names = [name for name, _ in CORE_FLOORS]
    return names.index(parts[2]) if parts[2] in names else -1


def floor_of(module: str) -> int:
    """The floor a module stands on (the longest prefix wins: ``pcg_plugin`` itself is the top); -1: none."""
    best, found = -1, -1
    for i, (_, prefixes) in enumerate(FLOORS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, found = len(p), i
    return found
