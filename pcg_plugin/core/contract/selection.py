"""Which problems ``--pcg-problem`` names: one plain name (a run of one problem, as always), or a suite: a comma
list of names and shell-style patterns (``pcgbench/*``, ``gameeval/ask*``) and ``all``. Pure functions of the
text and the installed names, so that a typo is answered with the closest names rather than all 52."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from fnmatch import fnmatchcase

from pcg_plugin.errors import UnknownProblem

ALL = "all"
PATTERN_CHARS = frozenset("*?[")


def unknown(name: str, closest: Sequence[str], installed: int) -> UnknownProblem:
    """The error for a name no problem has (or a pattern none matches), naming the closest installed names."""
    what = "no problem matches" if is_pattern(name) else "no problem"
    near = f"closest: {', '.join(closest)}" if closest else "nothing close"
    return UnknownProblem(
        f"{what} {name!r} ({near}; {installed} installed, listed by `pytest --help` under --pcg-problem; "
        f"a pattern such as 'pcgbench/*' or '{ALL}' takes several)",
        name,
        tuple(closest),
        installed,
    )


def parts(spec: str) -> list[str]:
    """The comma list's entries, stripped; empty entries dropped."""
    return [p.strip() for p in spec.split(",") if p.strip()]


def is_pattern(name: str) -> bool:
    return name == ALL or any(c in PATTERN_CHARS for c in name)


def is_suite(spec: str) -> bool:
    """A list or a pattern is a suite (its own run folder per problem), even when it comes to one problem; one
    plain name is a run of that problem alone, laid out as it always was."""
    names = parts(spec)
    return len(names) != 1 or is_pattern(names[0])


def families(names: Iterable[str]) -> list[str]:
    """``prefix/*`` of every family among ``names`` (``pcgbench/*``)."""
    return sorted({n.split("/", 1)[0] + "/*" for n in names if "/" in n})


def closest(name: str, names: Sequence[str], n: int = 3) -> list[str]:
    """Up to ``n`` installed names (or family patterns) nearest to ``name``, best first."""
    candidates = [*names, *families(names)]
    bare = name.replace("*", "").replace("?", "")
    found = difflib.get_close_matches(bare, candidates, n=n, cutoff=0.6)
    if not found and "/" in bare:  # a known family with an unknown variant: its nearest variants
        prefix = bare.split("/", 1)[0] + "/"
        mine = [c for c in names if c.startswith(prefix)]
        found = difflib.get_close_matches(bare, mine, n=n, cutoff=0.0)
    return found


def select(spec: str, names: Sequence[str], *, accept: Callable[[str], bool] | None = None) -> tuple[str, ...]:
    """The problems ``spec`` names, in the order it names them (a pattern's matches sorted), each once.
    ``accept``: whether a plain name that is not installed is still a problem (a conftest supplies it).
    UnknownProblem for the first entry that names nothing."""
    out: dict[str, None] = {}
    for part in parts(spec):
        if part == ALL:
            found = sorted(names)
        elif is_pattern(part):
            found = sorted(n for n in names if fnmatchcase(n, part))
        elif part in names or (accept is not None and accept(part)):
            found = [part]
        else:
            found = []
        if not found:
            raise unknown(part, closest(part, names), len(names))
        out.update(dict.fromkeys(found))
    if not out:
        raise unknown(spec, (), len(names))
    return tuple(out)
