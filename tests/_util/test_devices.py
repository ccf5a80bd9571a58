"""Device policy shared by the classifier and the LLM: threads never oversubscribe, ``auto`` follows one order."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin._util import devices
from pcg_plugin.llm import transformers_backend


@given(workers=st.integers(1, 512), cores=st.integers(1, 256))
def test_threads_never_oversubscribe(workers: int, cores: int) -> None:
    threads = devices.threads_per_worker(workers, cores)
    assert threads >= 1
    if workers <= cores:
        assert workers * threads <= cores
        assert workers * (threads + 1) > cores  # and no core is left idle for nothing


def _fake_torch(monkeypatch: pytest.MonkeyPatch, *, cuda: bool, mps: bool) -> None:
    backends = types.SimpleNamespace(mps=types.SimpleNamespace(is_available=lambda: mps))
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: cuda), backends=backends)
    monkeypatch.setitem(sys.modules, "torch", fake)


@pytest.mark.parametrize(
    ("cuda", "mps", "classifier", "llm"),
    [
        (True, True, "cuda", "cuda"),
        (False, True, "mps", "cpu"),
        (False, False, "cpu", "cpu"),
    ],
)
def test_auto_is_cuda_then_mps_then_cpu_and_the_llm_skips_mps(
    monkeypatch: pytest.MonkeyPatch, cuda: bool, mps: bool, classifier: str, llm: str
) -> None:
    _fake_torch(monkeypatch, cuda=cuda, mps=mps)
    assert devices.resolve_device("auto") == classifier
    assert transformers_backend.resolve_device("auto") == llm
    assert transformers_backend.resolve_device("") == transformers_backend.resolve_device(None) == llm  # type: ignore[arg-type]
    assert devices.resolve_device("cuda:1") == transformers_backend.resolve_device("cuda:1") == "cuda:1"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="zombies are told apart through /proc")
def test_pid_alive_counts_a_zombie_as_gone() -> None:
    assert devices.pid_alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while devices.pid_alive(child.pid) and time.monotonic() < deadline:  # exits, then lingers as a zombie
        time.sleep(0.01)
    assert not devices.pid_alive(child.pid)
    assert child.poll() == 0


def test_pid_alive_is_still_importable_from_devices() -> None:
    """Its users import it from here (the LLM store and limiter, the classifier service): a lint fix that dropped
    the re-export as an unused import made ``pcg_plugin.llm.store`` fail to import."""
    import importlib

    from pcg_plugin._util import trial_dirs

    assert devices.pid_alive is trial_dirs.pid_alive
    for module in ("pcg_plugin.llm.store", "pcg_plugin.llm.ratelimit"):
        importlib.import_module(module)
