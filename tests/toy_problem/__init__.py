"""The smallest complete problem: the core's own tests run it, so the harness is tested without Science Birds."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

TOY = str(Path(__file__).resolve().parent.parent)  # the folder holding the toy_problem package
SPELL = ["-p", "toy_problem.plugin", "--pcg-problem", "spell", "-p", "no:cacheprovider"]


def spell_contest(pytester: Any, monkeypatch: Any, teams: dict[str, dict[str, str]]) -> Any:
    """A pytester folder ``subs/<team>/spell.json`` per team (word -> answer), the toy problem importable here and
    in xdist workers."""
    monkeypatch.syspath_prepend(TOY)
    monkeypatch.setenv("PYTHONPATH", TOY, prepend=os.pathsep)
    for name, answers in teams.items():
        (pytester.path / "subs" / name).mkdir(parents=True)
        (pytester.path / "subs" / name / "spell.json").write_text(json.dumps(answers))
    return pytester
