"""A path-valued option never moves pytest's rootdir (pytest-dev/pytest#8846): pytest picks the rootdir before a
plugin's options are known, so in ``--pcg-store PATH`` it took an existing ``PATH`` for a test path, and the
rootdir, the node ids and the default run folder ``<rootdir>/pcg-runs/`` moved to the common folder of the two
(``core.contract.options.settle_rootdir`` makes the choice again once every option is known). Real ``python -m
pytest`` processes, both forms of each option, the path existing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_support import program, write_competition

PRICES = Path(__file__).resolve().parents[2] / "pcg_plugin" / "_util" / "prices.json"


def _elsewhere(tmp_path: Path, option: str) -> Path:
    """An existing path, outside the competition folder, for ``option``."""
    other = tmp_path / "elsewhere"
    other.mkdir(exist_ok=True)
    if option == "--pcg-prices":
        path = other / "prices.json"
        path.write_text(PRICES.read_text(encoding="utf-8"), encoding="utf-8")
        return path
    path = other / option.removeprefix("--pcg-")
    path.mkdir()
    return path


def _collect(
    work: Path, *extra: str, letters: tuple[str, ...] = ("--pcg-letters", "A")
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.pop("PYTEST_XDIST_WORKER", None)
    cmd = [sys.executable, "-m", "pytest", "--co", "submissions", *letters, "--pcg-trials", "1"]
    cmd += ["--pcg-backend", "openai-compatible", "--pcg-base-url", "http://127.0.0.1:9/v1", "--pcg-model", "m"]
    cmd += ["-p", "no:cacheprovider", "-p", "no:randomly", *extra]
    return subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize(
    ("option", "form"),
    [("--pcg-store", "space"), ("--pcg-store", "equals"), ("--pcg-out", "space"), ("--pcg-prices", "space")],
)
def test_a_path_option_keeps_the_rootdir_whatever_its_form(tmp_path: Path, option: str, form: str) -> None:
    work = tmp_path / "competition"
    work.mkdir()
    write_competition(work, {"team": {"entry.py": program()}})
    path = _elsewhere(tmp_path, option)
    given = [option, str(path)] if form == "space" else [f"{option}={path}"]
    result = _collect(work, *given)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert f"rootdir: {work}\n" in out, out[-3000:]
    assert "\n<Dir competition>\n" in out, out[-3000:]  # the tree (node ids) from the competition, not its parent


def test_the_competitions_ini_file_is_read_not_the_one_above_both(tmp_path: Path) -> None:
    """An ini file in the folder above the competition and the path (``tmp_path``) was read when the path moved
    the rootdir there; the competition's own is read, with its addopts instead of the other's."""
    work = tmp_path / "competition"
    work.mkdir()
    write_competition(work, {"team": {"entry.py": program()}})
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --pcg-letters C\n", encoding="utf-8")
    (work / "pytest.ini").write_text("[pytest]\naddopts = --pcg-letters B\n", encoding="utf-8")
    store = _elsewhere(tmp_path, "--pcg-store")
    result = _collect(work, "--pcg-store", str(store), "-q", letters=())
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert [line for line in result.stdout.splitlines() if "::" in line] == ["submissions/team::B::1"], out[-3000:]
