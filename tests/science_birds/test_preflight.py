"""The pre-flight table: no cell cut silently, names relative where they can be, a reason under every folder
that is not evaluated."""

from __future__ import annotations

from pathlib import Path

import pytest

from pcg_plugin.problems.science_birds.preflight import CELL, FolderRow, display_name, row_for, table

REPO = Path(__file__).resolve().parents[2]
LONG = (
    "2024-pe-examples.txt: not built (the program imports no third-party module); ../requirements.txt: "
    "not built (the program imports no third-party module)"
)


def test_a_cell_too_wide_ends_in_dots_and_its_full_text_follows_the_row() -> None:
    rows = [
        FolderRow("subs/zero_shot", "submission", "program-2024", "zero_shot.py", ".", requirements=LONG, rules="pass"),
        FolderRow("subs/notes", "error", message="subs/notes: not a submission: no program"),
    ]
    lines = table(rows)
    row = lines[1]
    assert LONG[: CELL - 3] + "..." in row and LONG not in row
    assert lines[2] == f"    requirements: {LONG}"
    assert lines[3].startswith("subs/notes ") and lines[4] == "    subs/notes: not a submission: no program"
    assert lines[-1] == "pre-flight: 2 folder(s): 1 submission(s), 1 not evaluated, 0 skipped"
    assert all(len(cell) <= CELL for line in lines[1::3] for cell in line.split("  ") if cell)


def test_every_folder_that_is_not_evaluated_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "subs" / "notes"
    folder.mkdir(parents=True)
    row = row_for(folder, None, f"{folder}: not a submission: no program", display="subs/notes")
    assert (row.status, row.message) == ("error", "subs/notes: not a submission: no program")
    assert row_for(folder, None, "", display="subs/notes").message == "not a submission (no reason was given)"
    assert all(line != "subs/notes  error" for line in table([row]))


def test_names_are_relative_to_where_pytest_runs_else_to_the_folder_given(tmp_path: Path) -> None:
    team = tmp_path / "elsewhere" / "2024-pe-examples" / "few_shot"
    team.mkdir(parents=True)
    here = tmp_path / "here"
    here.mkdir()
    assert display_name(team, tmp_path) == "elsewhere/2024-pe-examples/few_shot"
    assert display_name(team, here, [team.parent]) == "2024-pe-examples/few_shot"
    assert display_name(team, team, [team]) == "few_shot"  # pytest . inside the team folder
    assert display_name(team, here) == str(team)  # nothing to be relative to


def test_a_run_from_another_folder_shows_short_names_whole_cells_and_reasons(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """What the user sees: ``pytest /abs/path/subs`` from elsewhere (collection only, nothing paid)."""
    subs = tmp_path / "far" / "away" / "in" / "a" / "deep" / "folder" / "subs"
    (subs / "zero_shot").mkdir(parents=True)
    (subs / "zero_shot" / "zero_shot.py").write_text((REPO / "submissions/zero_shot/zero_shot.py").read_text())
    (subs / "notes").mkdir()
    (subs / "notes" / "README.md").write_text("# our team\n")
    result = pytester.runpytest(
        str(subs),
        "--co",
        "-q",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "x:y",
        "--pcg-requirements",
        "off",
        "-p",
        "no:cacheprovider",
    )
    lines = result.stdout.str().split("pre-flight:")[0].splitlines()
    table_lines = lines[next(i for i, ln in enumerate(lines) if ln.startswith("folder ")) :]
    assert table_lines[1].startswith("subs/notes ") and " error " in table_lines[1]
    assert table_lines[2].startswith("    subs/notes: not a submission: ")  # the reason, under its row
    assert table_lines[3].startswith("subs/zero_shot ") and str(tmp_path) not in "\n".join(table_lines)
