"""Classification service: mode policy, in-process loading, and the real service process end to end."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from pcg_plugin._util.devices import pid_alive
from pcg_plugin.errors import InfrastructureError
from pcg_plugin.problems.science_birds import classify
from pcg_plugin.problems.science_birds.classify import service as cs
from pcg_plugin.problems.science_birds.classify.local import load_classifier
from pcg_plugin.problems.science_birds.classify.wire import preresize_plan

TESTS_DIR = str(Path(__file__).resolve().parent)
# Module fixtures start real services (a few seconds each): the module runs on one worker, each fixture once.
pytestmark = pytest.mark.xdist_group("classify_service")


# ------------------------------------------------------------------------------------ tiny model helpers


@dataclass(frozen=True)
class _Classification:
    probs: tuple[float, ...]
    embedding: tuple[float, ...]


class _StandIn:
    """A loader plugged in by name (``test_classify_service:_StandIn.load``): same load/classify/digest/name."""

    def __init__(self, model: Any, processor: Any, name: str) -> None:
        self.model, self.processor, self.name, self.digest = model, processor, name, "standin-" + name

    @classmethod
    def load(cls, model: str | None = None, *, device: str = "auto", threads: int | None = None) -> _StandIn:
        import torch
        from transformers import ViTForImageClassification, ViTImageProcessor

        if threads:
            torch.set_num_threads(threads)
        assert model is not None
        m = ViTForImageClassification.from_pretrained(model).eval()
        return cls(m, ViTImageProcessor.from_pretrained(model), Path(model).name)

    def classify(self, images: Any) -> list[_Classification]:
        import torch

        inputs = self.processor([im.convert("RGB") for im in images], return_tensors="pt")
        with torch.inference_mode():
            out = self.model(**inputs, output_hidden_states=True)
        probs = out.logits.float().softmax(-1)
        emb = out.hidden_states[-1][:, 0, :].float()
        return [_Classification(tuple(p.tolist()), tuple(e.tolist())) for p, e in zip(probs, emb, strict=True)]


class _Chatty(_StandIn):
    """Prints a lot on stdout while loading and classifying, as some libraries do."""

    @classmethod
    def load(cls, model: str | None = None, *, device: str = "auto", threads: int | None = None) -> _StandIn:
        print("loading...\n" * 20000)
        inner = _StandIn.load(model, device=device, threads=threads)
        return cls(inner.model, inner.processor, inner.name)

    def classify(self, images: Any) -> list[_Classification]:
        print("x" * 200_000)  # more than a pipe holds: must not block the service
        return super().classify(images)


def _save_tiny_vit(path: Path) -> Path:
    import torch
    from transformers import ViTConfig, ViTForImageClassification, ViTImageProcessor

    torch.manual_seed(0)
    cfg = ViTConfig(
        image_size=32,
        patch_size=8,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=26,
        id2label={i: chr(65 + i) for i in range(26)},
        label2id={chr(65 + i): i for i in range(26)},
    )
    ViTForImageClassification(cfg).save_pretrained(path)
    ViTImageProcessor(size={"height": 32, "width": 32}).save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_tiny_vit(tmp_path_factory.mktemp("tiny-vit"))


def _letter_image(letter: str, size: int = 48, shift: int = 0) -> Image.Image:
    im = Image.new("RGB", (size, size), "white")
    d = ImageDraw.Draw(im)
    d.text((8 + shift, 8), letter, fill="black")
    d.rectangle((4 + shift, 30, 20 + shift + (ord(letter) % 7) * 3, 40), fill="black")
    return im


def _level_image(seed: int) -> Image.Image:
    """Like a rendered level: 1024x1024 RGBA, white, black blocks, binary."""
    im = Image.new("RGBA", (1024, 1024), (255, 255, 255, 255))
    d = ImageDraw.Draw(im)
    for k in range(12):
        x, y = 100 + (k * 61 + seed * 37) % 700, 100 + (k * 89 + seed * 11) % 700
        d.rectangle((x, y, x + 72, y + 24 + 48 * (k % 2)), fill=(0, 0, 0, 255))
    return im


IMAGES = [_letter_image(c, shift=i % 5) for i, c in enumerate("ABCDEFGH")] + [_level_image(1), _level_image(2)]


def _wait_gone(pid: int, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return False


def _assert_close(a: list[Any], b: list[Any], tol: float) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert len(x.probs) == len(y.probs) == 26
        assert max(abs(p - q) for p, q in zip(x.probs, y.probs, strict=True)) <= tol
        assert max(abs(p - q) for p, q in zip(x.embedding, y.embedding, strict=True)) <= tol * 10


# --------------------------------------------------------------------------------------------- policy


def test_mode_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    assert classify.resolve_mode("local", "cuda") == "local"
    assert classify.resolve_mode("service", "cpu") == "service"
    assert classify.resolve_mode("auto", "cpu") == "local"
    assert classify.resolve_mode("auto", "cuda") == "service"
    monkeypatch.setattr(classify, "resolve_device", lambda d: "cpu")
    assert classify.resolve_mode("auto", "auto") == "local"
    with pytest.raises(ValueError, match="auto, service or local"):
        classify.resolve_mode("gpu", "cpu")  # type: ignore[arg-type]


# ------------------------------------------------------------------------ the real service process


@pytest.fixture(scope="module")
def service(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    run_dir = tmp_path_factory.mktemp("run")
    handle = cs.start_service(model=tiny_model, device="cpu", run_dir=run_dir, max_wait_ms=20, export_env=False)
    yield handle
    handle.stop()
    assert _wait_gone(handle.info.pid), "service outlived stop()"


def _in_process(tiny_model: Path, dtype: str = "fp32") -> Any:
    return load_classifier(tiny_model, device="cpu", threads=None, dtype=dtype)  # type: ignore[arg-type]


def test_service_matches_in_process_classification(service: Any, tiny_model: Path) -> None:
    client = cs.connect(service.info.to_dict())
    got = client.classify(IMAGES)
    _assert_close(got, _in_process(tiny_model).classify(IMAGES), tol=1e-5)
    assert client.digest == service.info.digest and client.stats()["images"] >= len(IMAGES)
    assert service.info.resize == (32, 32, 2)  # the probe accepted shrinking in the workers
    assert (Path(service.run_dir) / cs.INFO_FILE).stat().st_mode & 0o077 == 0  # authkey not world-readable


def test_concurrent_workers_are_batched_together(service: Any, tiny_model: Path) -> None:
    expected = _in_process(tiny_model).classify(IMAGES)
    before = cs.connect(service.info).stats()
    results: dict[int, Any] = {}

    def worker(i: int) -> None:
        results[i] = cs.connect(service.info).classify([IMAGES[i]])

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(IMAGES))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for i in range(len(IMAGES)):
        _assert_close(results[i], [expected[i]], tol=1e-5)
    after = cs.connect(service.info).stats()
    assert after["images"] - before["images"] == len(IMAGES)
    assert after["batches"] - before["batches"] < len(IMAGES)


CRASHING_CLIENT = """
import os, sys
from multiprocessing.connection import Client
from PIL import Image
from pcg_plugin.problems.science_birds.classify.wire import ServiceInfo, to_wire
info = ServiceInfo.from_env(sys.argv[1])
conn = Client(info.address, family="AF_UNIX", authkey=bytes.fromhex(info.authkey))
conn.send(("classify", [to_wire(Image.new("RGB", (40, 40), "white"))] * 64))
os._exit(3)  # die with the request in flight, never reading the answer
"""


def test_a_crashed_worker_does_not_hang_the_service(service: Any) -> None:
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-c", CRASHING_CLIENT, service.info.to_env()], timeout=60)
        assert proc.returncode == 3
    result: list[Any] = []
    t = threading.Thread(target=lambda: result.append(cs.connect(service.info).classify(IMAGES[:2])), daemon=True)
    t.start()
    t.join(30)
    assert len(result) == 1 and len(result[0]) == 2, "service hung after a client crashed mid-request"
    assert service.alive()


def test_bad_image_from_one_worker_reports_and_service_survives(service: Any) -> None:
    client = cs.connect(service.info)
    with pytest.raises(InfrastructureError, match="could not decode"):
        client._request(("classify", [("png", b"garbage")]))
    assert len(client.classify(IMAGES[:1])) == 1


PARENT_THAT_DIES = """
import sys, time
from pathlib import Path
from pcg_plugin.problems.science_birds.classify import service as cs
h = cs.start_service(model=sys.argv[1], device="cpu", run_dir=Path(sys.argv[2]))
print(h.info.pid, flush=True)
time.sleep(600)
"""


def test_service_exits_when_its_owner_is_killed(tiny_model: Path, tmp_path: Path) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", PARENT_THAT_DIES, str(tiny_model), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        pid = int(owner.stdout.readline())  # type: ignore[union-attr]
        assert pid_alive(pid)
    finally:
        owner.send_signal(signal.SIGKILL)  # no atexit, no stop(): only the pipe EOF can tell the service
        owner.wait()
    assert _wait_gone(pid), "orphaned classification service survived its owner"


@pytest.mark.slow  # a service of its own with a loader that writes to stdout (the test loop)
def test_chatty_loader_cannot_corrupt_or_block_the_service(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [TESTS_DIR, os.environ.get("PYTHONPATH")])))
    with cs.start_service(
        model=tiny_model, device="cpu", loader="test_classify_service:_Chatty.load", run_dir=tmp_path, export_env=False
    ) as handle:
        for _ in range(3):
            assert len(cs.connect(handle.info).classify(IMAGES[:2])) == 2
    assert "loading..." in (tmp_path / "classify-service.log").read_text()


def test_start_failure_is_a_clear_infrastructure_error(tmp_path: Path) -> None:
    with pytest.raises(InfrastructureError, match="failed to start"):
        cs.start_service(model=tmp_path / "no-such-model", device="cpu", run_dir=tmp_path)


def test_preresize_probe_rejects_a_plan_that_changes_results(tiny_model: Path) -> None:
    clf = _in_process(tiny_model)
    assert preresize_plan(clf, "cpu") == (32, 32, 2)

    class Lying:  # claims nearest-neighbour resizing; the real processor is bilinear
        processor = type("P", (), {"size": {"width": 32, "height": 32}, "resample": 0, "do_resize": True})()
        digest = name = "lying"
        classify = staticmethod(clf.classify)

    assert preresize_plan(Lying(), "cpu") is None  # type: ignore[arg-type]
    assert preresize_plan(type("NoProcessor", (), {"classify": clf.classify})(), "cpu") is None  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- the factory, end to end


def test_factory_local_and_service_agree_and_cache_hits(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(cs.ENV_VAR, raising=False)
    common = dict(model=tiny_model, device="cpu", workers=1, cache_dir=tmp_path / "cache")
    local = classify.classifier_for_run(mode="local", run_dir=tmp_path / "a", cache=False, **common)  # type: ignore[arg-type]
    lazy = classify.classifier_for_run(mode="service", run_dir=tmp_path / "b", **common)  # type: ignore[arg-type]
    try:
        owned = cs._OWNED[-1]
        _assert_close(lazy.classify(IMAGES), local.classify(IMAGES), tol=1e-5)
        served = lazy.inner.stats()["images"]  # type: ignore[attr-defined]
        again = lazy.classify(IMAGES[::-1])
        _assert_close(again, local.classify(IMAGES[::-1]), tol=1e-5)
        assert lazy.inner.stats()["images"] == served, "cache hits went to the model"  # type: ignore[attr-defined]
        # a second process-like caller in the same run folder finds the same service instead of starting one
        other = classify.classifier_for_run(mode="service", run_dir=tmp_path / "b", cache=False, **common)  # type: ignore[arg-type]
        assert other.info.pid == owned.info.pid  # type: ignore[attr-defined]
    finally:
        cs._OWNED[-1].stop()
    assert _wait_gone(owned.info.pid)


@pytest.mark.slow  # two services started and one killed (the test loop)
def test_a_lazily_started_service_that_dies_is_restarted(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(cs.ENV_VAR, raising=False)
    client = classify.classifier_for_run(
        model=tiny_model, device="cpu", mode="service", workers=1, run_dir=tmp_path, cache=False
    )  # type: ignore[arg-type]
    first = client.info.pid  # type: ignore[attr-defined]
    try:
        os.kill(first, signal.SIGKILL)
        assert _wait_gone(first)
        assert len(client.classify(IMAGES[:2])) == 2
        assert client.info.pid != first  # type: ignore[attr-defined]
    finally:
        for handle in cs._OWNED:
            handle.stop()
    assert _wait_gone(client.info.pid)  # type: ignore[attr-defined]


def test_bf16_stays_within_tolerance_of_fp32(tiny_model: Path) -> None:
    """Stated tolerance: every bf16 probability within 0.02 (absolute) of fp32; the argmax letter agrees
    whenever fp32's top two are more than 0.04 apart."""
    fp32 = _in_process(tiny_model).classify(IMAGES)
    bf16 = _in_process(tiny_model, "bf16").classify(IMAGES)
    for a, b in zip(fp32, bf16, strict=True):
        assert max(abs(p - q) for p, q in zip(a.probs, b.probs, strict=True)) <= 0.02
        top = sorted(a.probs, reverse=True)
        if top[0] - top[1] > 0.04:
            assert a.probs.index(top[0]) == b.probs.index(max(b.probs))
    assert any(a.probs != b.probs for a, b in zip(fp32, bf16, strict=True)), (
        "bf16 run was not actually reduced precision"
    )


XDIST_SUITE = """
import os
from pathlib import Path
import pytest
from PIL import Image
from pcg_plugin.problems.science_birds import classify

RUN, MODEL = Path(os.environ["T_RUN"]), os.environ["T_MODEL"]
_CLF = []


@pytest.mark.parametrize("i", range(12))
def test_item(i):
    if not _CLF:
        _CLF.append(classify.classifier_for_run(model=MODEL, device="cpu", mode="service", workers=2, run_dir=RUN,
                                                cache=False))
    clf = _CLF[0]
    assert len(clf.classify([Image.new("RGB", (40 + i, 40), "white")])[0].probs) == 26
    (RUN / f"pid-{i}-{os.getpid()}").write_text(str(clf.info.pid))
    if i == 4:
        os._exit(1)  # a worker dies (it may be the one that owns the service)
"""


def test_xdist_run_with_a_worker_crash_finishes_and_leaves_no_service(tiny_model: Path, tmp_path: Path) -> None:
    suite, run = tmp_path / "suite", tmp_path / "run"
    suite.mkdir()
    run.mkdir()
    (suite / "test_suite.py").write_text(XDIST_SUITE)
    env = {k: v for k, v in os.environ.items() if k != cs.ENV_VAR and not k.startswith("PYTEST_")}
    env.update(T_RUN=str(run), T_MODEL=str(tiny_model))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-n",
            "2",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:pcg",
            "-p",
            "no:pcg_rules",
            str(suite / "test_suite.py"),
            "--rootdir",
            str(suite),
        ],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    tail = proc.stdout[-2000:]
    assert "1 failed" in tail and "11 passed" in tail, tail  # only the crashed item fails; nobody hangs
    pids = {int(p.read_text()) for p in run.glob("pid-*")}
    assert 1 <= len(pids) <= 2  # one service; a second only if its owner was the worker that died
    for pid in pids:
        assert _wait_gone(pid), f"classification service {pid} outlived the pytest run"


@pytest.fixture(scope="module")
def tcp_service(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One service listening on TCP (``listen="tcp:HOST"``) for the tests of its network side."""
    with cs.start_service(
        model=tiny_model, device="cpu", run_dir=tmp_path_factory.mktemp("tcp"), export_env=False, listen="tcp:127.0.0.1"
    ) as handle:
        yield handle


def test_a_tcp_service_serves_a_client_that_only_has_its_address(tcp_service: Any, tiny_model: Path) -> None:
    """``listen="tcp:HOST"`` (a cluster's GPU node serving its CPU-only nodes): the address names host and port,
    a client with the service's info alone classifies as in-process, pre-resized; a wrong authkey is refused."""
    handle = tcp_service
    assert handle.info.address.startswith("tcp:127.0.0.1:")
    client = cs.connect(handle.info.to_dict())
    _assert_close(client.classify(IMAGES), _in_process(tiny_model).classify(IMAGES), tol=1e-5)
    assert handle.info.resize is not None  # the client shrinks images before they travel
    forged = dict(handle.info.to_dict(), authkey="00" * 32)
    with pytest.raises(Exception, match=r"digest|auth|Authentication"):
        cs.connect(forged).classify(IMAGES[:1])
    with pytest.raises(ValueError, match="expected tcp:HOST"):
        cs.start_service(model=tiny_model, device="cpu", listen="127.0.0.1")


class _Planted:
    """Unpickled, it writes a file: the proof that the service unpickled what a client without the key sent."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (Path.write_text, (Path(self.path), "unpickled"))  # type: ignore[return-value]


def _tcp_address(info: Any) -> tuple[str, int]:
    host, port = info.address.removeprefix("tcp:").rsplit(":", 1)
    return host, int(port)


def test_a_tcp_service_unpickles_nothing_from_a_client_without_the_key(tcp_service: Any, tmp_path: Path) -> None:
    """A client that skips the handshake and sends a pickle at once (framed as ``multiprocessing.connection``
    frames it): the service takes it as a wrong answer to its challenge and closes, the pickle never loaded
    (the file its unpickling would write does not exist); the service still serves a client with the key."""
    import pickle
    import socket
    import struct

    planted = tmp_path / "planted"
    payload = pickle.dumps(("classify", _Planted(str(planted))))
    handle = tcp_service
    for _ in range(2):  # before and instead of answering the challenge
        with socket.create_connection(_tcp_address(handle.info), timeout=10) as raw:
            raw.sendall(struct.pack("!i", len(payload)) + payload)
            raw.settimeout(10)
            with contextlib.suppress(OSError):
                while raw.recv(4096):
                    pass  # the challenge, then the close
    time.sleep(0.5)
    assert not planted.exists()
    client = cs.connect(handle.info.to_dict())
    assert len(client.classify(IMAGES[:2])) == 2


def test_a_client_that_never_answers_holds_up_no_other_client(tcp_service: Any) -> None:
    """A connection that stays silent after connecting (a port scanner, a stalled host) does not stop the next
    client from being admitted and served; it is dropped after the handshake's time limit."""
    import socket

    handle = tcp_service
    silent = socket.create_connection(_tcp_address(handle.info), timeout=30)
    try:
        served: list[int] = []
        worker = threading.Thread(
            target=lambda: served.append(len(cs.connect(handle.info.to_dict()).classify(IMAGES[:2]))), daemon=True
        )
        worker.start()
        worker.join(8)  # under the handshake's 10 s: served while the silent one still waits
        assert served == [2], "a silent client held up the next one"
    finally:
        silent.close()
