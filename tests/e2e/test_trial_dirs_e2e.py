"""A run killed with kill -9 mid-trial leaves its trial folder behind; the next run removes it, and leaves the
folder of a run that is still going (pcg_plugin/_util/trial_dirs.py)."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from e2e_support import program, run_args

SLOW = "import time\n        time.sleep(120)\n        return \"```\\ndrop_block('b11', 5)\\n```\""


def test_a_killed_runs_trial_folder_is_removed_by_the_next_run_and_a_live_ones_is_kept(
    competition: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    slow = competition.path / "slow_submissions" / "sleeper"
    slow.mkdir(parents=True)
    (slow / "entry.py").write_text(program(SLOW))
    argv = [sys.executable, "-m", "pytest", *run_args("killed", "--pcg-letters", "A", "--pcg-trials", "1")]
    argv[3] = "slow_submissions"  # run_args starts with the folder: this run evaluates only the sleeper
    run = subprocess.Popen(
        argv, cwd=competition.path, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while not list(tmp.glob("pcg-trial-*/submission")) and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    left = list(tmp.glob("pcg-trial-*"))
    assert len(left) == 1, "the killed run's trial folder should be left behind"
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        host = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]  # the owner's name: host and pid
        other_run = tmp / f"pcg-trial-{host}.{live.pid}-running"
        other_run.mkdir()
        result = competition.runpytest_subprocess(
            *run_args("next", "--pcg-letters", "A", "--pcg-trials", "1"), timeout=300
        )
        assert result.ret == 0, result.stdout.str()[-2000:]
        result.stdout.fnmatch_lines([f"pcg: removed 1 trial folder(s) in {tmp} left by runs that ended without*"])
        assert not left[0].exists() and other_run.is_dir()
    finally:
        live.kill()
        live.wait()
