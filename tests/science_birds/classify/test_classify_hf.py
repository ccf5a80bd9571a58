"""Classifier interface: label mapping by name, probabilities, determinism, batching, from_pretrained loading."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageDraw
from tiny_vit import save_tiny_vit  # tests/ is on sys.path (rootdir conftest, prepend import mode)

from pcg_plugin.errors import InfrastructureError
from pcg_plugin.problems.science_birds.classify import LETTERS, Classification, Classifier, hf, letter_order


@pytest.fixture(scope="module")
def tiny_vit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_vit(tmp_path_factory.mktemp("vit"), list(LETTERS))


def _letter_image(seed: int, size: int = 200) -> Image.Image:
    rng = random.Random(seed)
    im = Image.new("RGBA", (size, size), "white")
    d = ImageDraw.Draw(im)
    for _ in range(6):
        x, y = rng.randint(0, size - 40), rng.randint(0, size - 40)
        d.rectangle((x, y, x + rng.randint(5, 40), y + rng.randint(5, 40)), fill="black")
    return im


def test_tiny_vit_loads_through_from_pretrained(tiny_vit: Path) -> None:
    clf = Classifier.load(tiny_vit, device="cpu", threads=1)
    (res,) = clf.classify([_letter_image(1)])
    assert len(res.probs) == 26
    assert math.isclose(sum(res.probs), 1.0, rel_tol=1e-5)
    assert len(res.embedding) == 16  # CLS of the last hidden state: hidden_size
    assert res.top in LETTERS
    assert len(clf.digest) == 16 and clf.name == str(tiny_vit)


def test_the_pil_processor_is_asked_for(tiny_vit: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The official script's processor is PIL's; transformers 5 would pick torchvision's wherever it is installed
    (not on this machine, so the request itself is what can be checked here)."""
    import transformers

    real = transformers.AutoImageProcessor.from_pretrained
    asked: list[dict[str, object]] = []

    def spy(source: str, **kwargs: object) -> object:
        asked.append(kwargs)
        return real(source, **kwargs)

    monkeypatch.setattr(transformers.AutoImageProcessor, "from_pretrained", spy)
    clf = Classifier.load(tiny_vit, device="cpu", threads=1)
    assert asked and asked[0] in ({"backend": "pil"}, {"use_fast": False})
    assert "Fast" not in type(clf.processor).__name__ and "Torchvision" not in type(clf.processor).__name__


def test_vit_embedding_is_last_hidden_state_cls_before_layernorm(tiny_vit: Path) -> None:
    import torch

    clf = Classifier.load(tiny_vit, device="cpu")
    image = _letter_image(2)
    (res,) = clf.classify([image])
    pixels = clf.processor(images=[image.convert("RGB")], return_tensors="pt")["pixel_values"]
    with torch.no_grad():
        out = clf.model(pixel_values=pixels, output_hidden_states=True)
        encoder = clf.model.vit(pixel_values=pixels).last_hidden_state  # after the final layernorm
    assert torch.allclose(torch.tensor(res.embedding), out.hidden_states[-1][0, 0], atol=1e-6)
    assert not torch.allclose(out.hidden_states[-1][0, 0], encoder[0, 0], atol=1e-3)


def test_shuffled_labels_are_mapped_by_name(tmp_path: Path, tiny_vit: Path) -> None:
    import torch

    perm = list(LETTERS)
    random.Random(3).shuffle(perm)
    shuffled = save_tiny_vit(tmp_path / "shuffled", perm)
    clf = Classifier.load(shuffled, device="cpu")
    image = _letter_image(4)
    (res,) = clf.classify([image])
    pixels = clf.processor(images=[image.convert("RGB")], return_tensors="pt")["pixel_values"]
    with torch.no_grad():
        raw = torch.softmax(clf.model(pixel_values=pixels).logits, -1)[0].tolist()
    for i, name in enumerate(perm):
        assert res.prob(name) == pytest.approx(raw[i], abs=1e-7)


@pytest.mark.parametrize(
    "labels",
    [
        [f"LABEL_{i}" for i in range(26)],
        [*LETTERS[:25], "A"],
        [*LETTERS, "?"],
        [c.lower() for c in LETTERS[:10]] + ["X"] * 16,
    ],
)
def test_wrong_labels_fail_clearly(tmp_path: Path, labels: list[str]) -> None:
    folder = save_tiny_vit(tmp_path / "bad", labels)
    with pytest.raises(InfrastructureError, match="label"):
        Classifier.load(folder, device="cpu")


def test_lowercase_labels_are_accepted() -> None:
    assert letter_order({i: c.lower() for i, c in enumerate(LETTERS)}) == list(range(26))


@given(st.permutations(list(LETTERS)))
def test_letter_order_inverts_any_permutation(perm: list[str]) -> None:
    order = letter_order(dict(enumerate(perm)))
    assert [perm[i] for i in order] == list(LETTERS)


def test_same_image_twice_same_vector_and_batch_equals_single(tiny_vit: Path) -> None:
    clf = Classifier.load(tiny_vit, device="cpu")
    images = [_letter_image(s) for s in range(5)]
    batch = clf.classify([*images, images[0]])
    assert batch[0] == batch[-1]
    singles = [clf.classify([im])[0] for im in images]
    for a, b in zip(batch, singles, strict=False):
        assert a.probs == pytest.approx(b.probs, abs=1e-6)
        assert a.embedding == pytest.approx(b.embedding, abs=1e-5)
    clf.batch_size = 2  # split into several forward passes: same answers
    assert [r.top for r in clf.classify(images)] == [r.top for r in singles]
    assert clf.classify([]) == []


def test_missing_model_fails_with_a_message(tmp_path: Path) -> None:
    with pytest.raises(InfrastructureError, match="could not load classifier"):
        Classifier.load(tmp_path / "nowhere", device="cpu")


def test_get_classifier_shares_one_instance(tiny_vit: Path) -> None:
    a = hf.get_classifier(tiny_vit, device="cpu")
    assert hf.get_classifier(tiny_vit, device="cpu") is a


def test_digest_tells_models_apart(tmp_path: Path, tiny_vit: Path) -> None:
    other = save_tiny_vit(tmp_path / "other", list(LETTERS), seed=1)
    assert Classifier.load(other, device="cpu").digest != Classifier.load(tiny_vit, device="cpu").digest


def test_digest_is_the_same_wherever_the_model_lies(tmp_path: Path, tiny_vit: Path) -> None:
    """A cloned or moved model folder is the same model: the baseline gate and the stage cache see one digest."""
    import shutil

    moved = shutil.copytree(tiny_vit, tmp_path / "elsewhere" / "model")
    assert Classifier.load(moved, device="cpu").digest == Classifier.load(tiny_vit, device="cpu").digest


def test_classification_top_and_diversity_vector() -> None:
    probs = tuple(0.9 if c == "Q" else 0.1 / 25 for c in LETTERS)
    res = Classification(probs, (1.0, 2.0))
    assert res.top == "Q"
    assert hf.diversity_vector(res, 2024) == probs
    assert hf.diversity_vector(res, 2025) == (1.0, 2.0)


def test_embedded_model_reads_block_letters() -> None:
    """The shipped default loads with model=None and reads the test double's block letters."""
    from PIL import Image as PILImage

    from pcg_plugin.problems.science_birds.level import glyphs

    clf = hf.get_classifier(None, device="cpu")
    images = []
    for letter in "AHLTO":
        cells = glyphs.built_cells(letter, 0)
        im = PILImage.new("RGB", (1024, 1024), "white")
        d = ImageDraw.Draw(im)
        top = max(r for r, _ in cells)
        c0 = min(c for _, c in cells)
        k = 824 / max(top + 1, max(c for _, c in cells) - c0 + 1)
        for r, c in cells:
            x, y = 100 + (c - c0) * k, 100 + (top - r) * k
            d.rectangle((x + 2, y + 2, x + k - 2, y + k - 2), fill="black")
        images.append(im)
    results = clf.classify(images)
    assert all(math.isclose(sum(r.probs), 1.0, rel_tol=1e-5) for r in results)
    assert sum(r.top == c for r, c in zip(results, "AHLTO", strict=True)) >= 4


def test_threads_classifying_at_once_each_get_their_own_embedding() -> None:
    """The embedded model's embedding is the input of its head, caught by a hook. Two threads classifying at once
    (trials in flight; the GPU service's batcher threads): each gets its own image's, not the other's. Both are
    made to wait on the model's lock together, as a busy model makes them; the hook used to be registered before
    that lock, so the first forward pass fed both hooks and the second thread read the first one's features."""
    import threading
    import time

    clf = hf.get_classifier(None, device="cpu")
    images = {"a": _letter_image(1), "b": _letter_image(2)}
    alone = {k: clf.classify([im])[0] for k, im in images.items()}
    assert alone["a"].embedding != alone["b"].embedding
    got: dict[str, Classification] = {}
    threads = [threading.Thread(target=lambda k=k: got.update({k: clf.classify([images[k]])[0]})) for k in images]
    with clf._lock:  # a forward pass in progress
        for t in threads:
            t.start()
        time.sleep(0.5)
    for t in threads:
        t.join(30)
    for k in images:
        assert got[k].embedding == pytest.approx(alone[k].embedding, abs=1e-5), k
