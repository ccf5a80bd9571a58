"""The TrialLoop program format the official packages define: which module of a folder is the program a
participant ran (``entry_rank``), read with ``ast`` and never imported. Science Birds and the PCG Benchmark
problems both take such programs."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from pcg_plugin.core.inputs.folders import read_text, walk

_MAX_PROGRAM_BYTES = 2 * 1024 * 1024  # larger .py files are data, not a participant's entry program


def parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _loop_classes(tree: ast.Module) -> list[str]:
    """Names of classes deriving from ``TrialLoop`` (``TrialLoop`` or ``x.TrialLoop``)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
            (isinstance(b, ast.Name) and b.id == "TrialLoop")
            or (isinstance(b, ast.Attribute) and b.attr == "TrialLoop")
            for b in node.bases
        ):
            out.append(node.name)
    return out


def defines_trial_loop(source: str) -> bool:
    """True when a module defines a class deriving from ``TrialLoop`` (``TrialLoop`` or ``x.TrialLoop``)."""
    tree = parse(source)
    if tree is None:
        # A program that does not parse is still an entry (it scores 0 with program_error); fall back to text.
        return "TrialLoop)" in source or "TrialLoop ):" in source
    return bool(_loop_classes(tree))


def _calls_run_evaluation(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            if name == "run_evaluation":
                return True
    return False


def _has_main_block(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) and "__name__" in ast.unparse(node.test):
            return True
    return False


def entry_rank(source: str) -> int | None:
    """How strongly a module looks like the program the participant ran, or None when it is no entry at all.

    0: calls ``run_evaluation`` and defines or imports its TrialLoop (the official way to start a run);
    1: defines a TrialLoop subclass and has a ``__main__`` block; 2: only defines a TrialLoop subclass.
    Vendored libraries that merely mention ``TrialLoop`` in text define no subclass and are no entry.
    """
    tree = parse(source)
    if tree is None:
        return 2 if defines_trial_loop(source) else None
    defines = bool(_loop_classes(tree))
    official = defines or "chatgpt4pcg" in source or "llms4pcg" in source or "llm4pcg" in source
    if official and _calls_run_evaluation(tree):
        return 0
    if not defines:
        return None
    return 1 if _has_main_block(tree) else 2


def _python_files(folder: Path) -> Iterable[Path]:
    return (p for p in walk(folder) if p.suffix == ".py" and p.stat().st_size <= _MAX_PROGRAM_BYTES)


def find_programs(folder: Path) -> list[Path]:
    """The entry programs of a folder, searched at any depth: the best-ranked modules of ``entry_rank``.

    Several of the same rank are ambiguous (the caller says so); an empty list means no program at all.
    """
    ranked: dict[int, list[Path]] = {}
    for path in _python_files(folder):
        rank = entry_rank(read_text(path))
        if rank is not None:
            ranked.setdefault(rank, []).append(path)
    return ranked[min(ranked)] if ranked else []
