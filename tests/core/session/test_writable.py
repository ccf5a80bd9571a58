"""The folders a run writes are checked before anything is paid (pcg_plugin/core/session/writable.py): a run folder, a
response store or a cache that cannot be written is a usage error naming the option and the path, in every
problem, and the model server hears nothing."""

from __future__ import annotations

import os
from pathlib import Path

import loopback_llm
import pytest

# one tiny submission and run of each problem, asking a loopback OpenAI-compatible server
PROBLEMS = {
    "science-birds": ({"prompt.txt": "Draw <OBJECT> with blocks."}, ("--pcg-letters", "A", "--pcg-trials", "1")),
    "pcgbench/binary-v0": (
        {"prompt.txt": "A level for <PROBLEM>."},
        ("--pcg-grid-instances", "1", "--pcg-trials", "1"),
    ),
    "imagegame": ({"imagegame.toml": "# self-play\n"}, ("--pcg-imagegame-instances", "compact_grids/0")),
    "gameeval/askguess-easy": (
        {"gameeval.toml": "# self-play\n"},
        ("--pcg-gameeval-targets", "apple", "--pcg-trials", "1"),
    ),
}


def test_a_file_or_a_path_through_a_file_is_named(tmp_path: Path) -> None:
    from pcg_plugin.core.session.writable import check_writable, why_not_writable

    (tmp_path / "afile").write_text("x")
    assert why_not_writable(tmp_path / "new" / "deeper") is None  # made on demand: its parent can be written
    assert why_not_writable(tmp_path / "afile") == "it is a file, not a folder"
    assert why_not_writable(tmp_path / "afile" / "store") == f"{tmp_path / 'afile'} is a file"
    assert check_writable([("--pcg-store", tmp_path / "afile"), ("--pcg-out", tmp_path / "ok")]) == [
        f"--pcg-store {tmp_path / 'afile'}: it is a file, not a folder"
    ]
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".pcg-probe")]  # the probe leaves nothing
    assert not (tmp_path / "new").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_a_folder_without_write_permission_is_named(tmp_path: Path) -> None:
    from pcg_plugin.core.session.writable import why_not_writable

    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    try:
        assert why_not_writable(locked / "store") == f"{locked} cannot be written (Permission denied)"
    finally:
        locked.chmod(0o755)


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_every_problem_refuses_a_folder_it_cannot_write_before_asking_the_model(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, problem: str
) -> None:
    files, targets = PROBLEMS[problem]
    for name, text in files.items():
        (pytester.path / "submissions" / "team" / name).parent.mkdir(parents=True, exist_ok=True)
        (pytester.path / "submissions" / "team" / name).write_text(text)
    (pytester.path / "afile").write_text("not a folder")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    cases = {
        "--pcg-out": (("--pcg-out", "afile", "--pcg-store", "store"), "--pcg-out", "afile"),
        "--pcg-store": (("--pcg-out", "out", "--pcg-store", "afile"), "--pcg-store", "afile"),
        "store under a file": (("--pcg-out", "out", "--pcg-store", "afile/store"), "--pcg-store", "afile/store"),
        "cache": (("--pcg-out", "out", "--pcg-store", "store"), "the cache (PCG_CACHE_DIR)", "afile/cache"),
    }
    with loopback_llm.serve(loopback_llm.FakeOpenAI()) as server:
        for case, (paths, option, shown) in cases.items():
            monkeypatch.setenv("PCG_CACHE_DIR", str(pytester.path / ("afile/cache" if case == "cache" else "cache")))
            result = pytester.runpytest(
                "submissions",
                "--pcg-problem",
                problem,
                "--pcg-backend",
                "openai",
                "--pcg-base-url",
                server.url,
                "--pcg-model",
                "m",
                "-p",
                "no:cacheprovider",
                *targets,
                *paths,
            )
            assert result.ret == pytest.ExitCode.USAGE_ERROR, (case, result.stdout.str()[-2000:])
            line = f"ERROR: {option} {pytester.path / shown}: "
            assert line in result.stderr.str() and "no model was called" in result.stderr.str(), case
        assert server.bodies == []  # nothing asked, so nothing paid
    assert not (pytester.path / "out").exists() and not (pytester.path / "store").exists()
