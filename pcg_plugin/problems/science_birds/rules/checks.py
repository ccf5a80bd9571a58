"""Participant rule checks: the official 2023 prompt qualification and static checks of 2024/2025 programs.

Pure on purpose (no pytest, no I/O beyond reading the files it is given): the ``pcg rules`` command and the
``--pcg-rules`` pytest items both render the same ``RuleResult`` list.

2023 (spec §2.2): three checks, officially in order, the first failure stopping the rest; we report all three
and say which one disqualifies first. ``word_count`` reproduces npm ``words-count`` 2.0.2 digit for digit
(tests/data/wordcount_golden.json was produced by the real package, scripts/data/wordcount_golden.mjs).

2024/2025 (spec §1.1 "Prompt rules", §8 "New rules"): the rules are decided from the program's source with
``ast``; what static analysis cannot decide is enforced at run time (``RUNTIME_RULES``). Undecidable code
passes: a false alarm would tell a participant to change a legal program.
"""

from __future__ import annotations

import ast
import io
import os
import re
import string
import tokenize
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pcg_plugin.problems.science_birds.editions import PROGRAM_YEARS
from pcg_plugin.problems.science_birds.editions import edition as edition_record
from pcg_plugin.problems.science_birds.submissions import PLACEHOLDER
from pcg_plugin.sandbox.imports import reachable

if TYPE_CHECKING:
    from pcg_plugin.problems.science_birds.submissions import Submission


@dataclass(frozen=True)
class Finding:
    """One place a rule looked at: 1-based line/column (characters, not bytes); ``text`` is what was found."""

    path: str
    line: int
    col: int
    text: str


@dataclass(frozen=True)
class RuleResult:
    """One rule's verdict; ``message`` says what is wrong and what to fix (or confirms briefly when passed).
    ``warnings``: what would break the rule in files the program never imports (not judged, shown).
    ``ran`` False: the rule could not look at what it judges (a file that does not parse, no run method); such
    a rule is neither passed nor broken, and ``message`` says why it was not checked."""

    rule: str
    title: str
    passed: bool
    message: str
    findings: tuple[Finding, ...] = ()
    official: bool = True
    warnings: tuple[Finding, ...] = ()
    ran: bool = True

    @property
    def status(self) -> str:
        """``pass``, ``fail`` or ``not run``: what ``pcg rules`` prints (never PASS for a rule that did not run)."""
        return "not run" if not self.ran else "pass" if self.passed else "fail"


def not_run(result: RuleResult, why: str) -> RuleResult:
    """``result``'s rule, not checked because of ``why``: not passed, not broken, no findings."""
    return replace(result, passed=False, ran=False, message=f"not checked: {why}", findings=())


# --------------------------------------------------------------------------------------------------------------
# 2023 prompts

WORD_LIMIT = 900
PROMPT_RULES = ("prompt-length", "prompt-characters", "prompt-placeholder")  # the official order
_PROMPT_TITLES = {
    "prompt-length": "at most 900 words (official words-count 2.0.2 count)",
    "prompt-characters": "only the allowed characters (ASCII letters, digits, listed punctuation, em dash, "
    "curly quotes)",
    "prompt-placeholder": "contains the <OBJECT> placeholder",
}

# JavaScript's \s and String.prototype.trim (WhiteSpace + LineTerminator): not Python's str.isspace, which
# also counts U+001C..U+001F and U+0085 and misses U+FEFF.
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_SPACE_RUN = re.compile(f"[{re.escape(_JS_SPACE)}]+")
# words-count's punctuation list (deleted, not turned into spaces), then its two deleted Unicode blocks.
_WC_PUNCTUATION = frozenset(",，.。:：;；[]【】{｛}｝(（)）<《>》$￥!！?？~～'’\"“”*/\\&%@#^、")  # noqa: RUF001 - words-count's list, full-width forms on purpose
_WC_LETTERS = "a-zA-Z\u00c0-\u02af\u1e00-\u1eff\u0400-\u052f\u0d00-\u0d7f"  # Latin (incl. × ÷), Cyrillic, Malayalam
_WC_SINGLES = (
    "\u2e80-\u2fdf\u3000-\u303f\u31c0-\u31ef\u3200-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK
    "\u3040-\u30ff\u3190-\u319f\u31f0-\u31ff"  # kana
    "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff"  # Hangul
)
# JavaScript's \d is ASCII only; every alternative is non-empty, so matching always advances.
_WC_WORD = re.compile(f"[0-9]+|[{_WC_LETTERS}]+|[{_WC_SINGLES}]")

_ALLOWED = frozenset(
    string.ascii_letters
    + string.digits
    + "~/\\+,-*`'\".!@#$%^&()_=[]{}|<>:;?"
    + "\u2014\u201c\u201d\u2018\u2019"
    + " \n\r\t"
)
# What to type instead of a few characters that keep turning up in prompts.
_SUGGEST = {
    "\u00b0": " degrees",
    "\u2013": "-",
    "\u2026": "...",
    "\u00a0": " ",
    "\u00d7": "x",
    "\u2192": "->",
    "\u2022": "-",
    "\u00e9": "e",
    "\u00b2": "^2",
    "\u2264": "<=",
    "\u2265": ">=",
    "\u2260": "!=",
    "\u201a": "'",
    "\u201e": '"',
    "\ufeff": "",
    "\u200b": "",
    "\u2212": "-",
    "\u00bd": "1/2",
}


def _js_trim(text: str) -> str:
    return text.strip(_JS_SPACE)


def _wc_deleted(ch: str) -> bool:
    code = ord(ch)
    return ch in _WC_PUNCTUATION or 0x2000 <= code <= 0x206F or 0xFF00 <= code <= 0xFFEF


def _word_starts(text: str) -> list[int]:
    """Index in ``text`` where each word words-count 2.0.2 counts begins (so we can point at word 901)."""
    if _js_trim(text) == "":
        return []
    index = [i for i, ch in enumerate(text) if not _wc_deleted(ch)]
    chars = "".join(text[i] for i in index)
    run = _JS_SPACE_RUN.search(chars)  # quirk: only the FIRST whitespace run becomes a space (no g flag)
    if run is not None:
        chars = chars[: run.start()] + " " + chars[run.end() :]
        index = [*index[: run.start()], index[run.start()], *index[run.end() :]]
    starts: list[int] = []
    pos = 0
    for token in chars.split(" "):  # quirk: split on U+0020 only; "a\nb" stays one token
        if _js_trim(token):
            hits = [pos + m.start() for m in _WC_WORD.finditer(token)] or [pos]  # no match: the token is 1 word
            starts.extend(index[p] for p in hits)
        pos += len(token) + 1
    return starts


def word_count(text: str) -> int:
    """npm words-count 2.0.2 ``wordsCount(text)``, the 2023 length rule's count (spec §2.2 rule 1)."""
    return len(_word_starts(text))


class _Lines:
    """1-based line/column of a character index; lines end at ``\\n``, columns count code points."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def at(self, index: int) -> tuple[int, int]:
        line = bisect_right(self.starts, index)
        return line, index - self.starts[line - 1] + 1


def disallowed_characters(text: str) -> list[tuple[str, int, int]]:
    """Every character that makes the official character check fail, as (char, line, col), in order.

    Officially the allowed characters are removed and the remainder is JavaScript-trimmed, so disallowed
    whitespace (no-break space, form feed, BOM, ...) before the first or after the last other offender is
    tolerated: a prompt whose only offenders are such spaces passes, and they are not reported.
    """
    found = [i for i, ch in enumerate(text) if ch not in _ALLOWED]
    lo, hi = 0, len(found)
    while lo < hi and text[found[lo]] in _JS_SPACE:
        lo += 1
    while hi > lo and text[found[hi - 1]] in _JS_SPACE:
        hi -= 1
    lines = _Lines(text)
    return [(text[i], *lines.at(i)) for i in found[lo:hi]]


def _unique(chars: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(chars))


def prompt_summary(text: str) -> dict:
    """The three official checks as plain values, plus the rule that officially disqualifies first (or None)."""
    count = word_count(text)
    bad = _unique(ch for ch, _, _ in disallowed_characters(text))
    has = PLACEHOLDER in text
    first = "prompt-length" if count > WORD_LIMIT else "prompt-characters" if bad else None
    first = first or (None if has else "prompt-placeholder")
    return {
        "word_count": count,
        "disallowed_characters": bad,
        "has_placeholder": has,
        "passed": first is None,
        "first_failure": first,
    }


def _describe(ch: str) -> str:
    name = unicodedata.name(ch, "control character" if unicodedata.category(ch) == "Cc" else "unnamed")
    shown = ch if ch.isprintable() and not ch.isspace() else ""
    return f"{shown + ' ' if shown else ''}U+{ord(ch):04X} {name}"


def _stop_note(rule: str, first: str | None) -> str:
    """Which failure officially disqualifies: the checks ran in order and stopped at the first failure."""
    if rule == first:
        return " Officially this check disqualifies the prompt (the checks stop at the first failure)."
    return f" Officially the checks stopped earlier, at {first}; fix this too." if first else ""


def _length_result(text: str, path: str, first: str | None) -> RuleResult:
    starts = _word_starts(text)
    count = len(starts)
    if count <= WORD_LIMIT:
        return RuleResult(
            "prompt-length",
            _PROMPT_TITLES["prompt-length"],
            True,
            f"{count} words (limit {WORD_LIMIT}, official words-count 2.0.2)",
        )
    line, col = _Lines(text).at(starts[WORD_LIMIT])
    snippet = text[starts[WORD_LIMIT] :].split("\n", 1)[0][:40].rstrip("\r")
    message = (
        f"{path}: word count is {count} (official words-count 2.0.2); the limit is {WORD_LIMIT}: remove at "
        f"least {count - WORD_LIMIT} words (word {WORD_LIMIT + 1} starts at {path}:{line}:{col}). Note "
        "the official count: punctuation is deleted before counting, so drop_block('b11', 3) is 4 words "
        "and don't is 1."
    ) + _stop_note("prompt-length", first)
    finding = Finding(path, line, col, f"word {WORD_LIMIT + 1}: {snippet!r}")
    return RuleResult("prompt-length", _PROMPT_TITLES["prompt-length"], False, message, (finding,))


def _characters_result(text: str, path: str, first: str | None) -> RuleResult:
    bad = disallowed_characters(text)
    title = _PROMPT_TITLES["prompt-characters"]
    if not bad:
        return RuleResult("prompt-characters", title, True, "every character is allowed")
    _, line, col = bad[0]
    kinds = _unique(c for c, _, _ in bad)
    fixes = [f"U+{ord(c):04X} -> {_SUGGEST[c]!r}" for c in kinds if c in _SUGGEST]
    message = (
        f"{path}:{line}:{col}: {len(bad)} disallowed character(s), {len(kinds)} distinct: "
        f"{'; '.join(_describe(c) for c in kinds[:8])}{' ...' if len(kinds) > 8 else ''}. Replace or remove "
        "them: allowed are ASCII letters and digits, ~ / \\ + , - * ` ' \" . ! @ # $ % ^ & ( ) _ = [ ] { } "
        "| < > : ; ?, em dash \u2014, curly quotes \u201c \u201d \u2018 \u2019, space, tab, CR and LF"
        + (f" (e.g. {'; '.join(fixes)})" if fixes else "")
        + "."
    )
    message += _stop_note("prompt-characters", first)
    findings = tuple(Finding(path, ln, cl, _describe(c)) for c, ln, cl in bad)
    return RuleResult("prompt-characters", title, False, message, findings)


_NEAR_PLACEHOLDER = re.compile(r"(?i:<\s*object\s*>|\{\s*object\s*\}|\[\s*object\s*\])|\bOBJECT\b")


def _placeholder_result(text: str, path: str, first: str | None) -> RuleResult:
    title = _PROMPT_TITLES["prompt-placeholder"]
    uses = text.count(PLACEHOLDER)
    if uses:
        return RuleResult("prompt-placeholder", title, True, f"{PLACEHOLDER} appears {uses} time(s)")
    near = _NEAR_PLACEHOLDER.search(text)
    line, col = _Lines(text).at(near.start()) if near else (1, 1)
    found = f"{near.group(0)!r} (did you mean {PLACEHOLDER}?)" if near else f"no {PLACEHOLDER}"
    seen = f"; found {found}" if near else ""
    message = (
        f"{path}:{line}:{col}: the prompt has no {PLACEHOLDER} (exactly this: upper case, with the angle "
        f"brackets{seen}). Put {PLACEHOLDER} where the target letter goes: it is replaced by the "
        'letter in double quotes, e.g. "A".'
    ) + _stop_note("prompt-placeholder", first)
    return RuleResult("prompt-placeholder", title, False, message, (Finding(path, line, col, found),))


def check_prompt(text: str, path: str = "<prompt>") -> list[RuleResult]:
    """The 2023 qualification (length, characters, placeholder) in the official order, each reported."""
    first = prompt_summary(text)["first_failure"]
    return [
        _length_result(text, path, first),
        _characters_result(text, path, first),
        _placeholder_result(text, path, first),
    ]


def read_prompt(path: Path) -> str:
    """A prompt file as the official Node script read it (``readFileSync(path, 'utf-8')``): BOM and CRLF kept."""
    return path.read_bytes().decode("utf-8", errors="replace")


# --------------------------------------------------------------------------------------------------------------
# 2024/2025 programs: shared plumbing

SIZE_LIMIT_BYTES = 10**9  # "≤ 1 GB": the decimal reading, the stricter of 10^9 and 2^30
_SKIP_DIRS = {"__pycache__", "node_modules", "site-packages"}
_TITLES = {
    "program-parses": "every .py file parses (needed for every other check; not an official rule of its own)",
    "program-trial-loop": "exactly one TrialLoop subclass with a static run(ctx, target_character)",
    "program-chat-only": "the model is reached only through the official chat function (no network, no other "
    "LLM client, no way out of the process)",
    "program-no-hardcoded-assistant": "no hand-made assistant messages in the history",
    "program-no-tampering": "no tampering with the token counter, the timer or the chat function",
    "program-unmodified-response": "run returns the model's answer unmodified",
    "program-size": "the whole program is at most 1 GB",
    "program-fixed-seeds": "all program randomness uses a fixed seed (2025 rule)",
    "submission": "the folder holds one submission the harness can run (a program, or a 2023 prompt)",
}


@dataclass
class _Module:
    """One parsed file of the submission: its display path, tree, byte lines (for columns) and import aliases."""

    path: Path
    shown: str
    tree: ast.Module | None
    error: Finding | None = None
    lines: list[bytes] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)

    def at(self, node: ast.AST, text: str | None = None) -> Finding:
        line = getattr(node, "lineno", 1)
        raw = self.lines[line - 1] if 0 < line <= len(self.lines) else b""
        col = len(raw[: getattr(node, "col_offset", 0)].decode("utf-8", errors="replace")) + 1
        return Finding(self.shown, line, col, text if text is not None else _snippet(node))


def _snippet(node: ast.AST, limit: int = 70) -> str:
    try:
        text = ast.unparse(node).split("\n", 1)[0]
    except (ValueError, AttributeError, RecursionError):  # pragma: no cover - exotic trees
        text = type(node).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _python_files(folder: Path, entry: Path) -> list[Path]:
    """The entry first, then every other .py under the folder (no dot/cache/vendored-environment folders);
    just the entry when ``folder`` is the entry file itself."""
    if folder.is_file():
        return [entry]
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".") and d not in _SKIP_DIRS and not (Path(root, d) / "pyvenv.cfg").exists()
        )
        found.extend(Path(root, f) for f in sorted(files) if f.endswith(".py") and not f.startswith("."))
    rest = [p for p in found if p.resolve() != entry.resolve()]
    return [entry, *rest]


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted name it was imported as (``import numpy as np`` gives np -> numpy)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _load(path: Path, shown: str) -> _Module:
    data = path.read_bytes()
    lines = data.splitlines()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        source = data.decode(encoding, errors="replace")
        tree = ast.parse(source, filename=shown)
    except SyntaxError as exc:
        where = Finding(shown, exc.lineno or 1, exc.offset or 1, f"SyntaxError: {exc.msg}")
        return _Module(path, shown, None, where, lines)
    except (ValueError, LookupError) as exc:  # null bytes, unknown encoding cookie
        return _Module(path, shown, None, Finding(shown, 1, 1, f"cannot parse: {exc}"), lines)
    return _Module(path, shown, tree, None, lines, _aliases(tree))


def _qualname(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """The dotted imported name an expression refers to (``np.random.choice`` -> numpy.random.choice)."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _qualname(node.value, aliases)
        return f"{base}.{node.attr}" if base else None
    return None


def _under(name: str | None, prefixes: Iterable[str]) -> str | None:
    if name is None:
        return None
    return next((p for p in prefixes if name == p or name.startswith(p + ".")), None)


def _result(rule: str, findings: list[Finding], ok: str, bad: str, official: bool = True) -> RuleResult:
    """Passed with ``ok`` when nothing was found, else failed with ``bad`` naming the first finding."""
    if not findings:
        return RuleResult(rule, _TITLES[rule], True, ok, (), official)
    f = findings[0]
    more = f" ({len(findings) - 1} more below)" if len(findings) > 1 else ""
    return RuleResult(
        rule, _TITLES[rule], False, f"{f.path}:{f.line}:{f.col}: {f.text}{more}. {bad}", tuple(findings), official
    )


# --------------------------------------------------------------------------------------------------------------
# program-trial-loop and the run methods the other rules look into


def _base_names(cls: ast.ClassDef) -> list[str]:
    return [b.id if isinstance(b, ast.Name) else b.attr for b in cls.bases if isinstance(b, (ast.Name, ast.Attribute))]


def _defines_run(cls: ast.ClassDef) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    return next(
        (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "run"), None
    )


def _loop_classes(tree: ast.Module) -> list[ast.ClassDef]:
    """Classes deriving from TrialLoop, directly or through another class of the same file."""
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    names = {"TrialLoop"}
    changed = True
    while changed:
        changed = False
        for cls in classes:
            if cls.name not in names and any(b in names for b in _base_names(cls)):
                names.add(cls.name)
                changed = True
    return [c for c in classes if c.name in names and c.name != "TrialLoop"]


def _run_of(cls: ast.ClassDef, loops: list[ast.ClassDef]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """``run`` defined by the class or inherited from a TrialLoop class of the same file."""
    by_name = {c.name: c for c in loops}
    seen: set[str] = set()
    todo = [cls]
    while todo:
        c = todo.pop(0)
        if c.name in seen:
            continue
        seen.add(c.name)
        found = _defines_run(c)
        if found is not None:
            return found
        todo.extend(by_name[b] for b in _base_names(c) if b in by_name)
    return None


def _registered(tree: ast.Module) -> set[str]:
    """Class names passed to run_evaluation(team, fn, ...)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (
            getattr(node.func, "id", None) == "run_evaluation" or getattr(node.func, "attr", None) == "run_evaluation"
        ):
            args = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "fn")]
            out.update(a.id for a in args if isinstance(a, ast.Name))
    return out


def _signature_problem(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """Why ``Loop.run(ctx, letter)`` would not work, or None."""
    if isinstance(fn, ast.AsyncFunctionDef):
        return "run is async: it would return a coroutine, not a str; make it a plain def"
    decorators = {d.id if isinstance(d, ast.Name) else getattr(d, "attr", "") for d in fn.decorator_list}
    if "classmethod" in decorators:
        return (
            "run is a classmethod: make it a @staticmethod run(ctx, target_character) (it is called as "
            "Loop.run(ctx, letter))"
        )
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    required = len(positional) - len(a.defaults)
    if (len(positional) < 2 and a.vararg is None) or required > 2 or any(d is None for d in a.kw_defaults):
        return "run must accept exactly (ctx, target_character): it is called as Loop.run(ctx, letter)"
    return None


Run = tuple[ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]


def _runs(tree: ast.Module) -> tuple[list[ast.ClassDef], list[Run], list[Run]]:
    """(TrialLoop classes, those with a run method, those of them passed to run_evaluation)."""
    loops = _loop_classes(tree)
    concrete = [(c, r) for c in loops if (r := _run_of(c, loops)) is not None]
    registered = _registered(tree)
    return loops, concrete, [(c, r) for c, r in concrete if c.name in registered]


def _chosen_runs(entry: _Module) -> list[Run]:
    """The TrialLoop class(es) the harness may run and their run methods (what the response rule inspects)."""
    if entry.tree is None:
        return []
    _, concrete, picked = _runs(entry.tree)
    return picked[-1:] or concrete


def _rule_trial_loop(entry: _Module, modules: list[_Module]) -> RuleResult:
    rule = "program-trial-loop"
    if entry.tree is None:
        error = entry.error or Finding(entry.shown, 1, 1, "does not parse")
        message = (
            f"{error.path}:{error.line}:{error.col}: {error.text}; the TrialLoop cannot be found until the "
            "entry parses (see program-parses)"
        )
        return RuleResult(rule, _TITLES[rule], False, message, (error,))
    loops, concrete, picked = _runs(entry.tree)
    registered = _registered(entry.tree)
    elsewhere = {c.name for m in modules[1:] if m.tree for c in _loop_classes(m.tree)}
    if not concrete and registered & elsewhere:
        name = sorted(registered & elsewhere)[0]
        return RuleResult(rule, _TITLES[rule], True, f"run_evaluation runs {name}, defined in another file")
    if not concrete:
        found = [entry.at(c, f"class {c.name} has no run method") for c in loops]
        what = "defines no class deriving from TrialLoop" if not loops else "has no TrialLoop subclass with run"
        fix = (
            "define one class MyLoop(TrialLoop) with @staticmethod def run(ctx: TrialContext, "
            "target_character: str) -> str that returns the model's answer"
        )
        return RuleResult(
            rule,
            _TITLES[rule],
            False,
            f"{entry.shown}: {what}; {fix}.",
            tuple(found) or (Finding(entry.shown, 1, 1, what),),
        )
    chosen = picked or concrete
    if len(chosen) > 1:
        found = [entry.at(c, f"class {c.name}") for c, _ in chosen]
        return RuleResult(
            rule,
            _TITLES[rule],
            False,
            f"{found[0].path}:{found[0].line}:{found[0].col}: {len(chosen)} TrialLoop subclasses "
            f"({', '.join(c.name for c, _ in chosen)}); keep exactly one, or pass the one to run to "
            "run_evaluation(team, Loop)",
            tuple(found),
        )
    cls, run = chosen[-1]
    problem = _signature_problem(run)
    if problem:
        f = entry.at(run, f"{cls.name}.run")
        return RuleResult(rule, _TITLES[rule], False, f"{f.path}:{f.line}:{f.col}: {problem}.", (f,))
    return RuleResult(rule, _TITLES[rule], True, f"{cls.name}.run ({entry.shown}:{run.lineno})")


# --------------------------------------------------------------------------------------------------------------
# program-chat-only

_NETWORK = (
    "socket",
    "socketserver",
    "http",
    "urllib",
    "urllib3",
    "requests",
    "httpx",
    "aiohttp",
    "websocket",
    "websockets",
    "ftplib",
    "smtplib",
    "telnetlib",
    "xmlrpc",
    "poplib",
    "imaplib",
    "nntplib",
    "pycurl",
    "grpc",
    "paramiko",
    "zmq",
)
_NETWORK_OK = ("urllib.parse",)  # string handling only
_LLM_CLIENTS = (
    "openai",
    "anthropic",
    "ollama",
    "google.generativeai",
    "google.genai",
    "vertexai",
    "litellm",
    "llama_index",
    "mistralai",
    "cohere",
    "groq",
    "together",
    "replicate",
    "lmstudio",
)
_ESCAPES = ("subprocess", "ctypes", "cffi", "pty")
_ESCAPE_CALLS = (
    "os.system",
    "os.popen",
    "os.fork",
    "os.forkpty",
    "os.execl",
    "os.execle",
    "os.execlp",
    "os.execlpe",
    "os.execv",
    "os.execve",
    "os.execvp",
    "os.execvpe",
    "os.spawnl",
    "os.spawnle",
    "os.spawnlp",
    "os.spawnlpe",
    "os.spawnv",
    "os.spawnve",
    "os.spawnvp",
    "os.spawnvpe",
    "os.posix_spawn",
    "os.posix_spawnp",
    "os.startfile",
    "pty.spawn",
)
_OFFICIAL = {y: edition_record(y).official_packages for y in PROGRAM_YEARS}
_CHAT = {y: edition_record(y).chat_function for y in PROGRAM_YEARS}
_ALL_OFFICIAL = tuple(p for y in PROGRAM_YEARS for p in edition_record(y).official_packages)
_HARNESS = ("pcg_plugin",)


def _official_allowed(edition: str) -> set[str]:
    out = set()
    for pkg in _OFFICIAL[edition]:
        out |= {
            pkg,
            f"{pkg}.competition",
            f"{pkg}.models",
            f"{pkg}.models.trial_loop",
            f"{pkg}.models.trial_context",
            f"{pkg}.competition.run_evaluation",
            f"{pkg}.competition.TrialLoop",
            f"{pkg}.competition.TrialContext",
            f"{pkg}.competition.{_CHAT[edition]}",
            f"{pkg}.models.trial_loop.TrialLoop",
            f"{pkg}.models.trial_context.TrialContext",
        }
    return out


def _official_classes(allowed: set[str]) -> tuple[str, ...]:
    """Attributes of TrialLoop/TrialContext (e.g. ctx getters) are the official API too."""
    return tuple(a for a in allowed if a.endswith((".TrialLoop", ".TrialContext")))


def _module_problem(name: str, edition: str) -> str | None:
    """Why importing/using the dotted ``name`` breaks chat-only, or None."""
    if _under(name, _NETWORK_OK):
        return None
    if _under(name, _NETWORK):
        return f"network module {name}: programs have no network; reach the model only through {_CHAT[edition]}"
    if _under(name, _LLM_CLIENTS) or name.split(".")[0].startswith("langchain"):
        return f"LLM client {name}: talk to the model only through {_CHAT[edition]}(ctx, messages, n)"
    if _under(name, _ESCAPES):
        return f"{name} starts processes or native code (a way out of the evaluation sandbox); remove it"
    if _under(name, _ESCAPE_CALLS):
        return f"{name} starts another process (a way out of the evaluation sandbox); remove it"
    if _under(name, _HARNESS):
        return f"{name} is the evaluation harness's internals; import only the official {_OFFICIAL[edition][0]} API"
    allowed = _official_allowed(edition)
    if _under(name, _ALL_OFFICIAL) and name not in allowed and not _under(name, _official_classes(allowed)):
        pkg = _OFFICIAL[edition][0]
        if not _under(name, _OFFICIAL[edition]):
            return (
                f"{name} is not this edition's package ({edition} programs use {pkg}); use "
                f"{pkg}.competition.{_CHAT[edition]}"
            )
        return (
            f"{name} is the official package's internals; use only {pkg}.competition ({_CHAT[edition]}, "
            "run_evaluation, TrialLoop, TrialContext) and models.trial_loop / models.trial_context"
        )
    return None


def _import_findings(mod: _Module, edition: str) -> Iterator[Finding]:
    assert mod.tree is not None
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module if a.name == "*" else f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        problem = next((p for name in names if (p := _module_problem(name, edition))), None)
        if problem:
            yield mod.at(node, problem)


def _use_findings(mod: _Module, edition: str) -> Iterator[Finding]:
    """Calls that escape (os.system, ...), dynamic imports, and attribute uses of official internals."""
    assert mod.tree is not None
    inner = {id(n.value) for n in ast.walk(mod.tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Call):
            yield from _dynamic_import(mod, node, edition)
            name = _qualname(node.func, mod.aliases)
            if name and _under(name, _ESCAPE_CALLS):
                yield mod.at(node, _module_problem(name, edition) or name)
        elif isinstance(node, ast.Attribute) and id(node) not in inner:
            name = _qualname(node, mod.aliases)
            if name and _under(name, _ALL_OFFICIAL + _HARNESS) and not isinstance(node.ctx, ast.Store):
                problem = _module_problem(name, edition)
                if problem:
                    yield mod.at(node, problem)


def _dynamic_import(mod: _Module, node: ast.Call, edition: str) -> Iterator[Finding]:
    name = _qualname(node.func, mod.aliases)
    is_dunder = isinstance(node.func, ast.Name) and node.func.id == "__import__"
    if not (is_dunder or name == "importlib.import_module"):
        return
    arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "name"), None)
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        problem = _module_problem(arg.value, edition)
        if problem:
            yield mod.at(node, problem)
    else:
        yield mod.at(node, "import by a computed name (hides what is imported); import modules by name")


def _rule_chat_only(modules: list[_Module], edition: str) -> RuleResult:
    findings: list[Finding] = []
    for mod in modules:
        if mod.tree is not None:
            findings += _import_findings(mod, edition)
            findings += _use_findings(mod, edition)
    chat = _CHAT[edition]
    return _result(
        "program-chat-only",
        _dedupe(findings),
        f"no network, LLM client, process or internal-API use found; the model is reached through {chat}",
        f"The rules allow reaching the model only through {chat} of the official package, and the "
        "evaluation has no network: remove these uses (the sandbox also blocks them at run "
        "time)",
    )


def _dedupe(findings: list[Finding]) -> list[Finding]:
    return sorted(set(findings), key=lambda f: (f.path, f.line, f.col, f.text))


# --------------------------------------------------------------------------------------------------------------
# scopes: where a name got its value (for hard-coded content and returned responses)

_MUTATORS = {"append", "extend", "insert", "update", "setdefault", "__setitem__", "add", "pop", "clear", "remove"}


class _Scope:
    """Bindings of the names of one function (or the module): each value node, or None when unknown."""

    def __init__(self, node: ast.AST, parent: _Scope | None) -> None:
        self.parent = parent
        self.bindings: dict[str, list[tuple[str, ast.AST | None]]] = {}
        self._collect(node)

    def _bind(self, target: ast.AST, kind: str, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            self.bindings.setdefault(target.id, []).append((kind, value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:  # an element of a constant sequence is constant: keep the whole value
                self._bind(elt, "iter" if kind in ("value", "iter") else kind, value)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, kind, value)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self.bindings.setdefault(target.value.id, []).append(("unknown", None))

    def _collect(self, scope: ast.AST) -> None:
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = scope.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None:
                    self.bindings.setdefault(arg.arg, []).append(("unknown", None))
        for node in _own_nodes(scope):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    self._bind(t, "value", node.value)
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                self._bind(node.target, "value", node.value)
            elif isinstance(node, ast.AugAssign):
                self._bind(node.target, "aug", node)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                self._bind(node.target, "iter", node.iter)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        self._bind(item.optional_vars, "value", item.context_expr)
            elif isinstance(node, (ast.Import, ast.ImportFrom, ast.ExceptHandler, ast.Global, ast.Nonlocal)):
                for name in _bound_names(node):
                    self.bindings.setdefault(name, []).append(("unknown", None))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.attr in _MUTATORS
            ):
                self.bindings.setdefault(node.func.value.id, []).append(("unknown", None))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bindings.setdefault(node.name, []).append(("unknown", None))

    def lookup(self, name: str) -> list[tuple[str, ast.AST | None]] | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.bindings:
                return scope.bindings[name]
            scope = scope.parent
        return None


def _bound_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.asname or a.name.split(".")[0] for a in node.names]
    if isinstance(node, ast.ImportFrom):
        return [a.asname or a.name for a in node.names]
    if isinstance(node, ast.ExceptHandler):
        return [node.name] if node.name else []
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    return []


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a scope, not descending into nested functions, lambdas or classes (their own scopes)."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def _scoped_nodes(tree: ast.Module) -> Iterator[tuple[ast.AST, _Scope]]:
    """Every node with the scope it is evaluated in."""
    module = _Scope(tree, None)
    todo: list[tuple[ast.AST, _Scope]] = [(tree, module)]
    while todo:
        scope_node, scope = todo.pop()
        for node in _own_nodes(scope_node):
            yield node, scope
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                todo.append((node, _Scope(node, scope)))
            elif isinstance(node, ast.ClassDef):
                todo.append((node, scope))  # class bodies see the enclosing scope for our purposes


_STR_METHODS = {
    "strip",
    "lstrip",
    "rstrip",
    "replace",
    "join",
    "format",
    "format_map",
    "upper",
    "lower",
    "title",
    "capitalize",
    "casefold",
    "swapcase",
    "removeprefix",
    "removesuffix",
    "center",
    "ljust",
    "rjust",
    "zfill",
    "expandtabs",
    "translate",
    "encode",
    "decode",
}
_FILE_READS = {"read", "read_text", "read_bytes", "readline", "readlines"}
_FILE_LOADS = {"json.load", "yaml.load", "yaml.safe_load", "tomllib.load", "pickle.load", "csv.reader"}
_PURE = {"textwrap.dedent", "inspect.cleandoc", "json.loads"}
_PURE_BUILTINS = {"str", "list", "tuple", "zip", "enumerate", "reversed", "sorted", "dict"}


def _combine(kinds: list[str | None]) -> str | None:
    if not kinds or any(k is None for k in kinds):
        return None
    return "file" if "file" in kinds else "const"


def _source_kind(
    node: ast.AST | None,
    scope: _Scope,
    aliases: dict[str, str],
    depth: int = 0,
    resolving: frozenset[str] = frozenset(),
) -> str | None:
    """'const' when the value is fixed in the source, 'file' when it is read from a file, None otherwise.

    ``resolving`` holds the names being looked up, so ``x = x.strip()`` is unknown instead of a deep recursion.
    """
    if node is None or depth > 12:
        return None
    if isinstance(node, ast.Name):
        if node.id in resolving:
            return None
        resolving = resolving | {node.id}

    def again(n: ast.AST | None) -> str | None:
        return _source_kind(n, scope, aliases, depth + 1, resolving)

    if isinstance(node, ast.Constant):
        return "const"
    if isinstance(node, ast.JoinedStr):
        return _combine([again(v.value) if isinstance(v, ast.FormattedValue) else "const" for v in node.values])
    if isinstance(node, ast.BinOp):
        return _combine([again(node.left), again(node.right)])
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return _combine([again(e) for e in node.elts])  # an empty list is filled at run time: unknown
    if isinstance(node, ast.Dict):
        return _combine([again(v) for v in node.values])
    if isinstance(node, ast.Subscript):
        return again(node.value)
    if isinstance(node, ast.Name):
        found = scope.lookup(node.id)
        if not found:
            return None
        return _combine([again(v) if kind in ("value", "iter") else None for kind, v in found])
    if isinstance(node, ast.Call):
        return _call_kind(node, again, aliases)
    return None


def _call_kind(node: ast.Call, again: Callable[[ast.AST], str | None], aliases: dict[str, str]) -> str | None:
    func = node.func
    name = _qualname(func, aliases)
    args = [*node.args, *(k.value for k in node.keywords)]
    if name in _FILE_LOADS or (isinstance(func, ast.Attribute) and func.attr in _FILE_READS):
        return "file"
    if (name in _PURE) or (isinstance(func, ast.Name) and func.id in _PURE_BUILTINS):
        return _combine([again(a) for a in args])
    if isinstance(func, ast.Attribute) and func.attr in _STR_METHODS:
        return _combine([again(func.value), *(again(a) for a in args)])
    return None


# --------------------------------------------------------------------------------------------------------------
# program-no-hardcoded-assistant


def _message_parts(node: ast.AST) -> tuple[ast.AST, ast.AST] | None:
    """(role, content) of a message written as a dict literal or dict(role=..., content=...)."""
    if isinstance(node, ast.Dict):
        keyed = {
            k.value: v
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        keyed = {k.arg: k.value for k in node.keywords if k.arg}
    else:
        return None
    if "role" in keyed and "content" in keyed:
        return keyed["role"], keyed["content"]
    return None


def _constant_str(node: ast.AST, scope: _Scope, aliases: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and _source_kind(node, scope, aliases) == "const":
        values = [v for _, v in scope.lookup(node.id) or []]
        if len(values) == 1 and isinstance(values[0], ast.Constant) and isinstance(values[0].value, str):
            return values[0].value
    return None


def _rule_hardcoded(modules: list[_Module]) -> RuleResult:
    findings: list[Finding] = []
    for mod in modules:
        if mod.tree is None:
            continue
        for node, scope in _scoped_nodes(mod.tree):
            parts = _message_parts(node)
            if parts is None or _constant_str(parts[0], scope, mod.aliases) != "assistant":
                continue
            kind = _source_kind(parts[1], scope, mod.aliases)
            if kind is not None:
                how = "written in the program" if kind == "const" else "read from a file"
                findings.append(mod.at(node, f"assistant message with content {how}: {_snippet(parts[1], 50)}"))
    return _result(
        "program-no-hardcoded-assistant",
        findings,
        "no assistant message with hand-made content found (assistant messages echo model answers)",
        "The rules forbid hard-coding the message history with hand-made content: an assistant "
        "message may only carry an answer the model gave in this trial (e.g. {'role': 'assistant', "
        "'content': reply} with reply from the chat function); put examples in a user or system "
        "message instead",
    )


# --------------------------------------------------------------------------------------------------------------
# program-no-tampering

_COUNTER_METHODS = {
    "add_prompt_token_count",
    "add_output_token_count",
    "get_total_token_count",
    "get_start_time",
    "_transport",
}
_PRIVATE_COUNTERS = ("__prompt_token_count", "__output_token_count", "__start_time")
_TIME_FUNCS = {"perf_counter", "perf_counter_ns", "time", "time_ns", "monotonic", "monotonic_ns", "process_time"}
_CTX_NAMES = {"ctx", "context", "trial_context"}


def _is_context(node: ast.AST, aliases: dict[str, str], ctx_names: set[str]) -> bool:
    """The trial context object or the TrialContext class (however it was imported)."""
    if isinstance(node, ast.Name) and (node.id in ctx_names or node.id == "TrialContext"):
        return True
    name = _qualname(node, aliases)
    return bool(name and name.endswith(".TrialContext"))


def _attr_tamper(node: ast.Attribute, mod: _Module, ctx_names: set[str]) -> str | None:
    """Why writing (or deleting) this attribute is tampering, or None."""
    attr, owner = node.attr, node.value
    if attr.startswith("_TrialContext__") or attr in _COUNTER_METHODS:
        return f"changes {attr}, part of the trial's token counter/timer"
    if _is_context(owner, mod.aliases, ctx_names):
        return f"changes {_snippet(node)}, an attribute of the trial context"
    if attr.endswith(_PRIVATE_COUNTERS) and isinstance(owner, ast.Name) and owner.id in ctx_names:
        return f"changes {attr}, the trial's token counter/timer"
    owner_name = _qualname(owner, mod.aliases)
    if owner_name == "time" and attr in _TIME_FUNCS:
        return f"replaces time.{attr}, the clock the time limit uses"
    if _under(owner_name, _ALL_OFFICIAL + _HARNESS):
        return f"monkey-patches {owner_name}.{attr}"
    return None


def _target_tamper(target: ast.AST, mod: _Module, ctx_names: set[str]) -> str | None:
    if isinstance(target, (ast.Tuple, ast.List)):
        return next((w for t in target.elts if (w := _target_tamper(t, mod, ctx_names))), None)
    if isinstance(target, ast.Starred):
        return _target_tamper(target.value, mod, ctx_names)
    if isinstance(target, ast.Name) and target.id in ("chat_with_chatgpt", "chat_with_llm", "TrialContext"):
        return f"rebinds {target.id}"
    if isinstance(target, ast.Attribute):
        return _attr_tamper(target, mod, ctx_names)
    if isinstance(target, ast.Subscript):
        value = target.value
        if (
            isinstance(value, ast.Attribute)
            and value.attr == "__dict__"
            and _is_context(value.value, mod.aliases, ctx_names)
        ):
            return "writes the trial context's __dict__"
        if _qualname(value, mod.aliases) == "sys.modules":
            return "replaces a module in sys.modules"
    return None


def _call_tamper(node: ast.Call, mod: _Module, ctx_names: set[str]) -> str | None:
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("add_prompt_token_count", "add_output_token_count"):
        return f"calls {func.attr} itself (only the chat function counts tokens)"
    name = func.id if isinstance(func, ast.Name) else _qualname(func, mod.aliases) or getattr(func, "attr", "")
    if name in ("setattr", "delattr", "object.__setattr__", "__setattr__", "object.__delattr__") and node.args:
        owner = node.args[0]
        attr = node.args[1] if len(node.args) > 1 else None
        literal = attr.value if isinstance(attr, ast.Constant) and isinstance(attr.value, str) else None
        official = _under(_qualname(owner, mod.aliases), _ALL_OFFICIAL + _HARNESS)
        if _is_context(owner, mod.aliases, ctx_names) or official:
            return f"{name} on {_snippet(owner)}"
        if literal and (literal.startswith("_TrialContext__") or literal in _COUNTER_METHODS):
            return f"{name} of {literal}"
    if name == "vars" and node.args and _is_context(node.args[0], mod.aliases, ctx_names):
        return "reads the trial context's __dict__ through vars()"
    return None


def _run_params(tree: ast.Module) -> set[str]:
    """The context parameter names of every run method (``run(ctx, target_character)``)."""
    out = set(_CTX_NAMES)
    for cls in _loop_classes(tree):
        run = _defines_run(cls)
        if run is not None and run.args.args:
            out.add(run.args.args[0].arg)
    return out


def _tamper_findings(mod: _Module) -> Iterator[Finding]:
    assert mod.tree is not None
    ctx_names = _run_params(mod.tree)
    for node in ast.walk(mod.tree):
        why: str | None = None
        if isinstance(node, ast.Assign):
            why = next((w for t in node.targets if (w := _target_tamper(t, mod, ctx_names))), None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            why = _target_tamper(node.target, mod, ctx_names)
        elif isinstance(node, ast.Delete):
            why = next((w for t in node.targets if (w := _target_tamper(t, mod, ctx_names))), None)
        elif isinstance(node, ast.Call):
            why = _call_tamper(node, mod, ctx_names)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if node.attr.startswith("_TrialContext__"):
                why = f"reaches the trial context's private {node.attr}"
            elif node.attr == "__dict__" and _is_context(node.value, mod.aliases, ctx_names):
                why = "reaches the trial context's __dict__"
        if why:
            yield mod.at(node, why)


def _rule_tampering(modules: list[_Module]) -> RuleResult:
    findings = [f for mod in modules if mod.tree is not None for f in _tamper_findings(mod)]
    return _result(
        "program-no-tampering",
        _dedupe(findings),
        "no change to the token counter, timer, TrialContext or chat function found",
        "The rules forbid tampering with the token counter or the timer: leave ctx, TrialContext, the "
        "chat function and the time module alone (at run time the counters live outside the program, "
        "so this would change nothing but still breaks the rule)",
    )


# --------------------------------------------------------------------------------------------------------------
# program-unmodified-response


def _modified(node: ast.AST | None, scope: _Scope, depth: int = 0) -> str | None:
    """What a returned value visibly is instead of the model's answer, or None (a chat result, or undecidable)."""
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return "None"
    if depth > 3:  # a chain of names: undecidable beyond a few hops (and no blow-up on x = f(x) chains)
        return None
    if isinstance(node, ast.Constant):
        return None if node.value == "" else f"the constant {_snippet(node, 40)}"  # "" scores 0 like a failure
    if isinstance(node, ast.JoinedStr):
        return "an f-string built in the program"
    if isinstance(node, ast.BinOp):
        return f"an expression built in the program ({_snippet(node, 40)})"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _STR_METHODS:
        return f"the result of .{node.func.attr}() ({_snippet(node, 40)})"
    if isinstance(node, ast.IfExp):
        return _modified(node.body, scope, depth + 1) or _modified(node.orelse, scope, depth + 1)
    if isinstance(node, ast.Name):
        return _modified_name(node.id, scope, depth)
    return None


def _modified_name(name: str, scope: _Scope, depth: int) -> str | None:
    bindings = scope.bindings.get(name)  # only the run method's own variables
    if not bindings:
        return None
    augmented = [v for kind, v in bindings if kind == "aug" and v is not None]  # an "aug" binding has its node
    if augmented:
        return f"{name}, changed by {_snippet(augmented[0], 40)}"
    if any(kind != "value" for kind, _ in bindings):
        return None
    whys = [_modified(v, scope, depth + 1) for _, v in bindings if not (isinstance(v, ast.Constant) and v.value == "")]
    if whys and all(whys):
        return f"{name}, which holds {whys[0]}"
    return None


def _rule_unmodified(entry: _Module) -> RuleResult:
    rule = "program-unmodified-response"
    runs = _chosen_runs(entry)
    if not runs:
        return not_run(
            RuleResult(rule, _TITLES[rule], True, ""),
            "no run method to inspect (see program-trial-loop); the returned response is also checked at run time",
        )
    assert entry.tree is not None
    module_scope = _Scope(entry.tree, None)
    findings = []
    for cls, run in runs:
        scope = _Scope(run, module_scope)
        for node in _own_nodes(run):
            if isinstance(node, ast.Return):
                why = _modified(node.value, scope)
                if why:
                    findings.append(entry.at(node, f"{cls.name}.run returns {why}"))
    names = ", ".join(f"{c.name}.run" for c, _ in runs)
    return _result(
        rule,
        findings,
        f"every return of {names} hands back a value the program does not visibly change (the final "
        "response is also compared with the model's answers at run time)",
        "The final response must be the model's unmodified answer: return the string the chat function "
        "gave (e.g. return chat_with_chatgpt(ctx, messages)[0]); ask the model for the format you need "
        "instead of editing its reply",
    )


# --------------------------------------------------------------------------------------------------------------
# program-size


def folder_size(folder: Path, stop_after: int | None = None) -> tuple[int, int]:
    """(bytes, files) of every file under the folder, hidden ones included, links not followed (a file: itself)."""
    if folder.is_file():
        return os.lstat(folder).st_size, 1
    total = files = 0
    for root, dirs, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
            files += 1
            if stop_after is not None and total > stop_after:
                return total, files
        dirs.sort()
    return total, files


def _rule_size(folder: Path) -> RuleResult:
    rule = "program-size"
    total, files = folder_size(folder, stop_after=SIZE_LIMIT_BYTES)
    if total <= SIZE_LIMIT_BYTES:
        return RuleResult(
            rule,
            _TITLES[rule],
            True,
            f"{total / 1e6:.3f} MB in {files} files (limit 1 GB, read as 10^9 bytes; what the "
            "program downloads at run time cannot be measured here, and the sandbox has no "
            "network)",
        )
    return RuleResult(
        rule,
        _TITLES[rule],
        False,
        f"{folder}: more than {SIZE_LIMIT_BYTES:,} bytes (over {total / 1e9:.2f} GB counted so far); "
        "the whole program including its resources must be at most 1 GB (10^9 bytes): remove data "
        "or model files you do not need",
        (Finding(str(folder), 1, 1, f"{total} bytes"),),
    )


# --------------------------------------------------------------------------------------------------------------
# program-fixed-seeds (2025)

_RANDOM_GLOBAL = {
    "random",
    "randint",
    "randrange",
    "choice",
    "choices",
    "shuffle",
    "sample",
    "uniform",
    "triangular",
    "gauss",
    "normalvariate",
    "lognormvariate",
    "expovariate",
    "vonmisesvariate",
    "gammavariate",
    "betavariate",
    "paretovariate",
    "weibullvariate",
    "getrandbits",
    "randbytes",
    "binomialvariate",
}
_NUMPY_GLOBAL = {
    "rand",
    "randn",
    "randint",
    "random_integers",
    "random_sample",
    "random",
    "ranf",
    "sample",
    "choice",
    "bytes",
    "shuffle",
    "permutation",
    "uniform",
    "normal",
    "standard_normal",
    "beta",
    "binomial",
    "poisson",
    "exponential",
    "gamma",
    "multinomial",
    "dirichlet",
    "laplace",
    "logistic",
    "lognormal",
    "geometric",
    "triangular",
}
_TORCH_GLOBAL = {
    "rand",
    "randn",
    "randint",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "multinomial",
    "bernoulli",
    "normal",
    "poisson",
}
_SEED_CALLS = {
    "random": ("random.seed",),
    "numpy": ("numpy.random.seed",),
    "torch": ("torch.manual_seed", "torch.random.manual_seed"),
}
_GENERATORS = {
    "random.Random": "random.Random(42)",
    "numpy.random.default_rng": "numpy.random.default_rng(42)",
    "numpy.random.RandomState": "numpy.random.RandomState(42)",
}
_SEED_HINT = {"random": "random.seed(42)", "numpy": "numpy.random.seed(42)", "torch": "torch.manual_seed(42)"}


def _random_family(name: str) -> str | None:
    """Which global generator a call draws from ('random', 'numpy', 'torch'), or None."""
    module, _, fn = name.rpartition(".")
    if module == "random" and fn in _RANDOM_GLOBAL:
        return "random"
    if module == "numpy.random" and fn in _NUMPY_GLOBAL:
        return "numpy"
    if module in ("torch", "torch.random") and fn in _TORCH_GLOBAL:
        return "torch"
    return None


def _seed_arg(node: ast.Call) -> ast.AST | None:
    return node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in ("a", "seed")), None)


def _is_fixed(node: ast.AST | None, scope: _Scope, aliases: dict[str, str]) -> bool:
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return False
    return _source_kind(node, scope, aliases) == "const"


def _rule_fixed_seeds(modules: list[_Module]) -> RuleResult:
    uses: list[tuple[str, Finding]] = []
    seeded: set[str] = set()
    for mod in modules:
        if mod.tree is None:
            continue
        for node, scope in _scoped_nodes(mod.tree):
            if not isinstance(node, ast.Call):
                continue
            name = _qualname(node.func, mod.aliases) or ""
            family = _random_family(name)
            seeds = [f for f, calls in _SEED_CALLS.items() if name in calls]
            if seeds and _is_fixed(_seed_arg(node), scope, mod.aliases):
                seeded.update(seeds)
            elif family:
                uses.append(
                    (
                        family,
                        mod.at(
                            node,
                            f"{_snippet(node, 50)} uses the unseeded global generator; call {_SEED_HINT[family]} first",
                        ),
                    )
                )
            elif name == "random.SystemRandom":
                uses.append(("", mod.at(node, "random.SystemRandom cannot be seeded; use random.Random(42)")))
            elif name in _GENERATORS and not _is_fixed(_seed_arg(node), scope, mod.aliases):
                uses.append(("", mod.at(node, f"{_snippet(node, 50)} has no fixed seed; use {_GENERATORS[name]}")))
    findings = [f for family, f in uses if family not in seeded]
    return _result(
        "program-fixed-seeds",
        findings,
        "no unseeded use of random, numpy.random or torch random functions found",
        "2025 rule: any randomness in the program must use a fixed seed; seed it with a constant "
        "(random.seed(42), numpy.random.seed(42) / default_rng(42), random.Random(42), "
        "torch.manual_seed(42))",
    )


# --------------------------------------------------------------------------------------------------------------
# entry points


def _rule_parses(modules: list[_Module]) -> RuleResult:
    errors = [m.error for m in modules if m.error is not None]
    return _result(
        "program-parses",
        errors,
        f"{len(modules)} Python file(s) parse",
        "Fix the syntax: the program must import under Python 3.11 (the official environment); "
        "a file that does not parse is not checked by the other rules",
        official=False,
    )


_RUNS_FILES = (
    "exec",
    "eval",
    "compile",
    "runpy.run_path",
    "runpy.run_module",
    "importlib.util.spec_from_file_location",
    "importlib.machinery.SourceFileLoader",
    "imp.load_source",
    "importlib.import_module",
    "__import__",
)


def _runs_unimported_code(modules: list[_Module]) -> Finding | None:
    """Where the program may run code it does not import by a constant name (exec, runpy, a computed import):
    then the import graph does not bound what runs, and every file of the folder is judged."""
    for mod in modules:
        for node in ast.walk(mod.tree) if mod.tree is not None else ():
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else _qualname(node.func, mod.aliases)
            if name not in _RUNS_FILES:
                continue
            arg = node.args[0] if node.args else None
            constant_import = name in ("importlib.import_module", "__import__") and isinstance(arg, ast.Constant)
            if not constant_import:
                return mod.at(node, f"{name}(...)")
    return None


def _code_rules(modules: list[_Module], edition: str) -> list[RuleResult]:
    """The rules judged from the code of ``modules`` (the program's files), in report order. A file that does
    not parse cannot be judged: a rule that found nothing in the other files is not run (a finding elsewhere
    still breaks it)."""
    results = [
        _rule_parses(modules),
        _rule_chat_only(modules, edition),
        _rule_hardcoded(modules),
        _rule_tampering(modules),
    ]
    if edition_record(edition).fixed_seeds_rule:
        results.append(_rule_fixed_seeds(modules))
    broken = [m.shown for m in modules if m.error is not None]
    if not broken:
        return results
    parsed = len(modules) - len(broken)
    why = (
        f"{', '.join(broken[:3])}{' and more' if len(broken) > 3 else ''} "
        f"{'does' if len(broken) == 1 else 'do'} not parse (see program-parses)"
        + (f"; nothing found in the {parsed} file(s) that parse" if parsed else "")
    )
    return [results[0], *(not_run(r, why) if r.passed else r for r in results[1:])]


def _warn_unreached(result: RuleResult, unreached: RuleResult, entry: str) -> RuleResult:
    """``result`` with what ``unreached`` (the same rule on files the entry never imports) found, as warnings."""
    if unreached.passed or not unreached.findings:  # nothing found in the files the entry never imports
        return result
    found = unreached.findings
    f = found[0]
    files = len({x.path for x in found})
    note = (
        f" Warning, not judged: {len(found)} finding(s) in {files} file(s) that {entry} never imports, so the "
        f"program cannot run them: {f.path}:{f.line}:{f.col}: {f.text}"
        + (f" ({len(found) - 1} more)" if len(found) > 1 else "")
        + "; remove unused copies that break this "
        "rule, or they count as soon as the program imports them."
    )
    return replace(result, message=result.message.rstrip(".") + "." + note, warnings=found)


def check_program(
    entry: Path, edition: str, scope: Path | None = None, search_paths: Sequence[Path] | None = None
) -> list[RuleResult]:
    """Static checks of a 2024/2025 program. ``scope`` is the submission folder (default ``entry.parent``), or
    the entry file alone. The code rules judge the files the entry can import (``imports.reachable`` from
    ``search_paths``, default the entry's folder then the submission folder, as the sandbox child runs it);
    the other .py files of the folder only give warnings, unless the program runs code it does not import
    by name. The size rule measures the whole folder."""
    if edition not in PROGRAM_YEARS:
        raise ValueError(f"edition must be one of {', '.join(PROGRAM_YEARS)}, not {edition!r}")
    folder = entry.parent if scope is None else scope
    root = folder if folder.is_dir() else entry.parent
    paths = list(dict.fromkeys(search_paths or [entry.parent, root]))
    graph = reachable(entry, paths, external=_ALL_OFFICIAL)
    judged = [_load(p, str(p)) for p in [entry, *graph.files[1:]]]
    seen = {p.resolve() for p in graph.files}
    others = [_load(p, str(p)) for p in _python_files(folder, entry)[1:] if p.resolve() not in seen]
    runner = _runs_unimported_code(judged) if others else None
    if runner is not None:
        judged, others = judged + others, []
    code = _code_rules(judged, edition)
    if others:
        code = [_warn_unreached(r, u, entry.name) for r, u in zip(code, _code_rules(others, edition), strict=True)]
    elif runner is not None:
        code = [
            r
            if r.passed or not r.ran
            else replace(
                r,
                message=f"{r.message} (every file of the folder is judged: the program "
                f"runs code it does not import by name at {runner.path}:"
                f"{runner.line}: {runner.text})",
            )
            for r in code
        ]
    by_rule = {r.rule: r for r in code}
    results = [
        by_rule.pop("program-parses"),
        _rule_trial_loop(judged[0], judged),
        by_rule.pop("program-chat-only"),
        by_rule.pop("program-no-hardcoded-assistant"),
        by_rule.pop("program-no-tampering"),
        _rule_unmodified(judged[0]),
        _rule_size(folder),
    ]
    return results + list(by_rule.values())  # 2025: program-fixed-seeds (not a 2024 rule: omitted, not passed)


def not_a_submission(reason: str) -> RuleResult:
    """The verdict on a folder the harness cannot evaluate (no program, no prompt, or an ambiguous one): a
    failure, never a silent pass."""
    rule = "submission"
    return RuleResult(
        rule,
        _TITLES[rule],
        False,
        f"{reason}; nothing in it can be evaluated, so it fails",
        (Finding(reason.split(": ", 1)[0], 1, 1, reason),),
        official=False,
    )


def stand_alone_scripts(folder: Path) -> list[Path]:
    """Every .py file of a folder (hidden, cache and virtual-environment folders left out)."""
    return [p for p in _python_files(folder, folder) if p != folder]


def check_scripts(folder: Path, edition: str = "2024") -> list[RuleResult]:
    """A folder of Python files none of which defines a TrialLoop subclass (stand-alone scripts that call a
    model themselves): no program the harness can run, and every file is judged by the code rules."""
    if edition not in PROGRAM_YEARS:
        raise ValueError(f"edition must be one of {', '.join(PROGRAM_YEARS)}, not {edition!r}")
    files = stand_alone_scripts(folder)
    modules = [_load(p, str(p)) for p in files]
    names = ", ".join(p.name for p in files[:4]) + (f" and {len(files) - 4} more" if len(files) > 4 else "")
    rule = "program-trial-loop"
    what = f"{folder}: no file defines a TrialLoop subclass ({len(files)} stand-alone script(s): {names})"
    trial_loop = RuleResult(
        rule,
        _TITLES[rule],
        False,
        f"{what}; a submission is one program with a class MyLoop(TrialLoop) whose @staticmethod "
        f"run(ctx, target_character) reaches the model only through {_CHAT[edition]} and "
        "returns its answer (scripts that call a model themselves are not evaluated)",
        tuple(Finding(str(p), 1, 1, "no TrialLoop subclass") for p in files),
    )
    code = _code_rules(modules, edition)
    return [code[0], trial_loop, *code[1:4], _rule_size(folder), *code[4:]]


def check_submission(sub: Submission) -> list[RuleResult]:
    """The rules of the submission's format: prompt-2023 -> check_prompt, program-2024/2025 -> check_program."""
    if sub.format == "prompt-2023":
        try:
            text = read_prompt(sub.entry)
        except OSError:
            text = sub.prompt or ""
        return check_prompt(text, str(sub.entry))
    if sub.format in ("program-2024", "program-2025"):
        return check_program(sub.entry, sub.format.rsplit("-", 1)[1], scope=sub.path)
    raise ValueError(f"{sub.entry}: unknown submission format {sub.format!r}")


# Rules static analysis cannot decide, and how the harness enforces them while the program runs.
RUNTIME_RULES: tuple[tuple[str, str], ...] = (
    (
        "time-limit",
        "120 s per trial in 2024 (500 s in 2025): the harness's per-trial chat checks the elapsed time "
        "before every call and fails the trial with reason timeout; the sandbox also kills the program "
        "after max_time + 60 s of its own time",
    ),
    (
        "token-limit",
        "25,000 prompt + completion tokens per trial: counted by the harness after every call, outside "
        "the program; going over fails the trial with reason token_limit and discards that response",
    ),
    (
        "fixed-model-parameters",
        "model, temperature (1) and seed (42 in 2024, none in 2025) are set inside the chat "
        "function by the edition profile; the program passes only messages and n",
    ),
    (
        "no-plugins",
        "function calling and plugins are disabled: the request carries only the messages, n and the "
        "edition's fixed parameters",
    ),
    (
        "no-network",
        "each trial runs in a sandboxed child process with no network where unprivileged namespaces "
        "are available (unshare), and an audit hook refusing sockets, DNS, subprocesses, fork and "
        "exec; a blocked action fails the trial with sandbox_violation",
    ),
    (
        "api-key-hidden",
        "the child's environment holds only PATH, locale, TZ, HOME and TMPDIR: no OPENAI_API_KEY; "
        "reading another process's /proc/<pid>/ is refused",
    ),
    (
        "unmodified-response",
        "every model response is stored before the program sees it; a trial whose returned "
        "string is not one of the model's answers scores 0 with reason modified_response "
        "(unless --pcg-unmodified-response off), and the dry run (--pcg-dry-run) fails",
    ),
    (
        "no-tampering",
        "the token counters and the timer live in the harness process; changes the program makes to "
        "ctx or TrialContext change nothing",
    ),
    (
        "size-limit",
        "the submission folder is copied to a scratch folder of at most 1 GiB; files the program "
        "writes are limited to 64 MiB each",
    ),
    (
        "response-format",
        "the final response must contain drop_block() calls inside triple backticks: the "
        "official extraction finds no code otherwise and the trial scores 0",
    ),
    (
        "no-prompt-optimisation",
        "automatic prompt optimisation at evaluation time is discouraged, not forbidden; nothing checks it",
    ),
)
