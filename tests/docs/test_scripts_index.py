"""``scripts/README.md`` is the index of the developer scripts: every script has its line in its group's table,
and every line names a script that exists (a script moved or added without its line fails here)."""

from __future__ import annotations

import re
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
GROUPS = ("bench", "figures", "data", "checks")


def test_every_script_has_its_line_and_every_line_a_script() -> None:
    on_disk = {p.relative_to(SCRIPTS).as_posix() for p in SCRIPTS.glob("*/*") if p.suffix in {".py", ".mjs"}}
    listed = set(re.findall(r"\]\(([a-z]+/[\w.]+)\)", (SCRIPTS / "README.md").read_text(encoding="utf-8")))
    assert on_disk == listed, {"without a line": sorted(on_disk - listed), "no such script": sorted(listed - on_disk)}


def test_scripts_live_in_their_groups_only() -> None:
    assert sorted(p.name for p in SCRIPTS.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(GROUPS)
    assert [p.name for p in SCRIPTS.iterdir() if p.is_file()] == ["README.md"]
