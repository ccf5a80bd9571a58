"""Loading a classifier into this process: the loader, its precision, and one model per process.

``loader`` names another loader as ``module:attr.attr`` (tests and benchmarks plug stand-ins in; a string
because the service process receives it as JSON); ``None`` is the transformers ``Classifier.load``.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pcg_plugin.problems.science_birds.classify.base import ClassifierLike, ClassifierWrapper
from pcg_plugin.problems.science_birds.classify.hf import Classifier

Dtype = Literal["fp32", "bf16", "fp16"]

_TORCH_DTYPES = {"bf16": "bfloat16", "fp16": "float16"}


def _import_loader(spec: str | None) -> Callable[..., ClassifierLike]:
    """``module:attr.attr`` -> the callable; ``None`` -> ``Classifier.load``."""
    if spec is None:
        return Classifier.load
    module_name, _, attr_path = spec.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr_path.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass
class _Autocast(ClassifierWrapper):
    """Runs a classifier's forward pass in bf16/fp16 via torch.autocast (softmax stays fp32 where torch says)."""

    inner: ClassifierLike
    device_type: str
    dtype: str

    def classify(self, images: Sequence[Any]) -> list[Any]:
        import torch

        with torch.autocast(self.device_type, dtype=getattr(torch, _TORCH_DTYPES[self.dtype])):
            return self.inner.classify(images)


def load_classifier(
    model: str | Path | None,
    *,
    device: str,
    threads: int | None,
    dtype: Dtype = "fp32",
    loader: str | None = None,
) -> ClassifierLike:
    """Load one in-process classifier at the requested precision."""
    if dtype not in ("fp32", "bf16", "fp16"):
        raise ValueError(f"dtype must be fp32, bf16 or fp16, not {dtype!r}")
    clf = _import_loader(loader)(None if model is None else str(model), device=device, threads=threads)
    if dtype == "fp32":
        return clf
    return _Autocast(clf, "cuda" if device.startswith("cuda") else device.split(":")[0], dtype)


_LOCAL: dict[tuple[Any, ...], ClassifierLike] = {}
_LOCAL_LOCK = threading.Lock()


def _local_classifier(
    model: str | Path | None, device: str, threads: int, dtype: Dtype, loader: str | None
) -> ClassifierLike:
    """Per-process memo: a worker loads its model once, whatever the number of items."""
    key = (None if model is None else str(model), device, threads, dtype, loader)
    with _LOCAL_LOCK:  # trials in flight ask at once: one load
        if key not in _LOCAL:
            _LOCAL[key] = load_classifier(model, device=device, threads=threads, dtype=dtype, loader=loader)
        return _LOCAL[key]
