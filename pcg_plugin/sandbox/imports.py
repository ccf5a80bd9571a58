"""The import graph of a participant's program, as the sandbox child will run it: static, from the AST only.

``reachable(entry, search_paths)`` follows every import statement of the entry (module level, inside functions,
inside try/except, ``importlib.import_module("x")`` with a constant name) to the local ``.py`` files and
packages it loads from ``search_paths`` (the folders the child puts on ``sys.path``: the entry's own folder,
then the submission root), and records every other top-level module name with the statements that import it.
Participant code is never executed. Resolution mirrors ``importlib``'s path finder: in each search path a
package ``name/__init__.py`` wins over a module ``name.py``, and a folder without ``__init__.py`` is a namespace
package only when no search path has a regular one. Relative imports resolve through the folders the file sits
in (``from .x import y`` in ``pkg/a.py`` is ``pkg/x``), the way they resolve when the file is imported as
part of its package.

Imports that might never run (inside a function, behind ``if``) are followed all the same: the graph is what
the program *can* load, which is what the rule checks and the requirements check must judge.
"""

from __future__ import annotations

import ast
import contextlib
import io
import tokenize
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# Exceptions whose handler makes a failing import harmless (``try: import ujson except ImportError: ...``).
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


@dataclass(frozen=True)
class ImportSite:
    """One statement importing a module: where, what it says, and whether a failure there is caught."""

    file: Path
    line: int
    statement: str
    guarded: bool = False  # inside ``try`` with an ImportError-catching handler, or under ``if TYPE_CHECKING``

    def where(self, root: Path | None = None) -> str:
        """``tot/tot.py:6`` (relative to ``root`` when the file lies under it)."""
        shown = self.file
        if root is not None:
            with contextlib.suppress(ValueError):
                shown = self.file.relative_to(root)
        return f"{shown.as_posix()}:{self.line}"


@dataclass
class ImportGraph:
    """What the entry can load: local files (entry first, then in discovery order), external top-level names
    with every statement importing them, and relative/local imports that resolve to nothing."""

    entry: Path
    files: list[Path] = field(default_factory=list)
    external: dict[str, list[ImportSite]] = field(default_factory=dict)
    unresolved: list[ImportSite] = field(default_factory=list)
    unparsable: list[Path] = field(default_factory=list)

    def reaches(self, path: Path) -> bool:
        return path.resolve() in {f.resolve() for f in self.files}


@dataclass(frozen=True)
class _Request:
    """One module an import statement asks for: absolute dotted name, or (level, dotted rest) when relative."""

    name: str
    level: int
    site: ImportSite
    names: tuple[str, ...] = ()  # ``from X import a, b``: a and b may be submodules of X


def _parse(path: Path) -> ast.Module | None:
    try:
        data = path.read_bytes()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return ast.parse(data.decode(encoding, errors="replace"), filename=str(path))
    except (OSError, SyntaxError, ValueError, LookupError, RecursionError):
        return None


def _handler_names(handler: ast.ExceptHandler) -> set[str]:
    if handler.type is None:
        return {"BaseException"}
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {t.id if isinstance(t, ast.Name) else getattr(t, "attr", "") for t in types}


def _is_type_checking(test: ast.AST) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _guarded_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes whose import failure cannot stop the program: the body of a try that catches
    ImportError (or wider), and ``if TYPE_CHECKING:`` blocks (never run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        body: list[ast.stmt] = []
        if (
            isinstance(node, (ast.Try, ast.TryStar)) and any(_handler_names(h) & _IMPORT_ERRORS for h in node.handlers)
        ) or (isinstance(node, ast.If) and _is_type_checking(node.test)):
            body = node.body
        for stmt in body:
            out.update(id(n) for n in ast.walk(stmt))
    return out


def _statement(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except (ValueError, AttributeError, RecursionError):  # pragma: no cover - exotic trees
        return type(node).__name__
    return text if len(text) <= 100 else text[:97] + "..."


def _dynamic_name(node: ast.Call) -> str | None:
    """``importlib.import_module("x")`` / ``__import__("x")`` with a constant absolute name."""
    func = node.func
    is_call = (isinstance(func, ast.Name) and func.id in ("__import__", "import_module")) or (
        isinstance(func, ast.Attribute) and func.attr == "import_module"
    )
    arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "name"), None)
    if is_call and isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value:
        return arg.value if not arg.value.startswith(".") else None
    return None


def _requests(tree: ast.Module, path: Path) -> Iterator[_Request]:
    guarded = _guarded_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield _Request(alias.name, 0, _site(path, node, guarded))
        elif isinstance(node, ast.ImportFrom):
            names = tuple(a.name for a in node.names)
            yield _Request(node.module or "", node.level, _site(path, node, guarded), names)
        elif isinstance(node, ast.Call) and (name := _dynamic_name(node)):
            yield _Request(name, 0, _site(path, node, guarded))


def _site(path: Path, node: ast.AST, guarded: set[int]) -> ImportSite:
    """Where an import is (made only for the nodes that import: most nodes are not imports)."""
    return ImportSite(path, getattr(node, "lineno", 1), _statement(node), id(node) in guarded)


@dataclass(frozen=True)
class _Found:
    """A module located on disk: its file (``__init__.py`` for a regular package), or None for a namespace
    package, and the folders its submodules are searched in."""

    file: Path | None
    path: tuple[Path, ...]


def _find_top(name: str, search_paths: Sequence[Path]) -> _Found | None:
    """``importlib.machinery.PathFinder`` for a top-level name, on the filesystem only."""
    portions: list[Path] = []
    for folder in search_paths:
        pkg = folder / name
        if (pkg / "__init__.py").is_file():
            return _Found(pkg / "__init__.py", (pkg,))
        if (folder / f"{name}.py").is_file():
            return _Found(folder / f"{name}.py", ())
        if pkg.is_dir():
            portions.append(pkg)
    return _Found(None, tuple(portions)) if portions else None


def _find_sub(name: str, parent: _Found) -> _Found | None:
    return _find_top(name, parent.path) if parent.path else None


def _package_dir(path: Path) -> Path:
    """The folder of the package a file belongs to (``pkg/__init__.py`` and ``pkg/a.py`` both: ``pkg``)."""
    return path.parent


class _Walker:
    def __init__(self, entry: Path, search_paths: Sequence[Path], external: Collection[str]) -> None:
        self.search_paths = [p for p in search_paths if p.is_dir()]
        self.always_external = set(external)
        self.graph = ImportGraph(entry)
        self.seen: set[Path] = set()
        self.todo: list[Path] = []

    def add(self, file: Path | None) -> None:
        if file is None:
            return
        key = file.resolve()
        if key not in self.seen:
            self.seen.add(key)
            self.graph.files.append(file)
            self.todo.append(file)

    def load_chain(self, parts: Sequence[str], start: _Found | None) -> _Found | None:
        """Import ``parts`` one by one below ``start`` (every package ``__init__`` on the way runs)."""
        found = start
        for part in parts:
            found = _find_sub(part, found) if found is not None else None
            if found is None:
                return None
            self.add(found.file)
        return found

    def absolute(self, req: _Request) -> None:
        parts = req.name.split(".")
        top = parts[0]
        found = None if top in self.always_external else _find_top(top, self.search_paths)
        if found is None:
            self.graph.external.setdefault(top, []).append(req.site)
            return
        self.add(found.file)
        found = self.load_chain(parts[1:], found)
        if found is None:
            self.graph.unresolved.append(req.site)
            return
        self.from_names(req, found)

    def relative(self, req: _Request, importer: Path) -> None:
        base = _package_dir(importer)
        for _ in range(req.level - 1):
            base = base.parent
        start = _Found(base / "__init__.py" if (base / "__init__.py").is_file() else None, (base,))
        self.add(start.file)
        found = self.load_chain(req.name.split(".") if req.name else [], start)
        if found is None:
            self.graph.unresolved.append(req.site)
            return
        self.from_names(req, found)

    def from_names(self, req: _Request, found: _Found) -> None:
        """``from X import a`` loads submodule X.a when there is one; ``*`` loads the listed ``__all__``."""
        names = list(req.names)
        if "*" in names:
            names = self.star_names(found)
        for name in names:
            sub = _find_sub(name, found)
            if sub is not None:
                self.add(sub.file)

    def star_names(self, found: _Found) -> list[str]:
        tree = _parse(found.file) if found.file is not None else None
        for node in tree.body if tree is not None else []:
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                and isinstance(node.value, (ast.List, ast.Tuple))
            ):
                return [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return []

    def run(self) -> ImportGraph:
        self.add(self.graph.entry)
        while self.todo:
            file = self.todo.pop(0)
            tree = _parse(file)
            if tree is None:
                self.graph.unparsable.append(file)
                continue
            for req in _requests(tree, file):
                if req.level:
                    self.relative(req, file)
                elif req.name:
                    self.absolute(req)
        return self.graph


def reachable(entry: Path, search_paths: Sequence[Path], *, external: Collection[str] = ()) -> ImportGraph:
    """The local files the entry can load and the external top-level modules it imports.

    ``search_paths`` in ``sys.path`` order (the entry's folder, then the submission root); ``external`` names
    that are never local because the harness serves them first (the official packages' stand-ins).
    """
    return _Walker(entry, search_paths, external).run()
