"""The wire format both sides of the classification service share: who the service is, how an image travels.

The service (``server``) and its clients (``service``) both import this module; it imports neither.
"""

from __future__ import annotations

import io
import json
from dataclasses import asdict, dataclass
from typing import Any

from pcg_plugin.problems.science_birds.classify.base import ClassifierLike

_RAW_MODES = {"1", "L", "LA", "RGB", "RGBA", "I", "F", "I;16"}  # modes whose tobytes() is the whole picture


@dataclass(frozen=True)
class ServiceInfo:
    """Everything a worker needs to reach the service; JSON-able for ``workerinput`` and the env var."""

    address: str
    authkey: str  # hex
    pid: int
    digest: str
    name: str
    dtype: str
    device: str
    resize: tuple[int, int, int] | None = None  # (w, h, resample): clients shrink images to this first

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServiceInfo:
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        if fields.get("resize") is not None:
            fields["resize"] = tuple(fields["resize"])
        return cls(**fields)

    def to_env(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_env(cls, text: str) -> ServiceInfo:
        return cls.from_dict(json.loads(text))


TCP = "tcp:"  # an address "tcp:HOST:PORT" is a TCP listener (another host's service); any other, a Unix socket


def client_address(address: str) -> tuple[Any, str]:
    """What ``multiprocessing.connection.Client`` takes for a service address: ``(host, port)`` and AF_INET for
    ``tcp:HOST:PORT``, else the Unix socket's name and AF_UNIX."""
    if address.startswith(TCP):
        host, _, port = address[len(TCP) :].rpartition(":")
        return (host, int(port)), "AF_INET"
    return address, "AF_UNIX"


_PRERESIZE_MODES = {"RGB", "RGBA", "L"}  # the modes the start-up probe checks


def to_wire(image: Any, resize: tuple[int, int, int] | None = None) -> tuple[Any, ...]:
    """Raw pixels when they are the whole picture (no encode/decode cost), PNG otherwise (palettes).

    With ``resize`` the worker does the processor's first step itself (RGB, then resize to the model's
    input size): a 1024x1024 RGBA level travels as 150 KB instead of 4 MB and the service's CPU is spared
    the 1024-pixel resize, which otherwise caps a GPU service far below the GPU's rate.
    """
    if resize is not None and image.mode in _PRERESIZE_MODES:
        w, h, resample = resize
        image = image.convert("RGB").resize((w, h), resample)
    if image.mode in _RAW_MODES:
        return ("raw", image.mode, tuple(image.size), image.tobytes())
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)
    return ("png", buf.getvalue())


def from_wire(item: Any) -> Any:
    from PIL import Image

    kind = item[0]
    if kind == "raw":
        _, mode, size, data = item
        return Image.frombytes(mode, tuple(size), data)
    if kind == "png":
        im = Image.open(io.BytesIO(item[1]))
        im.load()
        return im
    if kind == "path":
        im = Image.open(item[1])
        im.load()
        return im
    raise ValueError(f"unknown image encoding {kind!r}")


def _probe_images() -> list[Any]:
    """Level-like pictures: 1024x1024 RGBA black-on-white (as rendered), a small RGB one, a grey one."""
    from PIL import Image, ImageDraw

    big = Image.new("RGBA", (1024, 1024), (255, 255, 255, 255))
    draw = ImageDraw.Draw(big)
    for k in range(40):
        x, y = 100 + (k * 53) % 760, 100 + (k * 97) % 760
        draw.rectangle((x, y, x + 72 - (k % 3) * 24, y + 24 + (k % 2) * 48), fill=(0, 0, 0, 255))
    small = big.convert("RGB").resize((300, 180), 0)
    grey = big.convert("L").resize((160, 500), 0)
    return [big, small, grey]


def _unwrap(clf: Any) -> Any:
    while hasattr(clf, "inner"):
        clf = clf.inner
    return clf


def preresize_plan(clf: ClassifierLike, device: str) -> tuple[int, int, int] | None:
    """(w, h, resample) if shrinking images in the workers gives the same results as sending them whole.

    Read from the classifier's image processor (``size``, ``resample``), then checked on probe images:
    exactly equal on CPU, within 1e-5 elsewhere (GPU kernels may differ by batch). None means send whole.
    """
    proc = getattr(_unwrap(clf), "processor", None)
    size = getattr(proc, "size", None)
    if proc is None or not getattr(proc, "do_resize", True) or size is None:
        return None
    try:
        w, h = int(size["width"]), int(size["height"])
        resample = int(getattr(proc, "resample", 2))
    except (KeyError, TypeError, ValueError):
        return None
    plan = (w, h, resample)
    probes = _probe_images()
    whole = clf.classify(probes)
    shrunk = clf.classify([from_wire(to_wire(im, plan)) for im in probes])
    tol = 0.0 if device == "cpu" else 1e-5
    for a, b in zip(whole, shrunk, strict=True):
        pairs = list(zip(a.probs, b.probs, strict=True)) + list(zip(a.embedding, b.embedding, strict=True))
        if any(abs(x - y) > tol for x, y in pairs):
            return None
    return plan
