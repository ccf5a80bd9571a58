"""Letter classification: which classifier a pytest process uses, and the names its users need.

Modules, one way up: ``base`` (the result and interface) and ``wire`` (the service's wire format) -> ``hf`` (the
transformers classifier), ``local`` (loading in this process), ``cache`` (the stage cache) -> ``service``
(lifecycle and client) and ``server`` (the service's own process, run as ``python -m``) -> this module, which
picks local or service per run. Nothing below imports this module's own names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pcg_plugin._util.devices import resolve_device, threads_per_worker
from pcg_plugin.errors import InfrastructureError
from pcg_plugin.problems.science_birds.classify.base import LETTERS, Classification, ClassifierLike, ClassifierWrapper
from pcg_plugin.problems.science_birds.classify.cache import (
    CachedClassifier,
    ClassificationCache,
    cache_namespace,
    default_cache_dir,
)
from pcg_plugin.problems.science_birds.classify.hf import (
    OFFICIAL_MODEL_ID,
    Classifier,
    diversity_vector,
    get_classifier,
    is_local_model,
    letter_order,
)
from pcg_plugin.problems.science_birds.classify.local import Dtype, _local_classifier, load_classifier
from pcg_plugin.problems.science_birds.classify.service import (
    DEFAULT_MAX_BATCH,
    DEFAULT_MAX_WAIT_MS,
    ENV_VAR,
    ServiceClient,
    ServiceHandle,
    connect,
    ensure_service,
    start_service,
)
from pcg_plugin.problems.science_birds.classify.wire import ServiceInfo

__all__ = [
    "LETTERS",
    "OFFICIAL_MODEL_ID",
    "Classification",
    "Classifier",
    "ClassifierLike",
    "ClassifierWrapper",
    "ServiceClient",
    "ServiceHandle",
    "ServiceInfo",
    "classifier_for_run",
    "connect",
    "diversity_vector",
    "ensure_service",
    "get_classifier",
    "is_local_model",
    "letter_order",
    "load_classifier",
    "resolve_mode",
    "start_service",
]

Mode = Literal["auto", "service", "local"]  # the modes; callers pass the option's raw string, checked here


def resolve_mode(mode: Mode | str, device: str) -> Literal["service", "local"]:
    """GPU -> one shared service (one CUDA context, big batches); CPU -> per-worker model, threads capped.

    On CPU the local model measured faster on a 2-core box (docs/problems/science-birds-classifier.md,
    "Classification at scale"), so ``auto`` keeps it there. ``mode`` is a string from the options (an ini value
    is not checked on the way), so anything but a mode is refused here.
    """
    if mode not in ("auto", "service", "local"):
        raise ValueError(f"classifier mode must be auto, service or local, not {mode!r}")
    if mode == "auto":
        return "local" if resolve_device(device) == "cpu" else "service"
    return "service" if mode == "service" else "local"


def classifier_for_run(
    *,
    model: str | Path | None,
    device: str,
    mode: Mode | str,
    workers: int,
    run_dir: Path,
    dtype: Dtype = "fp32",
    service: ServiceInfo | dict[str, Any] | str | None = None,
    cache: bool = True,
    cache_dir: Path | None = None,
    max_batch: int = DEFAULT_MAX_BATCH,
    max_wait_ms: float = DEFAULT_MAX_WAIT_MS,
    loader: str | None = None,
) -> ClassifierLike:
    """The classifier one pytest process should use for this run.

    ``service`` mode connects to ``service`` (workerinput), else ``$PCG_CLASSIFY_SERVICE``, else to the
    service named in the run folder's info file if it answers, else starts one (first process wins, under
    a lock file; it lives as long as that process, and a survivor restarts it if that process dies). ``local``
    mode loads the model in this process with torch threads capped to ``cores // workers`` on CPU. With
    ``cache`` the result is wrapped in the stage cache (``cache_dir`` or the user cache folder).
    """
    chosen = resolve_mode(mode, device)
    inner: ClassifierLike
    if chosen == "local":
        dev = resolve_device(device)
        threads = threads_per_worker(workers) if dev == "cpu" else 1
        inner = _local_classifier(model, dev, threads, dtype, loader)
    else:
        given = service if service is not None else os.environ.get(ENV_VAR)
        restart = {
            "model": model,
            "device": device,
            "dtype": dtype,
            "max_batch": max_batch,
            "max_wait_ms": max_wait_ms,
            "loader": loader,
        }
        if given is not None:  # the controller's service: it owns the lifecycle
            client = connect(given)
            client._run_dir = run_dir
        else:  # first process in starts it; if its owner dies, whoever notices restarts it
            client = ServiceClient(ensure_service(run_dir=run_dir, **restart), run_dir=run_dir, restart=restart)
        if client.info.dtype != dtype:
            raise InfrastructureError(
                f"the running classification service uses {client.info.dtype}, this run asked for {dtype}"
            )
        inner = client
    if not cache:
        return inner
    store = ClassificationCache(cache_dir or default_cache_dir(), cache_namespace(inner.digest, dtype))
    return CachedClassifier(inner, store, Classification)
