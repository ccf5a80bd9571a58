"""Classification server: dynamic batching and failure isolation, in-process (no model)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from PIL import Image

from pcg_plugin.problems.science_birds.classify import server as srv
from pcg_plugin.problems.science_birds.classify.wire import to_wire


@dataclass(frozen=True)
class _Classification:
    probs: tuple[float, ...]
    embedding: tuple[float, ...]


# ---------------------------------------------------------------------------- batching (no subprocess)


class _Recorder:
    """Fake classifier: records batch sizes; probs[0] carries the image width so answers can be matched."""

    digest, name = "fake", "fake"

    def __init__(self, delay: float = 0.0, fail_on_width: int | None = None) -> None:
        self.batches: list[int] = []
        self.delay, self.fail_on_width = delay, fail_on_width

    def classify(self, images: Any) -> list[_Classification]:
        if self.fail_on_width is not None and any(im.size[0] == self.fail_on_width for im in images):
            raise ValueError("poisoned image")
        self.batches.append(len(images))
        time.sleep(self.delay)
        return [_Classification((float(im.size[0]),) + (0.0,) * 25, (1.0,)) for im in images]


def _run_clients(server: srv._Server, widths: list[int]) -> dict[int, tuple[str, Any]]:
    """One thread per simulated worker, all registered as connected before any request goes in."""
    server.stats.clients = len(widths)
    answers: dict[int, tuple[str, Any]] = {}
    barrier = threading.Barrier(len(widths))

    def worker(w: int) -> None:
        barrier.wait()
        msg = ("classify", [to_wire(Image.new("L", (w, 4)))])
        answers[w] = server._answer(msg)

    threads = [threading.Thread(target=worker, args=(w,)) for w in widths]
    for t in threads:
        t.start()
    loop = threading.Thread(target=server.loop, daemon=True)
    loop.start()
    for t in threads:
        t.join(10)
    server.stop.set()
    loop.join(5)
    return answers


def test_requests_from_many_workers_share_one_forward_pass() -> None:
    rec = _Recorder()
    server = srv._Server(rec, max_batch=64, max_wait_ms=2000)
    answers = _run_clients(server, list(range(10, 26)))
    assert all(answers[w] == ("ok", [((float(w),) + (0.0,) * 25, (1.0,))]) for w in range(10, 26))
    # everyone was waiting, so the batcher did not sit out its 2 s: far fewer passes than requests
    assert sum(rec.batches) == 16 and len(rec.batches) <= 4


def test_max_batch_caps_each_forward_pass() -> None:
    rec = _Recorder()
    server = srv._Server(rec, max_batch=3, max_wait_ms=50)
    server.pending.put(req := srv._Request([Image.new("L", (5, 5))] * 8))
    server.run_batch(server.next_batch())
    assert rec.batches == [3, 3, 2] and req.result is not None and len(req.result) == 8


def test_one_bad_request_does_not_fail_the_others() -> None:
    rec = _Recorder(fail_on_width=13)
    server = srv._Server(rec, max_batch=64, max_wait_ms=500)
    answers = _run_clients(server, [11, 12, 13, 14])
    assert answers[13][0] == "error" and "poisoned image" in answers[13][1]
    assert all(answers[w][0] == "ok" for w in (11, 12, 14))


def test_undecodable_image_is_an_error_answer_not_a_crash() -> None:
    server = srv._Server(_Recorder(), max_batch=4, max_wait_ms=1)
    status, message = server._answer(("classify", [("png", b"not a png")]))
    assert status == "error" and "could not decode" in message
    assert server._answer(("nonsense",))[0] == "error"
