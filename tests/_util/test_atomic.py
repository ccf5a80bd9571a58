"""atomic_write / atomic_save: exact content, parent created, and a failing write leaves no trace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pcg_plugin._util import atomic
from pcg_plugin._util.atomic import atomic_save, atomic_write

_ANY_DIR = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=200)  # lone surrogates cannot be UTF-8


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".tmp-"))


@_ANY_DIR
@given(data=st.binary(max_size=300))
def test_bytes_round_trip(tmp_path: Path, data: bytes) -> None:
    path = atomic_write(tmp_path / "sub" / "deeper" / "f.bin", data)
    assert path == tmp_path / "sub" / "deeper" / "f.bin" and path.read_bytes() == data
    assert _leftovers(path.parent) == []


@_ANY_DIR
@given(text=_TEXT)
def test_text_with_newline_empty_is_byte_exact(tmp_path: Path, text: str) -> None:
    path = atomic_write(tmp_path / "f.txt", text, newline="")
    assert path.read_bytes() == text.encode("utf-8")


@_ANY_DIR
@given(text=_TEXT)
def test_text_default_matches_path_write_text(tmp_path: Path, text: str) -> None:
    """The writers it replaced used ``Path.write_text(text, encoding="utf-8")``: same bytes on every platform."""
    reference = tmp_path / "reference.txt"
    reference.write_text(text, encoding="utf-8")
    assert atomic_write(tmp_path / "f.txt", text).read_bytes() == reference.read_bytes()


def test_encoding_is_honoured(tmp_path: Path) -> None:
    assert atomic_write(tmp_path / "f.txt", "é\n", encoding="latin-1").read_bytes() == b"\xe9\n"


def test_replaces_an_existing_file_with_the_usual_mode(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text("old", encoding="utf-8")
    atomic_write(path, "new")
    umask = os.umask(0)
    os.umask(umask)
    assert path.read_text(encoding="utf-8") == "new" and path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_failing_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        atomic_write(
            path, "half written, then \N{SNOWMAN}", encoding="ascii", errors="strict"
        )  # the default writes it escaped
    assert path.read_text(encoding="utf-8") == "old" and _leftovers(tmp_path) == []


def test_a_failing_replace_leaves_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f.txt"
    path.write_text("old", encoding="utf-8")

    def refuse(src: object, dst: object) -> None:
        raise PermissionError("no")

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(PermissionError):
        atomic_write(path, "new")
    assert path.read_text(encoding="utf-8") == "old" and _leftovers(tmp_path) == []


def test_save_callback_failure_removes_a_half_written_file_or_folder(tmp_path: Path) -> None:
    def half_file(tmp: Path) -> None:
        tmp.write_bytes(b"half")
        raise OSError("disk full")

    def half_folder(tmp: Path) -> None:
        (tmp / "inner").mkdir(parents=True)
        (tmp / "inner" / "weights").write_bytes(b"half")
        raise KeyboardInterrupt

    with pytest.raises(OSError, match="disk full"):
        atomic_save(tmp_path / "img.png", half_file)
    with pytest.raises(KeyboardInterrupt):
        atomic_save(tmp_path / "model", half_folder)
    assert list(tmp_path.iterdir()) == []


def test_save_callback_writes_a_folder(tmp_path: Path) -> None:
    target = atomic_save(
        tmp_path / "cache" / "model", lambda tmp: (tmp.mkdir(), (tmp / "config.json").write_text("{}"))
    )
    assert (target / "config.json").read_text() == "{}" and _leftovers(target.parent) == []


def test_a_private_mode_holds_from_the_start(tmp_path: Path) -> None:
    path = atomic_write(tmp_path / "service.env", "SECRET=1\n", mode=0o600)
    assert path.stat().st_mode & 0o777 == 0o600 and path.read_text() == "SECRET=1\n"


def _hold(lock: Path, log: Path, tag: str, seconds: float) -> None:
    import time

    with atomic.locked(lock):
        with open(log, "a") as fh:
            fh.write(f"{tag} in\n")
        time.sleep(seconds)
        with open(log, "a") as fh:
            fh.write(f"{tag} out\n")


def test_locked_lets_one_process_in_at_a_time(tmp_path: Path) -> None:
    """Two processes making the same thing (a converted model, an environment) take turns."""
    import multiprocessing as mp
    import time

    pytest.importorskip("fcntl")
    ctx = mp.get_context("fork")
    lock, log = tmp_path / "sub" / "thing.lock", tmp_path / "log"
    first = ctx.Process(target=_hold, args=(lock, log, "a", 0.5))
    first.start()
    while not log.exists():
        time.sleep(0.01)
    second = ctx.Process(target=_hold, args=(lock, log, "b", 0.0))
    second.start()
    first.join(), second.join()
    assert log.read_text().splitlines() == ["a in", "a out", "b in", "b out"]
