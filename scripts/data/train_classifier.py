"""Train the embedded letter classifier (pcg_plugin/problems/science_birds/classify/pcg-letters) offline, seeded,
on CPU or GPU.

Data is made here: letters rendered from the machine's typefaces (install Debian font packages first; see
--install-fonts) and letters built as Science Birds block structures. Whole typefaces and whole glyph variants are
held out; labels follow what each image shows (classifier_data). Figures: scripts/figures/eval_classifier.py.
Usage: python scripts/data/train_classifier.py --out pcg_plugin/problems/science_birds/classify/pcg-letters --minutes 35
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
import classifier_data as cd

from pcg_plugin.problems.science_birds.level import glyphs

FONT_PACKAGES = [
    "fonts-dejavu",
    "fonts-liberation",
    "fonts-freefont-ttf",
    "fonts-urw-base35",
    "fonts-crosextra-carlito",
    "fonts-crosextra-caladea",
    "fonts-lato",
    "fonts-open-sans",
    "fonts-roboto-unhinted",
    "fonts-cantarell",
    "fonts-comic-neue",
    "fonts-linuxlibertine",
    "fonts-go",
    "fonts-hack",
    "fonts-inconsolata",
    "fonts-dejavu-extra",
    "fonts-croscore",
    "fonts-noto-mono",
    "fonts-texgyre",
    "fonts-ebgaramond",
    "fonts-sil-gentium",
    "fonts-sil-charis",
    "fonts-sil-andika",
    "fonts-junicode",
    "fonts-stix",
    "fonts-quattrocento",
    "fonts-cabin",
    "fonts-oldstandard",
    "fonts-yanone-kaffeesatz",
    "fonts-paratype",
    "fonts-dkg-handwriting",
    "fonts-vollkorn",
    "fonts-anonymous-pro",
    "fonts-jetbrains-mono",
    "fonts-firacode",
    "fonts-mplus",
    "fonts-adf-accanthis",
    "fonts-adf-gillius",
    "fonts-adf-universalis",
    "fonts-adf-berenis",
    "fonts-adf-baskervald",
    "fonts-adf-libris",
    "fonts-adf-tribun",
    "fonts-adf-verana",
    "fonts-adf-romande",
]


def add_level(samples: list[cd.Sample], program: str | None, letter: int, size: int, counts: Counter) -> None:
    """A program through the pipeline, kept only with the label its final image earns (see classifier_data)."""
    level = cd.pipeline_level(program, size) if program else None
    if level is None:
        return
    label = cd.visible_label(letter, level.moving_blocks, level.iou)
    counts[
        "pipeline " + ("letter" if label is not None and label >= 0 else "rubble" if label == cd.RUBBLE else "left out")
    ] += 1
    if label is not None:
        samples.extend([cd.Sample(level.image, label)] * (2 if label >= 0 else 1))


def add_blocks(
    samples: list[cd.Sample], cells: glyphs.Cells, letter: int, rng: random.Random, size: int, counts: Counter
) -> None:
    """The clean stand-in render (the letter) and one synthetic collapse (rubble when far from the clean image)."""
    clean = cd.block_letter(cells, size)
    if clean is None:
        return
    samples.extend([cd.Sample(clean, letter)] * 2)
    broken = cd.shaken(cells, rng, size, rng.uniform(0.5, 1.0))
    if broken is not None and cd.mask_iou(broken, clean) < cd.RUBBLE_IOU:
        samples.append(cd.Sample(broken, cd.RUBBLE))
        counts["shaken rubble"] += 1


def build_data(args: argparse.Namespace, rng: random.Random) -> tuple[list[cd.Sample], dict]:
    """Training images only: every test image comes from held-out typefaces or variants (eval_classifier.py)."""
    fonts = cd.find_fonts()
    train_fonts, test_fonts = cd.split_fonts(fonts)
    print(f"fonts: {len(fonts)} files, {len(train_fonts)} train, {len(test_fonts)} held out", flush=True)
    size = args.size * 2
    train: list[cd.Sample] = []
    counts: Counter = Counter()
    letters = [(i, c) for i, c in enumerate(cd.LETTERS) if c in args.letters]
    for f in train_fonts:
        for i, c in letters:
            for _ in range(args.font_augs):
                train.append(cd.Sample(cd.render_font_letter(f, c, rng, size), i))
    counts["font letters"] = len(train)
    for i, c in letters:
        for v in cd.TRAIN_VARIANTS:
            add_blocks(train, glyphs.letter_cells(c, v), i, rng, size, counts)
            if args.pipeline:
                add_level(train, glyphs.letter_program(c, v), i, size, counts)
        for k, f in enumerate(rng.sample(train_fonts, min(len(train_fonts), args.block_fonts))):
            cells = cd.font_grid_cells(f, c, rng.randint(8, 15), rng.uniform(0.8, 1.3))
            add_blocks(train, cells, i, rng, size, counts)
            if args.pipeline and k < args.pipeline_fonts:
                add_level(train, cd.program_of(cells), i, size, counts)
        print(f"{c}: {len(train)} images", flush=True)
    if "I" in args.letters:  # bars: the plainest I, 2..16 rows, 1..3 columns, not wider than a third of the height
        for h in range(2, 17):
            for w in range(1, max(1, h // 3) + 1):
                train.extend([cd.Sample(cd.block_letter(cd.bar_cells(h, w), size), cd.LETTERS.index("I"))] * 3)
                counts["bars"] += 3
    for h in (1, 2):  # flat slabs: what a collapsed structure mostly becomes, no letter
        for w in range(3 * h + 1, 19):
            train.append(cd.Sample(cd.block_letter(cd.bar_cells(h, w), size), cd.RUBBLE))
            counts["slab rubble"] += 1
    counts["total"] = len(train)
    counts["rubble total"] = sum(s.label == cd.RUBBLE for s in train)
    print(dict(counts), flush=True)
    return train, {
        "font_files": len(fonts),
        "held_out_font_files": [f.name for f in test_fonts],
        "counts": dict(counts),
    }


def make_model(size: int):
    from transformers import ResNetConfig, ResNetForImageClassification

    config = ResNetConfig(
        num_channels=3,
        embedding_size=32,
        hidden_sizes=[32, 64, 128, 192],
        depths=[1, 1, 2, 1],
        layer_type="basic",
        hidden_act="relu",
        downsample_in_first_stage=False,
        id2label=dict(enumerate(cd.LETTERS)),
        label2id={c: i for i, c in enumerate(cd.LETTERS)},
        num_labels=26,
        image_size=size,
    )
    return ResNetForImageClassification(config)


def targets(labels: torch.Tensor, smoothing: float) -> torch.Tensor:
    """Soft targets: a letter gets 1 - smoothing (+ smoothing / 26 each); RUBBLE the uniform distribution."""
    out = torch.full((len(labels), 26), 1.0 / 26)
    keep = labels >= 0
    out[keep] = smoothing / 26
    out[keep, labels[keep]] += 1.0 - smoothing
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=Path("pcg_plugin/problems/science_birds/classify/pcg-letters"))
    ap.add_argument("--minutes", type=float, default=35.0, help="wall-clock training budget")
    ap.add_argument("--steps", type=int, default=0, help="train exactly this many steps (overrides --minutes)")
    ap.add_argument("--size", type=int, default=64, help="model input size in pixels")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--font-augs", type=int, default=2)
    ap.add_argument(
        "--block-fonts", type=int, default=30, help="training typefaces per letter rasterised onto the grid"
    )
    ap.add_argument("--pipeline-fonts", type=int, default=8, help="of those, how many also go through the pipeline")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--smoothing", type=float, default=0.05, help="label smoothing of letter targets")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--letters", default=cd.LETTERS, help="only these letters (smoke tests)")
    ap.add_argument(
        "--no-pipeline",
        dest="pipeline",
        action="store_false",
        help="skip block letters run through pcg_plugin.problems.science_birds.level.pipeline (physics + render)",
    )
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
    train, info = build_data(args, random.Random(args.seed))
    data_seconds = time.time() - t0
    print(f"data built in {data_seconds:.0f}s", flush=True)
    x_all = torch.from_numpy(
        np.stack([np.asarray(s.image.convert("L").resize((args.size, args.size), 2)) for s in train])
    )
    t_all = targets(torch.tensor([s.label for s in train]), args.smoothing)
    del train
    model = make_model(args.size).to(device)
    print(f"params: {sum(p.numel() for p in model.parameters()):,}", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    budget = args.minutes * 60
    start, step, epoch = time.time(), 0, 0
    gen = torch.Generator().manual_seed(args.seed)

    def progress() -> float:
        """Fraction of the budget used: steps when --steps is given (exactly reproducible), else wall-clock."""
        return step / args.steps if args.steps else (time.time() - start) / budget

    while progress() < 1.0:
        perm = torch.randperm(len(x_all), generator=gen)
        for s in range(0, len(perm) - args.batch + 1, args.batch):
            frac = min(1.0, progress())
            for g in opt.param_groups:
                g["lr"] = args.lr * 0.5 * (1 + np.cos(np.pi * frac))  # cosine over the budget
            idx = perm[s : s + args.batch]
            xb = ((x_all[idx].float() / 255.0 - 0.5) / 0.5).unsqueeze(1).expand(-1, 3, -1, -1).to(device)
            shift = torch.randint(-3, 4, (2,), generator=gen).tolist()
            xb = torch.roll(xb, shifts=shift, dims=(2, 3))  # roll pads with white border content (margin)
            loss = torch.nn.functional.cross_entropy(model(pixel_values=xb).logits, t_all[idx].to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 200 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.3f} t={time.time() - start:.0f}s", flush=True)
            if progress() >= 1.0:
                break
        epoch += 1
    seconds = time.time() - start
    model = model.to("cpu")
    save(model, args, info, step, epoch, seconds, data_seconds, device)
    return 0


def save(model, args, info, steps, epochs, seconds, data_seconds, device) -> None:
    """Weights, processor and training.json (arguments, data counts, held-out files); figures: eval_classifier.py."""
    from transformers import ViTImageProcessor

    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out, safe_serialization=True)
    ViTImageProcessor(
        do_resize=True,
        size={"height": args.size, "width": args.size},
        resample=2,
        do_rescale=True,
        rescale_factor=1 / 255,
        do_normalize=True,
        image_mean=[0.5] * 3,
        image_std=[0.5] * 3,
    ).save_pretrained(args.out)
    meta = {
        "seed": args.seed,
        "size": args.size,
        "minutes": args.minutes,
        "steps": steps,
        "epochs": epochs,
        "train_seconds": round(seconds),
        "data_seconds": round(data_seconds),
        "device": device,
        "stand_iou": cd.STAND_IOU,
        "rubble_iou": cd.RUBBLE_IOU,
        "held_out_variants": list(cd.HELD_OUT_VARIANTS),
        **info,
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items() if k != "letters"},
    }
    (args.out / "training.json").write_text(json.dumps(meta, indent=1))


if __name__ == "__main__":
    raise SystemExit(main())
