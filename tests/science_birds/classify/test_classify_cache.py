"""Stage cache: keys follow pixels, records round-trip exactly, hits never reach the model."""

from __future__ import annotations

import io
import math
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from pcg_plugin.problems.science_birds.classify.cache import (
    CachedClassifier,
    ClassificationCache,
    cache_namespace,
    decode_record,
    default_cache_dir,
    encode_record,
    image_key,
)


@dataclass(frozen=True)
class _C:
    probs: tuple[float, ...]
    embedding: tuple[float, ...]


class _Counting:
    digest, name = "sha256:abc", "counting"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def classify(self, images: Any) -> list[_C]:
        self.calls.append(len(images))
        return [
            _C(tuple(float(b) / 255 for b in im.tobytes()[:26]), (float(zlib.crc32(im.tobytes())), 0.5))
            for im in images
        ]


def _image(seed: int) -> Image.Image:
    im = Image.new("RGB", (30, 30), "white")
    ImageDraw.Draw(im).rectangle((seed % 20, 2, seed % 20 + 5, 20), fill="black")
    return im


def _png(im: Image.Image, level: int) -> Image.Image:
    buf = io.BytesIO()
    im.save(buf, format="PNG", compress_level=level)
    return Image.open(io.BytesIO(buf.getvalue()))


def test_key_follows_pixels_not_png_bytes() -> None:
    im = _image(3)
    assert image_key(_png(im, 0)) == image_key(_png(im, 9)) == image_key(im)
    changed = im.copy()
    changed.putpixel((0, 0), (0, 0, 0))
    assert image_key(changed) != image_key(im)
    assert image_key(im.convert("L")) != image_key(im)  # same picture, other mode: classified separately


def test_key_includes_the_palette() -> None:
    a = Image.new("P", (4, 4), 0)
    a.putpalette([255, 255, 255] + [0] * 765)
    b = a.copy()
    b.putpalette([0, 0, 0] * 256)
    assert a.tobytes() == b.tobytes() and image_key(a) != image_key(b)


floats = st.floats(allow_nan=False, width=64) | st.floats(width=32, allow_nan=False)


@given(st.lists(floats, max_size=40), st.lists(floats, max_size=800))
def test_records_round_trip_bit_for_bit(probs: list[float], emb: list[float]) -> None:
    assert decode_record(encode_record(probs, emb)) == (tuple(probs), tuple(emb))


@given(st.binary(max_size=300))
def test_garbage_is_a_miss_not_a_crash(data: bytes) -> None:
    rec = decode_record(data)
    assert rec is None or all(isinstance(x, float) for x in rec[0] + rec[1])


def test_torn_record_is_a_miss() -> None:
    data = encode_record([0.1] * 26, [0.2] * 8)
    assert decode_record(data[:-1]) is None and decode_record(data + b"x") is None


def test_cache_put_get_and_namespaces(tmp_path: Path) -> None:
    fp32 = ClassificationCache(tmp_path, cache_namespace("sha256:abc", "fp32"))
    bf16 = ClassificationCache(tmp_path, cache_namespace("sha256:abc", "bf16"))
    other = ClassificationCache(tmp_path, cache_namespace("sha256:def", "fp32"))
    fp32.put("k" * 64, [math.pi] * 26, [1e-300, -0.0])
    assert fp32.get("k" * 64) == ((math.pi,) * 26, (1e-300, -0.0))
    assert bf16.get("k" * 64) is None and other.get("k" * 64) is None
    assert cache_namespace("../../etc", "fp32") == ".._.._etc-fp32"  # no path escape


def test_unwritable_cache_costs_speed_not_results(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = ClassificationCache(blocker, "ns")
    cache.put("a" * 64, [0.5], [0.5])  # must not raise
    assert cache.get("a" * 64) is None


def test_hits_skip_the_model_and_misses_share_one_call(tmp_path: Path) -> None:
    inner = _Counting()
    cached = CachedClassifier(inner, ClassificationCache(tmp_path, "ns"), _C)
    images = [_image(i) for i in range(6)]
    first = cached.classify(images[:4])
    assert inner.calls == [4]
    second = cached.classify(images)  # 4 hits, 2 misses in one call
    assert inner.calls == [4, 2]
    assert second[:4] == first and second == inner.classify(images)
    assert (cached.cache.hits, cached.cache.misses) == (4, 6)
    assert cached.digest == inner.digest and cached.name == inner.name


def test_identical_images_in_one_call_go_to_the_model_once(tmp_path: Path) -> None:
    inner = _Counting()
    cached = CachedClassifier(inner, ClassificationCache(tmp_path, "ns"), _C)
    out = cached.classify([_image(1), _image(2), _image(1)])
    assert inner.calls == [2] and out[0] == out[2] != out[1]


def test_a_new_process_sees_earlier_results(tmp_path: Path) -> None:
    CachedClassifier(_Counting(), ClassificationCache(tmp_path, "ns"), _C).classify([_image(5)])
    inner = _Counting()
    CachedClassifier(inner, ClassificationCache(tmp_path, "ns"), _C).classify([_image(5)])
    assert inner.calls == []


def test_default_cache_dir_env_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PCG_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("PCG_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "pytest-pcg"
    assert os.fspath(default_cache_dir()).endswith("pytest-pcg")


def test_the_classify_package_takes_the_cache_folder_from_here() -> None:
    """``classify/__init__`` imports ``default_cache_dir`` from this module (a re-export of ``_util.cache_dir``);
    a lint fix once dropped it as unused and the package, and so every Science Birds run, failed to import."""
    from pcg_plugin._util import cache_dir
    from pcg_plugin.problems.science_birds import classify
    from pcg_plugin.problems.science_birds.classify import cache

    assert cache.default_cache_dir is cache_dir.default_cache_dir and cache.ENV_CACHE_DIR == cache_dir.ENV_CACHE_DIR
    assert classify.ClassificationCache is cache.ClassificationCache
