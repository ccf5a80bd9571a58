"""Which folders are PCG Benchmark submissions, on the shapes participants hand in (stray files, nested code)."""

from pathlib import Path

import pytest

from pcg_plugin.errors import SubmissionError
from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.submission import PROGRAM, PROMPT, detect_file, detect_folder

PLACEHOLDERS = get_problem("binary-v0").placeholders

LOOP = (
    "from llms4pcg.models.trial_loop import TrialLoop\n\n\nclass Entry(TrialLoop):\n    @staticmethod\n"
    "    def run(ctx, task):\n        return task\n"
)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_subfolders_of_a_container_are_submissions_stray_files_ignored(tmp_path):
    subs = write(
        tmp_path / "subs",
        {
            "team_a/prompt.txt": "Make <PROBLEM> for <CONTROL>.",
            "team_a/notes.txt": "no placeholder",
            "team_a/requirements.txt": "<PROBLEM>",
            "team_a/README.md": "hi",
            "team_b/src/agent/main.py": LOOP,
            "team_b/src/agent/helpers.py": "X = 1\n",
            "team_b/prompts/p.txt": "<PROBLEM>",
            "team_b/__pycache__/main.cpython-311.pyc": "junk",
            ".hidden/prompt.txt": "<PROBLEM>",
        },
    )
    a = detect_folder(subs / "team_a", [subs], PLACEHOLDERS)
    assert (a.name, a.format, a.entry.name, a.prompt) == (
        "team_a",
        PROMPT,
        "prompt.txt",
        "Make <PROBLEM> for <CONTROL>.",
    )
    b = detect_folder(subs / "team_b", [subs], PLACEHOLDERS)
    assert (b.name, b.format, b.entry.relative_to(subs).as_posix()) == ("team_b", PROGRAM, "team_b/src/agent/main.py")
    assert detect_folder(subs, [subs], PLACEHOLDERS) is None  # a container, not a submission
    assert detect_folder(subs / ".hidden", [subs], PLACEHOLDERS) is None


def test_a_folder_that_is_no_submission_or_two_is_reported_not_dropped(tmp_path):
    subs = write(tmp_path / "subs", {"notes/README.md": "x", "two/a.txt": "<PROBLEM>", "two/b.txt": "<CONTROL>"})
    with pytest.raises(SubmissionError, match="notes: not a PCG Benchmark submission"):
        detect_folder(subs / "notes", [subs], PLACEHOLDERS)
    with pytest.raises(SubmissionError, match=r"several prompt files \(a.txt, b.txt\); add submission.toml"):
        detect_folder(subs / "two", [subs], PLACEHOLDERS)


def test_a_manifest_picks_the_entry_and_a_loose_prompt_file_is_one_submission(tmp_path):
    subs = write(
        tmp_path / "subs",
        {"two/a.txt": "<PROBLEM>", "two/b.txt": "<CONTROL>", "two/submission.toml": 'entry = "b.txt"\nteam = "Bees"\n'},
    )
    two = detect_folder(subs / "two", [subs], PLACEHOLDERS)
    assert (two.entry.name, two.team, two.prompt) == ("b.txt", "Bees", "<CONTROL>")
    loose = write(tmp_path, {"mine.txt": "<LEGEND>", "plain.txt": "no placeholder"})
    assert detect_file(loose / "mine.txt", [loose / "mine.txt"], PLACEHOLDERS).name == "mine"
    with pytest.raises(SubmissionError, match="uses none of <PROBLEM>"):
        detect_file(loose / "plain.txt", [loose / "plain.txt"], PLACEHOLDERS)
