"""The README stays a short front door (at most 150 lines) whose set-up and test commands are the ones CI runs,
with one picture and a problems table whose every page exists."""

from __future__ import annotations

import re
import shlex

from docs_pages import ROOT, Page, command_lines

README = Page(ROOT / "README.md", (ROOT / "README.md").read_text(encoding="utf-8"))


def test_readme_fits_on_two_screens() -> None:
    assert len(README.text.splitlines()) <= 150


def test_readme_test_command_is_the_one_ci_runs() -> None:
    """`.ci/run` runs "the README's test command" (the same pytest arguments, python3 there, python here), then the
    same command with ``-m "slow and not manual"``: the tests the first leaves out but the hours-long ``manual`` ones
    (each step under ``time``)."""
    ci_lines = [
        shlex.split(line.removeprefix("time "))[3:]
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if re.match(r"(time )?python3? -m pytest ", line)
    ]
    assert len(ci_lines) == 2, ci_lines
    first, slow = ci_lines
    quoted = [args for _, program, args in command_lines(README) if program == "pytest"]
    assert first in quoted, (first, quoted)
    at = slow.index("-m")
    assert slow[at : at + 2] == ["-m", "slow and not manual"] and slow[:at] + slow[at + 2 :] == first, slow


def test_readme_quotes_the_main_job() -> None:
    quoted = [args for _, program, args in command_lines(README) if program == "pytest"]
    assert ["submissions/", "-p", "xdist", "-n", "2"] in quoted


def test_readme_has_one_picture_and_links_every_problem_page() -> None:
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README.text)
    assert len(pictures) == 1 and (ROOT / pictures[0]).is_file()
    stems = {p.stem for p in (ROOT / "docs" / "problems").glob("*.md")}
    # A family's further pages are named <family>-<topic>.md (science-birds-classifier.md); the README links
    # each family's own page.
    families = {s for s in stems if not any(s.startswith(f"{other}-") for other in stems)}
    linked = {p.removesuffix(".md") for p in re.findall(r"\]\(docs/problems/([^)#]+)", README.text)}
    assert families <= linked, f"problem pages the README's table does not link: {sorted(families - linked)}"
