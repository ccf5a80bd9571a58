"""Letter classifier: any 26-letter HF image classifier -> per-image A..Z probabilities and a diversity embedding."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pcg_plugin._util.devices import resolve_device
from pcg_plugin.errors import InfrastructureError
from pcg_plugin.problems.science_birds.classify.base import LETTERS, Classification

OFFICIAL_MODEL_ID = "pittawat/vit-base-uppercase-english-characters"
EMBEDDED_MODEL_DIR = Path(__file__).resolve().parent / "pcg-letters"
DEFAULT_BATCH_SIZE = 32


def letter_order(id2label: dict[Any, str]) -> list[int]:
    """Model output index for each of A..Z, mapped by label NAME; raises if the labels are not the 26 letters.

    The official script reads the letter's place in the alphabet as the index blindly; matching names instead
    gives the same answer for the official model (whose labels are A=0..Z=25) and stays right for a model whose
    labels come in another order.
    """
    names = {int(i): str(name).strip().upper() for i, name in id2label.items()}
    by_name: dict[str, int] = {}
    for idx, name in sorted(names.items()):
        if name in by_name:
            raise InfrastructureError(f"classifier labels name {name!r} twice (indices {by_name[name]} and {idx})")
        by_name[name] = idx
    if len(names) != 26 or set(by_name) != set(LETTERS):
        shown = [names[i] for i in sorted(names)][:30]
        missing = sorted(set(LETTERS) - set(by_name))
        raise InfrastructureError(
            f"classifier labels must be exactly the 26 letters A..Z; got {len(names)} labels {shown}"
            + (f" (missing {''.join(missing)})" if missing else "")
            + ": similarity cannot be scored with this model"
        )
    if sorted(by_name.values()) != list(range(26)):
        raise InfrastructureError(f"classifier label indices must be 0..25, got {sorted(by_name.values())}")
    return [by_name[c] for c in LETTERS]


def _resolve(model: str | os.PathLike[str] | None) -> tuple[str, str]:
    """(what from_pretrained gets, display name). A path that exists is a local folder; else a hub id."""
    if model is None:
        return str(EMBEDDED_MODEL_DIR), "pcg-letters (embedded)"
    text = os.fspath(model)
    return text, text


def official_processor_kwargs() -> dict[str, Any]:
    """Ask for the PIL image processor, the one the official script ran (transformers ~=4.37).

    transformers 5 picks its torchvision backend wherever torchvision is installed (as on most GPU machines);
    it resizes with other kernels, so pixels, probabilities and the 2025 embedding differ from the official ones,
    and a worker's PIL pre-resize no longer matches what the service would do (the service then receives whole
    1024x1024 images and its CPU, not the GPU, bounds classification).
    """
    import transformers

    major = int(transformers.__version__.split(".")[0])
    return {"backend": "pil"} if major >= 5 else {"use_fast": False}


class Classifier:
    """A loaded model + processor; ``classify`` runs one forward pass per batch of up to ``batch_size`` images."""

    def __init__(self, model: Any, processor: Any, *, name: str, device: str, batch_size: int = DEFAULT_BATCH_SIZE):
        self.model = model
        self.processor = processor
        self.name = name
        self.device = device
        self.batch_size = batch_size
        self.order = letter_order(model.config.id2label)
        self._is_token_model = getattr(model.config, "model_type", "") in {"vit", "deit", "beit", "dinov2"}
        self._digest: str | None = None
        self._lock = threading.Lock()

    @classmethod
    def load(
        cls,
        model: str | os.PathLike[str] | None = None,
        *,
        device: str = "auto",
        threads: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> Classifier:
        """Load through ``AutoModelForImageClassification`` / ``AutoImageProcessor.from_pretrained`` (hub id or
        folder)."""
        import torch
        from transformers import AutoImageProcessor, AutoModelForImageClassification

        if threads is not None and threads > 0:
            torch.set_num_threads(threads)
        source, name = _resolve(model)
        if model is None and not (EMBEDDED_MODEL_DIR / "config.json").is_file():
            raise InfrastructureError(f"the embedded classifier is missing from {EMBEDDED_MODEL_DIR}")
        try:
            processor = AutoImageProcessor.from_pretrained(source, **official_processor_kwargs())
            net = AutoModelForImageClassification.from_pretrained(source)
        except Exception as exc:  # hub unreachable, not a model folder, corrupt weights...
            raise InfrastructureError(
                f"could not load classifier {name!r}: {type(exc).__name__}: {exc}. "
                f"Pass --model with a hub id that can be reached or a local copy of the model folder"
            ) from exc
        dev = resolve_device(device)  # auto: CUDA, else MPS, else CPU (official order)
        net.eval().to(dev)
        return cls(net, processor, name=name, device=dev, batch_size=batch_size)

    @property
    def digest(self) -> str:
        """sha256 over the config and every weight tensor: two runs with the same digest used the same model,
        wherever it was loaded from (the config's ``_name_or_path`` is left out: a moved or cloned folder is the
        same model)."""
        if self._digest is None:
            h = hashlib.sha256()
            config = {k: v for k, v in self.model.config.to_dict().items() if k != "_name_or_path"}
            h.update(json.dumps(config, sort_keys=True, default=str).encode())
            h.update(json.dumps(self.processor.to_dict(), sort_keys=True, default=str).encode())
            for key, tensor in sorted(self.model.state_dict().items()):
                h.update(key.encode())
                h.update(tensor.detach().to("cpu").contiguous().numpy().tobytes())
            self._digest = h.hexdigest()[:16]
        return self._digest

    def classify(self, images: Sequence[Any]) -> list[Classification]:
        """Per image: 26 softmax probabilities (A..Z) and the embedding, from the same forward pass."""
        out: list[Classification] = []
        for start in range(0, len(images), max(1, self.batch_size)):
            out.extend(self._classify_batch(images[start : start + self.batch_size]))
        return out

    def _classify_batch(self, images: Sequence[Any]) -> list[Classification]:
        import torch

        if not images:
            return []
        rgb = [im.convert("RGB") for im in images]  # official: Image.open(path).convert("RGB")
        inputs = self.processor(images=rgb, return_tensors="pt")
        pixels = inputs["pixel_values"].to(self.device)
        captured: list[Any] = []
        with self._lock, torch.inference_mode():  # the hook too: another thread's forward pass would fill `captured`
            hook = None
            if not self._is_token_model:
                head = getattr(self.model, "classifier", None)
                if head is None:
                    raise InfrastructureError(f"{self.name}: no `classifier` head to read the pooled embedding from")
                hook = head.register_forward_pre_hook(lambda _m, args: captured.append(args[0]))
            try:
                result = self.model(pixel_values=pixels, output_hidden_states=self._is_token_model)
            finally:
                if hook is not None:
                    hook.remove()
        logits = result.logits.float()
        if logits.shape[-1] != 26:
            raise InfrastructureError(f"{self.name} returned {logits.shape[-1]} logits, expected 26")
        probs = torch.softmax(logits, dim=-1)[:, self.order].cpu().tolist()
        # a token model: the CLS token of the last hidden state (before final layernorm); else the pooled
        # features the head reads
        emb = result.hidden_states[-1][:, 0, :] if self._is_token_model else captured[0].flatten(1)
        embs = emb.float().cpu().tolist()
        return [Classification(tuple(p), tuple(e)) for p, e in zip(probs, embs, strict=True)]


_SHARED: dict[tuple[Any, ...], Classifier] = {}
_SHARED_LOCK = threading.Lock()


def get_classifier(
    model: str | os.PathLike[str] | None = None, device: str = "auto", threads: int | None = None
) -> Classifier:
    """The process-wide classifier for these arguments, loaded on first use and shared by every caller."""
    key = (None if model is None else os.fspath(model), device, threads)
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = Classifier.load(model, device=device, threads=threads)
        return _SHARED[key]


def diversity_vector(result: Classification, edition: int) -> tuple[float, ...]:
    """2024 uses the 26 probabilities; 2025 the CLS (or pooled) embedding."""
    return result.embedding if edition >= 2025 else result.probs


def is_local_model(model: str | os.PathLike[str] | None) -> bool:
    return model is None or Path(os.fspath(model)).exists()
