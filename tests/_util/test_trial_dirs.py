"""Trial folders are named for their owner; a run removes those whose owner is gone, never a live one's
(pcg_plugin/_util/trial_dirs.py). The kill -9 case end to end is tests/e2e/test_trial_dirs_e2e.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pcg_plugin._util import trial_dirs
from pcg_plugin._util.trial_dirs import clean_stale, owned_temp_dir


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_the_folders_of_processes_that_are_gone_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with owned_temp_dir("trial") as mine:  # this process's, in use
        assert Path(mine).name.startswith(f"pcg-trial-{trial_dirs._host()}.{os.getpid()}-")
        live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            host, dead = trial_dirs._host(), _dead_pid()
            folders = {
                name: tmp_path / name
                for name in (
                    f"pcg-trial-{host}.{dead}-abc123",
                    f"pcg-grid-trial-{host}.{dead}-x_y",
                    f"pcg-gameeval-{host}.{dead}-q",
                    f"pcg-trial-{host}.{live.pid}-live1",  # another run, alive: never touched
                    f"pcg-trial-000000.{dead}-otherhost",  # another host's (a shared /tmp): its pid means nothing here
                    "pcg-trial-abc123",
                    "pcg-mutation",
                    f"other-{host}.{dead}-x",  # not ours to judge
                )
            }
            for folder in folders.values():
                (folder / "submission").mkdir(parents=True)
                (folder / "submission" / "main.py").write_text("x = 1\n")
            removed = clean_stale()
            assert sorted(p.name for p in removed) == sorted(list(folders)[:3])
            assert sorted(p.name for p in tmp_path.iterdir()) == sorted([Path(mine).name, *list(folders)[3:]])
        finally:
            live.kill()
            live.wait()
    assert not Path(mine).exists()


def test_an_unknown_kind_is_a_bug() -> None:
    with pytest.raises(ValueError, match="unknown trial folder kind"):
        owned_temp_dir("mystery")
