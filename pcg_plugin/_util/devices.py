"""The machine a run uses: which torch device, how many cores, how many threads each worker may take.

Policy shared by the classifier and the local LLM backend; it imports torch only when ``auto`` must be resolved.
"""

from __future__ import annotations

import os

from pcg_plugin._util.trial_dirs import pid_alive as pid_alive  # re-exported: its users import it from here


def available_cores() -> int:
    """Cores this process may run on (the affinity mask, not the machine: CI containers lie otherwise)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS
        return max(1, os.cpu_count() or 1)


def threads_per_worker(workers: int, cores: int | None = None) -> int:
    """torch intra-op threads per worker so that workers x threads <= cores (at least 1)."""
    cores = available_cores() if cores is None else cores
    return max(1, cores // max(1, workers))


def resolve_device(device: str, *, mps: bool = True) -> str:
    """``auto`` picks CUDA, else MPS, else CPU: the official classifier script's order.

    ``mps=False`` skips MPS (the local LLM backend generates on CUDA or CPU only).
    """
    if device != "auto":
        return device
    import torch

    if torch.cuda.is_available():
        return "cuda"
    backend = getattr(torch.backends, "mps", None)
    if mps and backend is not None and backend.is_available():
        return "mps"
    return "cpu"
