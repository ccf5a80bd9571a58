"""The example submissions (examples/imagegame) and a realistic submissions folder, run end to end through
pytest with the scripted test doubles of ig_doubles.py (no model), with every expected score worked out by hand.

Targets: compact_grids/0 is a diagonal of B's over a full bottom row (9 filled cells: (1,5) (2,4) (3,3) (4,2) and
row 5); random_grids/1 has R's at row 1 columns 1,3,4,5, (2,2) and (4,1) (6 filled cells).

- ``respond_perfect`` describes each filled row then says DONE: every episode ends with F1 100.
- ``respond_bad`` fills row 1 with the target's letter, then DONE. compact_grids/0: 1 of the 5 drawn cells is right,
  P 1/5 = 20, R 1/9 = 11, F1 2·.2·.111/.311 = .143 -> 14. random_grids/1: 4 of 5 right, P 80, R 4/6 = 67,
  F1 2·.8·.667/1.467 = .727 -> 73. Quality = mean Main Score = (14 + 73) / 2 = 43.5, all played, no success.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)  # ig_doubles.py: the scripted players, importable by workers
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "imagegame"
INSTANCES = "compact_grids/0,random_grids/1"
KINDS = ("giver_program", "giver_prompt", "selfplay")


def run(pytester: pytest.Pytester, double: str, *extra: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        "subs",
        "--pcg-problem",
        "imagegame",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        f"ig_doubles:{double}",
        "--pcg-imagegame-instances",
        INSTANCES,
        "--pcg-out",
        "out",
        "--pcg-store",
        "store",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        *extra,
    )


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    return {k: v for k, v in result.parseoutcomes().items() if not k.startswith("warning")}


@pytest.fixture
def subs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTHONPATH", HERE, prepend=os.pathsep)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("PCG_CACHE_DIR", str(pytester.path / "cache"))  # requirements environments stay here
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # a requirement that is not installed fails at once, offline
    return pytester.path / "subs"


@pytest.mark.parametrize(
    ("double", "main", "quality"),
    [
        ("respond_perfect", {"compact_grids/0": 100, "random_grids/1": 100}, 100.0),
        ("respond_bad", {"compact_grids/0": 14, "random_grids/1": 73}, 43.5),
    ],
)
def test_the_three_examples_play_and_rank(pytester: pytest.Pytester, subs: Path, double, main, quality) -> None:
    shutil.copytree(EXAMPLES, subs)
    result = run(pytester, double)
    assert outcomes(result) == {"passed": 6}
    result.stdout.fnmatch_lines(["*pytest-pcg leaderboard*", "rank  95% rank  submission*"])
    doc = json.loads((pytester.path / "out" / "results.json").read_text())
    for kind in KINDS:
        played = {e["instance"]: e["episode scores"]["Main Score"] for e in doc["episodes"] if e["submission"] == kind}
        assert played == main, kind
    for row in doc["leaderboard"]:
        assert (row["overall"]["% Played"], row["overall"]["Quality Score"], row["overall"]["clemscore"]) == (
            100.0,
            quality,
            quality,
        )
    openings = {
        e["submission"]: json.loads((pytester.path / "out" / e["episode_dir"] / "interactions.json").read_text())[
            "turns"
        ][0][0]["action"]["content"]
        for e in doc["episodes"]
        if e["instance"] == "random_grids/1"
    }
    assert "- the first row is: R ▢ R R R" in openings["giver_program"]  # the program's own message
    assert "is a 5 by 5 grid of letters" in openings["giver_prompt"] and "<" not in openings["giver_prompt"]
    assert openings["selfplay"].startswith("Let us do the following task.")  # clembench's standard Giver prompt


PROGRAM = '''"""Team Rowwise's Giver: the rows, phrased by a helper module."""
from chatgpt4pcg.models.trial_loop import TrialLoop

from phrasing import rows_text
from shared.banner import BANNER


class Rowwise(TrialLoop):
    @staticmethod
    def run(ctx, target_grid):
        return f"{BANNER}\\n\\n{target_grid}\\n\\n{rows_text(target_grid)}\\nWhat is your next command?"
'''
PHRASING = "def rows_text(grid):\n    return '\\n'.join(f'row {i + 1}: {r}' for i, r in enumerate(grid.split('\\n')))\n"


def realistic(subs: Path) -> None:
    """A team folder as participants hand one in (nested program, helper modules, notes, caches, a
    requirements.txt), beside folders broken in each way a participant breaks one."""
    files = {
        "rowwise/imagegame.toml": 'name = "Rowwise"\ngiver_program = "src/giver/main.py"\n',
        "rowwise/src/giver/main.py": PROGRAM,
        "rowwise/src/giver/phrasing.py": PHRASING,
        "rowwise/shared/__init__.py": "",
        "rowwise/shared/banner.py": 'BANNER = "Describe this 5 by 5 grid, one row per command (Command: ...)."\n',
        "rowwise/requirements.txt": "chatgpt4pcg>=1.0  # the harness's stand-in serves it\n",
        "rowwise/README.md": "# Rowwise\nOur Giver lists the rows.\n",
        "rowwise/notes/ideas.txt": "try columns next\n",
        "rowwise/.DS_Store": "\0\0",
        "rowwise/src/giver/__pycache__/main.cpython-311.pyc": "stale",
        "broken_toml/imagegame.toml": "giver_prompt = giver.txt\n",
        "no_prompt/imagegame.toml": 'giver_prompt = "giver.txt"\n',
        "no_prompt/prompt.txt": "<TARGET_GRID>",
        "crashing/imagegame.toml": 'giver_program = "giver.py"\n',
        "crashing/giver.py": "from chatgpt4pcg.models.trial_loop import TrialLoop\n\nclass Bad(TrialLoop):\n"
        "    @staticmethod\n    def run(ctx, target):\n        raise RuntimeError('no prompt today')\n",
        "chatty/imagegame.toml": 'model = "ig_doubles:respond_chatty_giver"\n',
        "unmet/imagegame.toml": 'giver_program = "giver.py"\n',
        "unmet/giver.py": "import gridfancy\n",
        "unmet/requirements.txt": "gridfancy==1.0\n",
    }
    for name, text in files.items():
        (subs / name).parent.mkdir(parents=True, exist_ok=True)
        (subs / name).write_text(text)


def test_a_realistic_folder_plays_and_every_broken_one_says_why(pytester: pytest.Pytester, subs: Path) -> None:
    realistic(subs)
    result = run(pytester, "respond_perfect")
    # rowwise 2 played; chatty and crashing 2 zeros each; broken_toml, no_prompt: one failing item each; unmet's 2
    # items error in setup
    assert outcomes(result) == {"passed": 2, "zero": 4, "failed": 2, "errors": 2}
    result.stdout.fnmatch_lines_random(
        [
            "*folder 'broken_toml' is not evaluated (no scores, not ranked): *broken_toml/imagegame.toml is not TOML*",
            "*folder 'no_prompt' is not evaluated*: *giver_prompt = 'giver.txt' is not a file inside*no_prompt*",
            "*requirements of unmet (*unmet) cannot be met, so its episodes were not played (no model call): "
            "module 'gridfancy' (imported at giver.py:1) is not provided: requirements.txt line 1 'gridfancy==1.0'*",
            "  crashing instance random_grids/1 trial 1: giver_program_failed: program_error: RuntimeError: no prompt "
            "today -> no Giver prompt: counted as an aborted episode (against % Played, no quality)",
            "  chatty instance compact_grids/0 trial 1: aborted: Invalid instruction format: the reply must be one "
            "line*; turn 1, the "
            "giver replied “Sure! Here is my first command. ⏎ Command: row 1: X X X X X” -> clembench aborts the "
            "episode: Aborted 1, counted against % Played, no quality (NaN), Success 0",
            "  1. * Rowwise * 2      100      100        100       100       100/100      100/100",
        ]
    )
    doc = json.loads((pytester.path / "out" / "results.json").read_text())
    assert sorted(doc["folder_errors"]) == ["subs/broken_toml::not-evaluated", "subs/no_prompt::not-evaluated"]
    board = {r["submission"]: r for r in doc["leaderboard"]}
    assert (board["chatty"]["aborted"], board["chatty"]["overall"]["% Played"]) == (2, 0.0)
    assert (board["crashing"]["aborted"], board["crashing"]["overall"]["Quality Score"]) == (2, None)
    assert board["unmet"]["errors"] == 2 and board["unmet"]["overall"] is None
    rowwise = next(e for e in doc["episodes"] if e["submission"] == "Rowwise" and e["instance"] == "random_grids/1")
    opening = json.loads((pytester.path / "out" / rowwise["episode_dir"] / "interactions.json").read_text())
    assert "row 1: R ▢ R R R" in opening["turns"][0][0]["action"]["content"]
    html = (pytester.path / "out" / "report.html").read_text()
    assert "clembench aborts the episode" in html and "no Giver prompt" in html
