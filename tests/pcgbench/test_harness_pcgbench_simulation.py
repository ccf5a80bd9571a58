"""Offline end-to-end runs of the simulation problems through pytest (pytester) with the scripted test double:
talakat-simple-v0, arcade-v0, smb-small-v0 and smbtile-scene-v0, one prompt answered with the variant's example, one
answered broken."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PROMPTS = {
    "talakat-simple-v0": "Pattern for <PROBLEM>: <ROWS> rows of <ROW_LENGTH> integers. <GOAL> It must meet <CONTROL>.",
    "arcade-v0": "Rules for <PROBLEM> on\n<LAYOUT>\n<GOAL>\nThe control asks for <CONTROL>",
    "smb-small-v0": "A level for <PROBLEM>: <WIDTH> slice ids from\n<SLICES>\n<GOAL> It must meet <CONTROL>.",
    "smbtile-scene-v0": "A level for <PROBLEM>: <HEIGHT> rows of <WIDTH> codes\n<LEGEND>\n<GOAL> <CONTROL>",
}
BROKEN = {
    "talakat-simple-v0": ("MODE=noblock", "no_block"),
    "arcade-v0": ("MODE=shape", "not_a_rule_set"),
    "smb-small-v0": ("MODE=shape", "not_slice_ids"),
    "smbtile-scene-v0": ("MODE=shape", "wrong_shape"),
}


@pytest.mark.parametrize("variant", list(PROMPTS))
def test_scripted_run_scores_the_example_and_names_the_broken(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    shutil.copy(HERE / "grid_double.py", pytester.path / "grid_double.py")
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)
    mode, reason = BROKEN[variant]
    for name, text in (("good", PROMPTS[variant]), ("broken", f"<PROBLEM> {mode}")):
        (pytester.path / "subs" / name).mkdir(parents=True)
        (pytester.path / "subs" / name / "prompt.txt").write_text(text)
    result = pytester.runpytest(
        "subs",
        "--pcg-problem",
        f"pcgbench/{variant}",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "grid_double:respond",
        "--pcg-out",
        "run",
        "--pcg-store",
        "store",
        "--pcg-grid-instances",
        "1",
        "--pcg-trials",
        "2",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == 0, result.stdout.str()
    doc = json.loads((pytester.path / "run" / "results.json").read_text())
    subs = {s["name"]: s for s in doc["submissions"]}
    good = [t for i in subs["good"]["instances"] for t in i["trials"]]
    assert [t["quality"] for t in good] == [1.0, 1.0] and [t["unique"] for t in good] == [False, True]
    broken = [t for i in subs["broken"]["instances"] for t in i["trials"]]
    assert [t["reason"] for t in broken] == [reason, reason] and subs["broken"]["score"] == 0
    report = (pytester.path / "run" / "report.html").read_text()
    assert report.count("<svg") >= 2
