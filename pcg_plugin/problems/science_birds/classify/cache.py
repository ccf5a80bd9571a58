"""Stage cache for classification: an image already classified by the same model is not classified again."""

from __future__ import annotations

import contextlib
import hashlib
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.cache_dir import ENV_CACHE_DIR as ENV_CACHE_DIR  # re-exported: its users import it from here
from pcg_plugin._util.cache_dir import default_cache_dir as default_cache_dir  # re-exported: classify uses it
from pcg_plugin.problems.science_birds.classify.base import ClassifierLike, ClassifierWrapper

_MAGIC = b"PCGC1"


def image_key(image: Any) -> str:
    """sha256 over the decoded pixels (mode, size, raw bytes): the same picture gives the same key
    whatever PNG encoder wrote it, and any pixel change gives a new key."""
    h = hashlib.sha256()
    h.update(f"{image.mode}:{image.size[0]}x{image.size[1]}:".encode())
    if image.mode in ("P", "PA"):  # the palette is part of the picture
        h.update(bytes(image.getpalette() or ()))
    h.update(image.tobytes())
    return h.hexdigest()


def encode_record(probs: Sequence[float], embedding: Sequence[float]) -> bytes:
    """Floats as float64 so Python floats (from float32 tensors) survive the round trip bit for bit."""
    return (
        _MAGIC
        + struct.pack("<II", len(probs), len(embedding))
        + struct.pack(f"<{len(probs)}d", *probs)
        + struct.pack(f"<{len(embedding)}d", *embedding)
    )


def decode_record(data: bytes) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """None for anything that is not a complete record (a torn or foreign file is a miss, not a crash)."""
    head = len(_MAGIC) + 8
    if len(data) < head or not data.startswith(_MAGIC):
        return None
    n_probs, n_emb = struct.unpack_from("<II", data, len(_MAGIC))
    if len(data) != head + 8 * (n_probs + n_emb):
        return None
    probs = struct.unpack_from(f"<{n_probs}d", data, head)
    emb = struct.unpack_from(f"<{n_emb}d", data, head + 8 * n_probs)
    return probs, emb


@dataclass
class ClassificationCache:
    """Files keyed by model namespace + image key, written atomically (temp file + rename).

    Files rather than SQLite: 128 xdist workers write concurrently without any lock, a torn write
    can never be read (rename is atomic), and a shared or network folder works.
    """

    root: Path
    namespace: str  # model digest + precision: bf16 results must not answer an fp32 run
    hits: int = 0
    misses: int = 0

    def _path(self, key: str) -> Path:
        return self.root / "classify" / self.namespace / key[:2] / f"{key}.bin"

    def get(self, key: str) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
        try:
            data = self._path(key).read_bytes()
        except OSError:
            return None
        return decode_record(data)

    def put(self, key: str, probs: Sequence[float], embedding: Sequence[float]) -> None:
        """Best effort: a full or read-only disk costs speed, never a result."""
        with contextlib.suppress(OSError):
            atomic_write(self._path(key), encode_record(probs, embedding))


def cache_namespace(digest: str, dtype: str) -> str:
    """Folder-safe namespace for one model and precision."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in digest)[:80] or "unknown"
    return f"{safe}-{dtype}"


@dataclass
class CachedClassifier(ClassifierWrapper):
    """Wraps any classifier: looks each image up first and sends only the misses, in one batch.

    ``make`` rebuilds a Classification from (probs, embedding) so hits and misses have one type.
    """

    inner: ClassifierLike
    cache: ClassificationCache
    make: Callable[[tuple[float, ...], tuple[float, ...]], Any]

    def classify(self, images: Sequence[Any]) -> list[Any]:
        keys = [image_key(im) for im in images]
        out: list[Any] = [None] * len(images)
        todo: dict[str, list[int]] = {}  # key -> positions: identical images in one call go to the model once
        for i, key in enumerate(keys):
            if key in todo:
                todo[key].append(i)
                continue
            rec = self.cache.get(key)
            if rec is None:
                todo[key] = [i]
            else:
                out[i] = self.make(*rec)
        self.cache.hits += len(images) - len(todo)
        self.cache.misses += len(todo)
        if todo:
            fresh = self.inner.classify([images[pos[0]] for pos in todo.values()])
            for (key, positions), result in zip(todo.items(), fresh, strict=True):
                for i in positions:
                    out[i] = result
                self.cache.put(key, tuple(result.probs), tuple(result.embedding))
        return out

    def __getattr__(self, attr: str) -> Any:  # expose the inner classifier's extras (stats, close)
        if attr == "inner":
            raise AttributeError(attr)
        return getattr(self.inner, attr)
