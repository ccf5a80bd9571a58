"""Submission discovery: formats, manifests, ambiguity, identity hashes, and what is never a submission."""

from __future__ import annotations

from pathlib import Path

import pytest
import submission_shapes as shapes

from pcg_plugin.problems.science_birds.submissions import (
    SubmissionError,
    auto_detect_allowed,
    defines_trial_loop,
    detect_folder,
    detect_prompt_file,
    entry_rank,
    files_hash,
    find_programs,
    folder_role,
    not_a_submission,
    program_format,
    prompt_file_allowed,
)

PROGRAM = "from chatgpt4pcg import TrialLoop\nclass Mine(TrialLoop):\n    pass\n"


def make(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (PROGRAM, True),
        ("import chatgpt4pcg as c\nclass X(c.TrialLoop): pass\n", True),
        ("class TrialLoop: pass\n", False),
        ("x = 'TrialLoop'\n", False),
        ("class Broken(TrialLoop):\n  def run(:\n", True),
    ],
)
def test_defines_trial_loop(source, expected):
    assert defines_trial_loop(source) is expected


def test_program_format():
    assert program_format(PROGRAM) == "program-2024"
    assert program_format("from llms4pcg import chat_with_llm\n" + PROGRAM) == "program-2025"


def test_program_folder(tmp_path):
    folder = make(tmp_path / "team_x", {"main.py": PROGRAM, "helper.py": "X = 1\n", "notes.txt": "<OBJECT>"})
    sub = detect_folder(folder)
    assert sub is not None
    assert (sub.name, sub.team, sub.format, sub.entry.name, sub.prompt) == (
        "team_x",
        "team_x",
        "program-2024",
        "main.py",
        None,
    )
    assert sub.prompt_length is None and sub.files_hash.startswith("sha256:")


def test_prompt_folder(tmp_path):
    folder = make(tmp_path / "p", {"prompt.txt": "Draw <OBJECT>."})
    sub = detect_folder(folder)
    assert sub is not None and sub.format == "prompt-2023" and sub.prompt == "Draw <OBJECT>."
    assert sub.prompt_length == len("Draw <OBJECT>.")


def test_plain_folder_is_not_a_submission(tmp_path):
    assert detect_folder(make(tmp_path / "x", {"a.py": "print(1)\n", "b.txt": "no placeholder"})) is None


def test_two_programs_need_a_manifest(tmp_path):
    folder = make(tmp_path / "t", {"a.py": PROGRAM, "b.py": PROGRAM})
    with pytest.raises(SubmissionError, match=r"submission\.toml"):
        detect_folder(folder)
    make(folder, {"submission.toml": 'team = "Team T"\nentry = "b.py"\n'})
    sub = detect_folder(folder)
    assert sub is not None and sub.entry.name == "b.py" and sub.team == "Team T"


@pytest.mark.parametrize(
    ("manifest", "match"),
    [
        ('format = "program-1999"', "format"),
        ("team = [", "TOML"),
        ('entry = "missing.py"', "does not exist"),
        ("team = 3", "string"),
    ],
)
def test_bad_manifest_is_a_clear_error(tmp_path, manifest, match):
    folder = make(tmp_path / "t", {"a.py": PROGRAM, "submission.toml": manifest})
    with pytest.raises(SubmissionError, match=match):
        detect_folder(folder)


def test_manifest_prompt_must_hold_placeholder(tmp_path):
    folder = make(tmp_path / "t", {"p.txt": "no placeholder", "submission.toml": 'entry = "p.txt"\n'})
    with pytest.raises(SubmissionError, match="<OBJECT>"):
        detect_folder(folder)


def test_manifest_only_ignores_manifestless_folders(tmp_path):
    assert detect_folder(make(tmp_path / "t", {"a.py": PROGRAM}), manifest_only=True) is None


def test_files_hash_changes_with_content_and_ignores_caches(tmp_path):
    folder = make(tmp_path / "t", {"a.py": PROGRAM})
    before = files_hash(folder)
    make(folder, {"__pycache__/a.pyc": "junk", ".git/x": "y"})
    assert files_hash(folder) == before
    make(folder, {"a.py": PROGRAM + "# changed\n"})
    assert files_hash(folder) != before


def test_loose_prompt_file(tmp_path):
    path = make(tmp_path, {"teamq.txt": "make <OBJECT>"}) / "teamq.txt"
    sub = detect_prompt_file(path)
    assert sub is not None and (sub.name, sub.format) == ("teamq", "prompt-2023")
    assert detect_prompt_file(make(tmp_path, {"n.txt": "nothing"}) / "n.txt") is None


def test_where_auto_detection_applies(tmp_path):
    subs = tmp_path / "submissions"
    team = make(subs / "team", {"a.py": PROGRAM})
    assert auto_detect_allowed(team, [])
    assert not auto_detect_allowed(subs, [subs])  # the container itself is never an entry
    other = make(tmp_path / "entries" / "t2", {"a.py": PROGRAM})
    assert not auto_detect_allowed(other, [])
    assert auto_detect_allowed(other, [tmp_path / "entries"])
    fixture = make(tmp_path / "tests" / "data" / "t3", {"a.py": PROGRAM})
    assert not auto_detect_allowed(fixture, [tmp_path / "tests" / "data"])
    project = make(tmp_path / "proj", {"conftest.py": "", "t4/a.py": PROGRAM})
    assert not auto_detect_allowed(project / "t4", [project])  # a project or test folder holds no teams
    # a team folder that happens to hold test files is still a team: never dropped in silence
    team_with_tests = make(tmp_path / "set" / "t5", {"a.py": PROGRAM, "test_a.py": "", "conftest.py": ""})
    assert auto_detect_allowed(team_with_tests, [tmp_path / "set"])


def test_where_loose_prompts_apply(tmp_path):
    loose = make(tmp_path / "submissions", {"x.txt": "<OBJECT>"}) / "x.txt"
    assert prompt_file_allowed(loose, [])
    elsewhere = make(tmp_path / "docs", {"y.txt": "<OBJECT>"}) / "y.txt"
    assert not prompt_file_allowed(elsewhere, [])
    assert prompt_file_allowed(elsewhere, [elsewhere])
    in_tests = make(tmp_path / "tests", {"z.txt": "<OBJECT>"}) / "z.txt"
    assert not prompt_file_allowed(in_tests, [tmp_path / "tests"])


def test_repo_examples_are_discovered():
    root = Path(__file__).resolve().parents[2] / "submissions"
    found = {p.name: detect_folder(p) for p in root.iterdir() if p.is_dir()}
    formats = {name: sub.format for name, sub in found.items() if sub is not None}
    assert formats == {
        "zero_shot": "program-2024",
        "zero_shot_multi_turn": "program-2024",
        "prompt_2023": "prompt-2023",
    }


def test_vanished_or_foreign_folders_are_not_submissions(tmp_path):
    gone = tmp_path / "gone"
    assert not auto_detect_allowed(gone, [])  # not under submissions/, never touched
    assert not auto_detect_allowed(tmp_path / "submissions" / "vanished", [])
    assert detect_folder(gone) is None


# Real-submission shapes (issue 12): tests/submission_shapes.py builds each as a small working folder.


@pytest.mark.parametrize("shape", sorted(shapes.SHAPES))
def test_each_real_shape_is_found_with_its_entry_and_working_folder(tmp_path, shape):
    build, entry, workdir, _verdict = shapes.SHAPES[shape]
    folder = build(tmp_path / "submissions" / shape)
    assert folder_role(folder, []) == "submission"
    sub = detect_folder(folder)
    if entry is None:
        assert sub is None
        assert "26 .py file(s)" in not_a_submission(folder)
        return
    assert sub is not None and sub.format == "program-2024"
    assert sub.entry.relative_to(folder).as_posix() == entry
    assert (sub.run_folder.relative_to(folder).as_posix() or ".") == workdir


def test_a_folder_holding_a_program_is_never_a_2023_prompt(tmp_path):
    folder = shapes.root_program(tmp_path / "t")
    (folder / "notes.txt").write_text("draw <OBJECT> nicely")  # a prompt the program reads, with the placeholder
    sub = detect_folder(folder, require_placeholder=False)
    assert sub is not None and sub.format == "program-2024" and sub.entry.name == "main.py"


def test_requirements_and_readme_txt_are_never_prompts(tmp_path):
    make(tmp_path, {"requirements.txt": "python-dotenv\n", "ReadME.txt": "run it", "LICENSE.txt": "MIT"})
    assert all(
        detect_prompt_file(tmp_path / n, require_placeholder=False) is None
        for n in ("requirements.txt", "ReadME.txt", "LICENSE.txt")
    )


def test_examples_repository_is_a_container_and_a_team_folder_is_a_submission(tmp_path):
    repo = shapes.examples_repo(tmp_path / "pe-examples")
    assert folder_role(repo, [repo]) == "container"
    assert folder_role(repo / "zero_shot", [repo]) == "submission"
    team = shapes.nested_tot(tmp_path / "my_team")
    assert folder_role(team, [team]) == "submission"  # a participant checking their own nested entry
    assert detect_folder(team).entry == team / "tot" / "tot.py"


def test_vendored_library_does_not_compete_for_the_entry(tmp_path):
    folder = shapes.vendored(tmp_path / "v")
    (folder / "graph_lib" / "controller.py").write_text(
        "from chatgpt4pcg.models.trial_loop import TrialLoop\n\nclass Base(TrialLoop):\n    pass\n"
    )
    # the library defines a TrialLoop subclass too, but only the program starts a run
    assert find_programs(folder) == [folder / "got_program.py"]


@pytest.mark.parametrize(
    ("source", "rank"),
    [
        (shapes.program("p.txt"), 0),
        ("from x import TrialLoop\nclass A(TrialLoop): pass\nif __name__ == '__main__':\n    A()\n", 1),
        (PROGRAM, 2),
        ("def run_evaluation(x): pass\nrun_evaluation(1)\n", None),  # someone else's run_evaluation, no loop
        ("x = 'TrialLoop'\n", None),
    ],
)
def test_entry_rank(source, rank):
    assert entry_rank(source) == rank


def test_program_reading_beside_itself_runs_there_and_manifest_workdir_wins(tmp_path):
    folder = make(
        tmp_path / "t",
        {
            "sub/p.py": shapes.program("prompts/x.txt"),
            "sub/prompts/x.txt": "<OBJECT>",
            "README.md": "cd sub; python p.py",
        },
    )
    sub = detect_folder(folder)
    assert sub.run_folder == folder / "sub" and "workdir sub/" in sub.note
    make(folder, {"submission.toml": 'workdir = "."\n'})
    assert detect_folder(folder).run_folder == folder.resolve()
    make(folder, {"submission.toml": 'workdir = "../.."\n'})
    with pytest.raises(SubmissionError, match="not a folder inside"):
        detect_folder(folder)
