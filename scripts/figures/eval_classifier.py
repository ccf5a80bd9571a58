"""Shape figures of letter classifiers on fixed held-out sets (issue 13), several models side by side.

Every image goes through the product path (``pcg_plugin.problems.science_birds.classify.Classifier``). The sets:
- ``typefaces``: A..Z from held-out typeface files, clean (top-1);
- ``bars``: single vertical bars through the pipeline, 2..5 stacked b11 and 1..5 stacked b13 (top-1 = I);
- ``variants_standing``: held-out glyph variants through the pipeline, no block moving (top-1);
- ``typeface_blocks_standing``: held-out typefaces rasterised onto the grid (12 rows), pipeline, none moving;
- ``collapsed_v0_11``: ``glyphs.letter_program(L, v)``, v = 0..11, stability < 0.3: mean P(intended);
- ``collapsed_held_out``: held-out variants and typeface blocks with stability < 0.3: mean P(intended).

Usage: python scripts/figures/eval_classifier.py --model pcg_plugin/problems/science_birds/classify/pcg-letters \\
    --model OLD_FOLDER [--json out]
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
import classifier_data as cd

from pcg_plugin.problems.science_birds.level import glyphs

SIZE = 256  # stored image size; the processor resizes to the model's input
COLLAPSED = 0.3  # stability below this: a collapsed level
Item = tuple[object, int]  # (image, intended letter index)


def build_sets(block_fonts: int = 12) -> dict[str, list[Item]]:
    """The evaluation images (deterministic: fixed fonts, variants and physics)."""
    rng = random.Random(0)
    _, test_fonts = cd.split_fonts(cd.find_fonts())
    sets: dict[str, list[Item]] = {
        k: []
        for k in (
            "typefaces",
            "bars",
            "variants_standing",
            "typeface_blocks_standing",
            "collapsed_v0_11",
            "collapsed_held_out",
        )
    }
    for f in test_fonts:
        for i, c in enumerate(cd.LETTERS):
            sets["typefaces"].append((cd.render_font_letter(f, c, rng, SIZE, augment=False), i))
    i_bar = cd.LETTERS.index("I")
    for program in [cd.bar_program(n) for n in range(2, 6)] + [cd.bar_program(3 * n, "b13") for n in range(1, 6)]:
        level = cd.pipeline_level(program, SIZE)
        assert level is not None and level.moving_blocks == 0, program
        sets["bars"].append((level.image, i_bar))
    for i, c in enumerate(cd.LETTERS):
        for v in range(12):
            level = cd.pipeline_level(glyphs.letter_program(c, v), SIZE)
            if level is not None and level.stability < COLLAPSED:
                sets["collapsed_v0_11"].append((level.image, i))
        programs = [glyphs.letter_program(c, v) for v in cd.HELD_OUT_VARIANTS]
        n_variants = len(programs)
        programs += [cd.program_of(cd.font_grid_cells(f, c, 12, 1.0)) for f in test_fonts[:block_fonts]]
        for k, program in enumerate(programs):
            level = cd.pipeline_level(program, SIZE) if program else None
            if level is None:
                continue
            if level.moving_blocks == 0:
                sets["variants_standing" if k < n_variants else "typeface_blocks_standing"].append((level.image, i))
            elif level.stability < COLLAPSED:
                sets["collapsed_held_out"].append((level.image, i))
    return sets


def evaluate(model: str, sets: dict[str, list[Item]]) -> dict[str, dict]:
    from pcg_plugin.problems.science_birds.classify import LETTERS, Classifier

    clf = Classifier.load(model, device="cpu", threads=1)
    out = {}
    for name, items in sets.items():
        results = clf.classify([im for im, _ in items])
        conf = Counter(
            f"{LETTERS[i]}->{r.top}" for (_, i), r in zip(items, results, strict=True) if r.top != LETTERS[i]
        )
        out[name] = {
            "n": len(items),
            "top1": round(
                sum(r.top == LETTERS[i] for (_, i), r in zip(items, results, strict=True)) / max(1, len(items)), 4
            ),
            "mean_p_intended": round(
                sum(r.probs[i] for (_, i), r in zip(items, results, strict=True)) / max(1, len(items)), 4
            ),
            "confusions": conf.most_common(6),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", required=True, help="model folder or hub id (repeatable)")
    ap.add_argument("--cache", type=Path, help="pickle of the built sets (made if missing)")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    if args.cache and args.cache.is_file():
        sets = pickle.loads(args.cache.read_bytes())
    else:
        sets = build_sets()
        if args.cache:
            args.cache.write_bytes(pickle.dumps(sets))
    figures = {m: evaluate(m, sets) for m in args.model}
    for name in sets:
        print(f"{name} (n={len(sets[name])}):")
        for m in args.model:
            f = figures[m][name]
            print(f"  {m}: top-1 {f['top1']:.1%}  mean P(intended) {f['mean_p_intended']:.3f}  {f['confusions']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
