"""The tests' reference data: facts committed under tests/data as their SOURCE.md lists them; others' text read
from ../shared, a named skip without it and a failure where CI requires it (tests/conftest.py)."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
ROW = re.compile(r"^\| `([^`]+)` \| (\d+) \| `([0-9a-f]{16})` \|", re.M)


@pytest.mark.parametrize("folder", ["official-golden", "official-2023-results"])
def test_committed_files_are_the_ones_their_source_lists(folder: str) -> None:
    """Every file of the folder is in its SOURCE.md table with its size and sha256, and nothing else is there."""
    rows = ROW.findall((DATA / folder / "SOURCE.md").read_text(encoding="utf-8"))
    files = sorted(p.name for p in (DATA / folder).iterdir() if p.name != "SOURCE.md")
    assert sorted(name for name, _, _ in rows) == files
    for name, size, digest in rows:
        data = (DATA / folder / name).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()[:16]) == (int(size), digest), name


def test_calibration_set_is_complete() -> None:
    """60 Unity-scored levels, each with its image and a stability entry (the SOURCE.md's description)."""
    import json

    root = DATA / "unity-2023-calibration"
    levels = sorted(root.glob("*/levels/*/*.xml"))
    images = {p.stem.lower() for p in root.glob("*/images/*/*.png")}
    tags = {
        raw["tag"].replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".xml").lower()
        for f in root.glob("*/stability/*.json")
        for raw in json.loads(f.read_text())["raws"]
    }
    assert len(levels) == 60 and {p.stem.lower() for p in levels} == images == tags


def test_ci_requires_the_shared_folder() -> None:
    ci = (TESTS.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r'^export PCG_REQUIRE_SHARED="\$\{PCG_REQUIRE_SHARED:-1\}"$', ci, re.M)


@pytest.mark.parametrize("require", ["", "1"])
def test_without_shared_a_test_skips_naming_the_folder_or_fails_when_required(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, require: str
) -> None:
    shutil.copy(TESTS / "conftest.py", pytester.path / "conftest.py")
    pytester.makepyfile(test_needs="def test_prompts(prompts_2023):\n    assert prompts_2023.is_dir()\n")
    monkeypatch.setenv("PCG_SHARED", str(pytester.path / "no-shared"))
    monkeypatch.setenv("PCG_REQUIRE_SHARED", require)
    result = pytester.runpytest_subprocess("-rs", "-p", "no:cacheprovider", "-p", "no:pcg", "-p", "no:pcg_rules")
    folder = f"{pytester.path / 'no-shared'}/data/official-2023-results/prompts"
    if require:
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines([f"*PCG_REQUIRE_SHARED=1: needs {folder} (*prompts.zip*052da69*"])
    else:
        result.assert_outcomes(skipped=1)
        result.stdout.fnmatch_lines([f"SKIPPED*needs {folder} (*prompts.zip*052da69*PCG_SHARED*"])
