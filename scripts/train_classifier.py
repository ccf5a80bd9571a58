"""Train the embedded letter classifier (pcg_plugin/models/pcg-letters) offline, seeded, on CPU or GPU.

Data is made here: letters rendered from the machine's typefaces (install Debian font packages first; see
--install-fonts) and letters built as Science Birds block structures. Whole typefaces and whole glyph variants are
held out. Usage: python scripts/train_classifier.py --out pcg_plugin/models/pcg-letters --minutes 15
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import classifier_data as cd  # noqa: E402

from pcg_plugin import glyphs  # noqa: E402

FONT_PACKAGES = (
    "fonts-dejavu fonts-liberation fonts-freefont-ttf fonts-urw-base35 fonts-crosextra-carlito "
    "fonts-crosextra-caladea fonts-lato fonts-open-sans fonts-roboto-unhinted fonts-cantarell fonts-comic-neue "
    "fonts-linuxlibertine fonts-go fonts-hack fonts-inconsolata fonts-dejavu-extra fonts-croscore fonts-noto-mono "
    "fonts-texgyre fonts-ebgaramond fonts-sil-gentium fonts-sil-charis fonts-sil-andika fonts-junicode fonts-stix "
    "fonts-quattrocento fonts-cabin fonts-oldstandard fonts-yanone-kaffeesatz fonts-paratype fonts-dkg-handwriting "
    "fonts-vollkorn fonts-anonymous-pro fonts-jetbrains-mono fonts-firacode fonts-mplus fonts-adf-accanthis "
    "fonts-adf-gillius fonts-adf-universalis fonts-adf-berenis fonts-adf-baskervald fonts-adf-libris "
    "fonts-adf-tribun fonts-adf-verana fonts-adf-romande"
).split()
PILLOW_VARIANTS = range(4, 40)  # glyphs.letter_cells variants drawn from Pillow's built-in font
HELD_OUT_VARIANT = 4  # variant v is held out when v % 5 == HELD_OUT_VARIANT % 5


def to_tensor(images: list, size: int) -> torch.Tensor:
    """Same as the saved processor: RGB, resize (bilinear), /255, (x - 0.5) / 0.5."""
    arr = np.stack([np.asarray(im.convert("RGB").resize((size, size), 2), dtype=np.float32) for im in images])
    return torch.from_numpy((arr / 255.0 - 0.5) / 0.5).permute(0, 3, 1, 2).contiguous()


def build_data(args: argparse.Namespace, rng: random.Random) -> dict[str, list[cd.Sample]]:
    fonts = cd.find_fonts()
    train_fonts, test_fonts = cd.split_fonts(fonts, args.seed)
    print(f"fonts: {len(fonts)} files, {len(train_fonts)} train, {len(test_fonts)} held out", flush=True)
    size = args.size * 2
    keys = ("train", "font_test", "block_test", "block_unstable_test", "level_test_stable", "level_test_collapsed")
    sets: dict[str, list[cd.Sample]] = {k: [] for k in keys}
    letters = [(i, c) for i, c in enumerate(cd.LETTERS) if c in args.letters]
    for f in train_fonts:
        for i, c in letters:
            for _ in range(args.font_augs):
                sets["train"].append(cd.Sample(cd.render_font_letter(f, c, rng, size), i))
    for f in test_fonts:
        for i, c in letters:
            sets["font_test"].append(cd.Sample(cd.render_font_letter(f, c, rng, size, augment=False), i))
    held = [v for v in PILLOW_VARIANTS if v % 5 == HELD_OUT_VARIANT % 5]
    train_variants = [0, 1, 2, 3] + [v for v in PILLOW_VARIANTS if v not in held]
    for i, c in letters:
        for v in train_variants:
            if args.pipeline:
                got = cd.pipeline_letter(list(glyphs.letter_drops(c, v)), size)
                if got is not None:
                    sets["train"].extend([cd.Sample(got[0], i)] * 2)
            for k in range(args.block_augs):
                im = cd.block_letter(glyphs.letter_cells(c, v), rng, size, 0.0 if k == 0 else rng.random())
                if im is not None:
                    sets["train"].append(cd.Sample(im, i))
        for f in rng.sample(train_fonts, min(len(train_fonts), args.block_fonts)):
            cells = cd.font_grid_cells(f, c, rng.randint(8, 15), rng.uniform(0.8, 1.3))
            im = cd.block_letter(cells, rng, size, rng.choice([0.0, rng.random()]))
            if im is not None:
                sets["train"].append(cd.Sample(im, i))
            if args.pipeline and cells:
                got = cd.pipeline_letter(glyphs.decompose(cells)[0], size)
                if got is not None:
                    sets["train"].append(cd.Sample(got[0], i))
        tests = [glyphs.letter_cells(c, v) for v in held]
        tests += [cd.font_grid_cells(f, c, 12, 1.0) for f in test_fonts[: args.block_fonts]]
        for cells in tests:
            im = cd.block_letter(cells, rng, size, 0.0)
            if im is not None:
                sets["block_test"].append(cd.Sample(im, i))
            im = cd.block_letter(cells, rng, size, 0.6)
            if im is not None:
                sets["block_unstable_test"].append(cd.Sample(im, i))
            got = cd.pipeline_letter(glyphs.decompose(cells)[0], size) if args.pipeline and cells else None
            if got is not None:
                sets["level_test_stable" if got[1] else "level_test_collapsed"].append(cd.Sample(got[0], i))
    for k, v in sets.items():
        print(f"{k}: {len(v)} images", flush=True)
    return {"__fonts__": [str(f) for f in fonts], "__test_fonts__": [str(f) for f in test_fonts], **sets}  # type: ignore[dict-item]


def make_model(size: int):
    from transformers import ResNetConfig, ResNetForImageClassification

    config = ResNetConfig(
        num_channels=3, embedding_size=32, hidden_sizes=[32, 64, 128, 192], depths=[1, 1, 2, 1],
        layer_type="basic", hidden_act="relu", downsample_in_first_stage=False,
        id2label={i: c for i, c in enumerate(cd.LETTERS)}, label2id={c: i for i, c in enumerate(cd.LETTERS)},
        num_labels=26, image_size=size,
    )
    return ResNetForImageClassification(config)


def evaluate(model, samples: list[cd.Sample], size: int, device: str) -> tuple[float, Counter]:
    model.eval()
    correct, confusions = 0, Counter()
    with torch.inference_mode():
        for s in range(0, len(samples), 256):
            chunk = samples[s : s + 256]
            pred = model(pixel_values=to_tensor([x.image for x in chunk], size).to(device)).logits.argmax(-1).tolist()
            for smp, p in zip(chunk, pred):
                if p == smp.label:
                    correct += 1
                else:
                    confusions[f"{cd.LETTERS[smp.label]}->{cd.LETTERS[p]}"] += 1
    model.train()
    return correct / max(1, len(samples)), confusions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=Path("pcg_plugin/models/pcg-letters"))
    ap.add_argument("--minutes", type=float, default=30.0, help="wall-clock training budget")
    ap.add_argument("--steps", type=int, default=0, help="train exactly this many steps (overrides --minutes)")
    ap.add_argument("--size", type=int, default=64, help="model input size in pixels")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--font-augs", type=int, default=2)
    ap.add_argument("--block-augs", type=int, default=6)
    ap.add_argument("--block-fonts", type=int, default=30, help="typefaces per letter rasterised onto the grid "
                    "(train and held-out level tests)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--letters", default=cd.LETTERS, help="only these letters (smoke tests)")
    ap.add_argument("--no-pipeline", dest="pipeline", action="store_false",
                    help="skip block letters run through pcg_plugin.pipeline (physics + render)")
    ap.add_argument("--install-fonts", action="store_true", help="apt-get install the Debian font packages first")
    args = ap.parse_args(argv)
    if args.install_fonts:
        subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", *FONT_PACKAGES], check=False)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    t0 = time.time()
    data = build_data(args, random.Random(args.seed))
    print(f"data built in {time.time() - t0:.0f}s", flush=True)
    train = data["train"]
    x_all = torch.from_numpy(np.stack([np.asarray(s.image.convert("L").resize((args.size, args.size), 2)) for s in train]))
    y_all = torch.tensor([s.label for s in train])
    model = make_model(args.size).to(device)
    print(f"params: {sum(p.numel() for p in model.parameters()):,}", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=5e-4)
    budget = args.minutes * 60
    start, step, epoch = time.time(), 0, 0
    gen = torch.Generator().manual_seed(args.seed)
    def progress() -> float:
        """Fraction of the budget used: steps when --steps is given (exactly reproducible), else wall-clock."""
        return step / args.steps if args.steps else (time.time() - start) / budget

    while progress() < 1.0:
        perm = torch.randperm(len(train), generator=gen)
        for s in range(0, len(perm) - args.batch + 1, args.batch):
            frac = min(1.0, progress())
            for g in opt.param_groups:
                g["lr"] = 3e-3 * 0.5 * (1 + np.cos(np.pi * frac))  # cosine over the wall-clock budget
            idx = perm[s : s + args.batch]
            xb = ((x_all[idx].float() / 255.0 - 0.5) / 0.5).unsqueeze(1).expand(-1, 3, -1, -1).to(device)
            shift = torch.randint(-3, 4, (2,), generator=gen).tolist()
            xb = torch.roll(xb, shifts=shift, dims=(2, 3))  # roll pads with white border content (margin)
            loss = torch.nn.functional.cross_entropy(model(pixel_values=xb).logits, y_all[idx].to(device),
                                                     label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.3f} t={time.time() - start:.0f}s", flush=True)
            if progress() >= 1.0:
                break
        epoch += 1
    results = {}
    for key in ("font_test", "block_test", "block_unstable_test", "level_test_stable", "level_test_collapsed"):
        acc, conf = evaluate(model, data[key], args.size, device)
        results[key] = {"n": len(data[key]), "top1": round(acc, 4), "confusions": conf.most_common(10)}
        print(key, results[key], flush=True)
    model = model.to("cpu")
    save(model, args, results, data, step, epoch, time.time() - start, device)
    return 0


def save(model, args, results, data, steps, epochs, seconds, device) -> None:
    from transformers import ViTImageProcessor

    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out, safe_serialization=True)
    ViTImageProcessor(
        do_resize=True, size={"height": args.size, "width": args.size}, resample=2,
        do_rescale=True, rescale_factor=1 / 255, do_normalize=True, image_mean=[0.5] * 3, image_std=[0.5] * 3,
    ).save_pretrained(args.out)
    meta = {
        "seed": args.seed, "size": args.size, "minutes": args.minutes, "steps": steps, "epochs": epochs,
        "train_seconds": round(seconds), "device": device, "train_images": len(data["train"]),
        "font_files": len(data["__fonts__"]), "held_out_font_files": [Path(f).name for f in data["__test_fonts__"]],
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items() if k != "letters"},
        "results": results,
    }
    (args.out / "training.json").write_text(json.dumps(meta, indent=1))


if __name__ == "__main__":
    raise SystemExit(main())
