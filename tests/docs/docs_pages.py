"""What the documentation says, read as data: its pages, their code, the repository paths, command lines and
measured figures they name. The tests in this folder check each against the repository and the real parsers,
so a renamed path, option or command fails a test instead of leaving the docs stale."""

from __future__ import annotations

import contextlib
import glob
import importlib
import importlib.util
import io
import re
import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# Pages outside docs/ that name paths and commands too.
TOP_PAGES = ("README.md", "CONTRIBUTING.md")
# A repository path starts at one of these; `submissions/...` is the reader's own folder in examples (team_x),
# so only `submissions/` itself is checked.
PATH_ROOTS = ("pcg_plugin", "tests", "scripts", "docs", "examples", "templates", ".ci")
_ROOTS = "|".join(re.escape(r) for r in PATH_ROOTS)
_PATH = re.compile(r"(?<![\w./~$<>-])((?:" + _ROOTS + r")/(?:[\w.*/-]|\{[\w,.-]*\})*)")
_MODULE_REF = re.compile(r"(?<![\w./])pcg_plugin(?:\.[A-Za-z_]\w*)+")
_OPTION = re.compile(r"--pcg-[a-z0-9]+(?:-[a-z0-9]+)*")
_FENCE = re.compile(
    r"^(?P<indent> {0,4})(?P<fence>```+|~~~+)(?P<lang>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$", re.M | re.S
)
_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
SHELL_LANGS = {"", "bash", "sh", "shell", "console", "text"}


@dataclass(frozen=True)
class Page:
    path: Path
    text: str

    @property
    def name(self) -> str:
        return self.path.relative_to(ROOT).as_posix() if self.path.is_relative_to(ROOT) else self.path.name

    def fences(self) -> list[tuple[str, str]]:
        """(language, body) of every fenced code block."""
        return [(m["lang"].strip().split(" ")[0].lower(), m["body"]) for m in _FENCE.finditer(self.text)]

    def prose(self) -> str:
        """The text with fenced code blocks blanked out (line numbers kept)."""
        return _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), self.text)

    def spans(self) -> list[str]:
        """Every inline code span of the prose."""
        return [m.group(2).strip() for m in _SPAN.finditer(self.prose())]


def pages() -> list[Page]:
    """Every Markdown page under docs/ (listed in the nav or not) and the top-level pages."""
    paths = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.relative_to(DOCS).parts)
    paths += [ROOT / name for name in TOP_PAGES if (ROOT / name).is_file()]
    return [Page(p, p.read_text(encoding="utf-8")) for p in paths]


def page_ids(items: list[Page]) -> list[str]:
    return [p.name for p in items]


# ---- repository paths -------------------------------------------------------------------------------------------


def _expand_braces(path: str) -> list[str]:
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [out for part in m.group(1).split(",") for out in _expand_braces(path[: m.start()] + part + path[m.end() :])]


def repo_paths(text: str) -> list[str]:
    """Repository paths the text names, in order, without trailing punctuation."""
    found = []
    for m in _PATH.finditer(text):
        path = m.group(1).rstrip(".")
        if text[m.end() : m.end() + 1] == "<":  # `tests/test_<module>.py`: the folder before the placeholder
            path = path.rsplit("/", 1)[0] + "/"
        found.append(path)
    return found


def missing_path(path: str, root: Path = ROOT) -> str | None:
    """None when the path exists (a glob: when it matches); else what is missing."""
    for one in _expand_braces(path):
        if any(c in one for c in "*?["):
            if not glob.glob(str(root / one)):
                return f"{one} (matches nothing)"
        elif not (root / one).exists():
            return one
    return None


def missing_module_ref(ref: str) -> str | None:
    """None when ``pcg_plugin.a.b.C`` names a module or an attribute of one; else why not."""
    parts = ref.split(".")
    module: ModuleType | None = None
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            found = None
        if found is not None:
            module = importlib.import_module(name)
            rest = parts[i:]
            break
    if module is None:
        return f"{ref}: no such module"
    obj: object = module
    for attr in rest:
        if not hasattr(obj, attr):
            return f"{ref}: {getattr(obj, '__name__', obj)!s} has no {attr!r}"
        obj = getattr(obj, attr)
    return None


def module_refs(text: str) -> list[str]:
    return [m.group(0).rstrip(".") for m in _MODULE_REF.finditer(text)]


# ---- command lines ----------------------------------------------------------------------------------------------


def _logical_lines(body: str) -> list[str]:
    return body.replace("\\\n", " ").splitlines()


def _words(line: str) -> list[list[str]]:
    """A shell line as the simple commands it runs (pipes, &&, ; split), comments dropped."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote: not a shell line
        return []
    commands, current = [], []
    for token in tokens:
        if token and set(token) <= set("|&;"):
            commands.append(current)
            current = []
        else:
            current.append(token)
    return [c for c in [*commands, current] if c]


def command(words: list[str]) -> tuple[str, list[str]] | None:
    """("pytest" | "pcg", arguments) when the words run pytest or pcg, else None. Environment assignments in
    front are dropped, and so is a bare `...` (the docs' "and the rest")."""
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
        words = words[1:]
    args = [w for w in words if w not in ("...", "…")]
    if not args:
        return None
    if args[0] == "pytest" or (args[0] in ("python", "python3") and args[1:3] == ["-m", "pytest"]):
        return "pytest", args[1 if args[0] == "pytest" else 3 :]
    if args[0] == "pcg" or (args[0] in ("python", "python3") and args[1:3] == ["-m", "pcg_plugin"]):
        return "pcg", args[1 if args[0] == "pcg" else 3 :]
    return None


def command_lines(page: Page) -> list[tuple[str, str, list[str]]]:
    """(quoted text, "pytest" | "pcg", arguments) for every command line of the page: each line of a shell
    code block and each inline code span that runs pytest or pcg."""
    texts = [line for lang, body in page.fences() if lang in SHELL_LANGS for line in _logical_lines(body)]
    texts += [span for span in page.spans() if "\n" not in span]
    found = []
    for text in texts:
        for words in _words(text):
            cmd = command(words)
            if cmd is not None:
                found.append((text.strip(), *cmd))
    return found


@cache
def reference_hook() -> ModuleType:
    """The MkDocs build hook (docs/hooks/reference.py), which builds the real parsers."""
    spec = importlib.util.spec_from_file_location("docs_reference_hook", DOCS / "hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def _pytest_parser():  # type: ignore[no-untyped-def]
    return reference_hook().pytest_parser()


def registered_pcg_options() -> set[str]:
    return {name for opt in reference_hook().pcg_options() for name in opt.names()}


def pytest_error(args: list[str]) -> str | None:
    """None when pytest's real parser (every installed plugin's options) accepts the arguments."""
    import pytest
    from _pytest.config.exceptions import PrintHelp

    try:
        _pytest_parser().parse(list(args))
    except PrintHelp:  # `pytest --help`
        return None
    except pytest.UsageError as exc:
        return str(exc).strip().splitlines()[-1]
    return None


def pcg_error(args: list[str]) -> str | None:
    """None when `pcg` accepts the arguments. A line that stops at a command name (`pcg score`, `pcg imagegame
    score`) names that command in prose: it must exist, its arguments are not required."""
    import argparse

    if not args:
        return None
    parser = reference_hook().pcg_parser()
    rest = list(args)
    while rest:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or rest[0] not in subs[0].choices:
            break
        parser = subs[0].choices[rest.pop(0)]
    if not rest and not [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]:
        return None
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            reference_hook().pcg_parser().parse_args(list(args))
        except SystemExit as exc:
            if exc.code not in (0, None):
                return err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else f"exit {exc.code}"
    return None


def options_named(text: str) -> list[str]:
    return _OPTION.findall(text)


# ---- measured figures -------------------------------------------------------------------------------------------

# A block states a measurement when it says so ("measured", "took") or quotes a speed, a duration in ms, a wall
# time or a percentage with decimals. Limits and settings ("a 120 s time limit", "1 GiB") are not measurements.
_FIGURE = re.compile(
    r"\bmeasured\b(?=[\s:]+(?:on|from|with|at|by|under|in|against|while|:))|\btook\b|\bwall( time)?\b.{0,20}\d"
    r"|\d\s?(?:ms|µs)\b|\d[\d,.]*\s?"
    r"(?:images|tokens|episodes|calls|levels|items|requests)/s\b|\d\.\d+\s?%",
    re.I,
)
# What counts as the command that measures it: a shell command line or a script of the repository.
_MEASURE = re.compile(r"(?:^|[\s`(])(?:python3? |pytest |pcg |scripts/|\S+=\S+ (?:python3?|pytest) |measured: )")


def blocks(page: Page) -> list[tuple[int, str, bool]]:
    """(first line number, text, is code) of each paragraph, list, table and fenced block, in order."""
    out: list[tuple[int, str, bool]] = []
    pos = 0
    for m in [*_FENCE.finditer(page.text), None]:
        end = m.start() if m else len(page.text)
        chunk = page.text[pos:end]
        line = page.text.count("\n", 0, pos) + 1
        for part in re.split(r"\n[ \t]*\n", chunk):
            if part.strip():
                out.append((line + chunk[: chunk.find(part)].count("\n"), part, False))
        if m:
            out.append((page.text.count("\n", 0, m.start()) + 1, m.group(0), True))
            pos = m.end()
    return out


def states_figure(text: str) -> bool:
    """True when a prose block quotes a measured figure (code spans aside: options and paths are not figures)."""
    return bool(_FIGURE.search(_SPAN.sub(" ", text)))


def names_command(text: str) -> bool:
    return bool(_MEASURE.search(text))


def figures_without_command(page: Page) -> list[str]:
    """Each block with a measured figure that neither holds a command nor sits right after or before one."""
    items = blocks(page)
    bad = []
    for i, (line, text, code) in enumerate(items):
        if code or text.lstrip().startswith("#") or not states_figure(text):
            continue
        near = [items[j][1] for j in (i - 1, i, i + 1) if 0 <= j < len(items)]
        if not any(names_command(t) for t in near):
            bad.append(f"{page.name}:{line}: {' '.join(text.split())[:160]}")
    return bad
