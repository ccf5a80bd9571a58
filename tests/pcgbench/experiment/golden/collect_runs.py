"""Gather the folders the reference's `run.py` saved (OUT/<variant>/<generator>/<fitness>/<seed>/iter_<k>/
chromosome_<i>.json) into one gzipped JSON per variant: for each run its parameters and, per iteration, the
population in the order it was saved (best first), each chromosome's content, control, quality, controlability
and diversity as the reference wrote them (its `info` left out; with --hash, for the variants named, the content as
`content_sha256`, the sha256 of its JSON with sorted keys). Reads the saved files only; runs nothing.

Usage: python collect_runs.py OUT FIXTURES_DIR [--hash VARIANT,...]
"""

import gzip
import hashlib
import json
import sys
from pathlib import Path

KEYS = ("content", "control", "quality", "controlability", "diversity")


def number(path: Path) -> int:
    return int(path.stem.rsplit("_", 1)[1])


def chromosome(path: Path, hashed: bool) -> dict:
    saved = json.loads(path.read_text())
    out = {k: saved[k] for k in KEYS}
    if hashed:
        text = json.dumps(out.pop("content"), sort_keys=True)
        out["content_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    return out


def iterations(run: Path, hashed: bool) -> list[list[dict]]:
    out = []
    for it in sorted(run.glob("iter_*"), key=number):
        files = sorted(it.glob("chromosome_*.json"), key=number)
        out.append([chromosome(f, hashed) for f in files])
    return out


def main() -> None:
    root, dest = Path(sys.argv[1]), Path(sys.argv[2])
    hashed = sys.argv[4].split(",") if sys.argv[3:4] == ["--hash"] else []
    for variant in sorted(p for p in root.iterdir() if p.is_dir()):
        runs = []
        for run in sorted(variant.glob("*/*/*")):
            generator, fitness, seed = run.relative_to(variant).parts
            its = iterations(run, variant.name in hashed)
            runs.append(
                {
                    "generator": generator,
                    "fitness": fitness,
                    "seed": int(seed),
                    "population": len(its[0]),
                    "generations": len(its) - 1,
                    "iterations": its,
                }
            )
        doc = {"variant": variant.name, "runs": runs}
        (dest / f"{variant.name}.json.gz").write_bytes(gzip.compress(json.dumps(doc).encode(), mtime=0))


if __name__ == "__main__":
    main()
