"""The one error root and the catalogue of zero-score reasons, checked against the package source and the docs."""

from __future__ import annotations

import ast
import builtins
import inspect
import json
import re
from pathlib import Path

from pcg_plugin import errors
from pcg_plugin.errors import OfficialFailure, PcgError, Reason

PACKAGE = Path(errors.__file__).parent
RESULTS_PAGE = PACKAGE.parent / "docs" / "results.md"  # "Reasons a trial scores 0"
_BUILTIN_EXCEPTIONS = {
    name for name, obj in vars(builtins).items() if isinstance(obj, type) and issubclass(obj, BaseException)
}


def _sources() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("*.py"))}


def _is_reason_slot(node: ast.AST) -> bool:
    """``reason``, ``x.reason``, ``x.get("reason")`` or ``ERROR_REASON``: where a reason is named."""
    if isinstance(node, ast.Name):
        return node.id in ("reason", "ERROR_REASON")
    if isinstance(node, ast.Attribute):
        return node.attr == "reason"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == "reason"
    return False


def _literal_reasons(tree: ast.Module) -> list[tuple[int, str]]:
    """Every string literal the source gives as a reason: keyword, assignment, comparison, dict entry."""
    found: list[tuple[int, str]] = []

    def take(value: ast.AST | None, line: int) -> None:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            found.append((line, value.value))

    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "reason":
            take(node.value, node.value.lineno)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_is_reason_slot(t) for t in targets):
                take(node.value, node.lineno)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_reason_slot(s) for s in sides):
                for side in sides:
                    take(side, node.lineno)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "reason":
                    take(value, node.lineno)
    return found


def _reason_members_used(tree: ast.Module) -> set[str]:
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Reason"
    }


def test_every_reason_string_in_the_package_is_a_member() -> None:
    strays = [
        f"{path.relative_to(PACKAGE)}:{line}: {value!r}"
        for path, tree in _sources().items()
        for line, value in _literal_reasons(tree)
        if value and value not in set(Reason)
    ]  # "" is "no reason yet"
    assert strays == []


def test_the_scan_sees_literal_reasons() -> None:
    """The scanner itself: each way a reason is spelled today is found (else the test above proves nothing)."""
    tree = ast.parse(
        'OfficialFailure("m", reason="a")\nreason = "b"\nif t.get("reason") == "c": pass\n'
        'if failure.reason != "d": pass\nrow = {"reason": "e"}\nERROR_REASON = "f"\n'
    )
    assert sorted(value for _, value in _literal_reasons(tree)) == ["a", "b", "c", "d", "e", "f"]


def test_every_member_is_used_in_the_package() -> None:
    used = set().union(*(_reason_members_used(tree) for tree in _sources().values()))
    assert {member.name for member in Reason} <= used


def test_a_member_is_its_plain_string_in_json_and_text() -> None:
    for member in Reason:
        assert json.dumps(member) == json.dumps(member.value)
        assert json.dumps({"reason": member}, sort_keys=True) == json.dumps({"reason": member.value}, sort_keys=True)
        assert f"{member}: x" == f"{member.value}: x" and member == member.value


def test_docs_table_lists_exactly_the_members() -> None:
    text = RESULTS_PAGE.read_text(encoding="utf-8")
    section = text.split("<!-- section:reasons -->", 1)[1].split("<!-- /section:reasons -->", 1)[0]
    listed = re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.M)
    assert sorted(listed) == sorted(Reason) and len(listed) == len(set(listed))


def test_official_failures_carry_a_member() -> None:
    assert OfficialFailure("m").reason == Reason.OFFICIAL_FAILURE
    assert errors.NoCode("m").reason is Reason.NO_CODE and errors.ConversionError("m").reason is Reason.CONVERSION_ERROR
    assert OfficialFailure("m", reason=Reason.KILLED).reason is Reason.KILLED


def test_every_exception_lives_in_errors_under_the_root() -> None:
    ours = {name for name, obj in vars(errors).items() if inspect.isclass(obj) and issubclass(obj, BaseException)}
    for name in ours:
        assert issubclass(getattr(errors, name), PcgError), name
    elsewhere = []
    for path, tree in _sources().items():
        if path == PACKAGE / "errors.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                if bases & (_BUILTIN_EXCEPTIONS | ours):
                    elsewhere.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}")
    assert elsewhere == []


def test_second_bases_still_catch() -> None:
    """Code (and participants' programs) catch these by their builtin base."""
    assert issubclass(errors.SubmissionError, ValueError)
    assert issubclass(errors.SandboxViolation, PermissionError)


def test_a_record_with_a_member_writes_the_same_json_as_with_its_string() -> None:
    from pcg_plugin.problems.science_birds.records import TrialRecord

    for member in Reason:
        as_member = TrialRecord(nodeid="n", submission="s", letter="A", trial=1, reason=member, message="m")
        as_string = TrialRecord(nodeid="n", submission="s", letter="A", trial=1, reason=member.value, message="m")
        assert as_member.to_json() == as_string.to_json()
        assert json.dumps(as_member.trial_entry()) == json.dumps(as_string.trial_entry())
