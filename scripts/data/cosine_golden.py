"""Write tests/data/cosine_golden.json: scipy.spatial.distance.cosine (what the official diversity script calls) on
seeded vectors shaped like ours (26 softmax probabilities, 768-d CLS embeddings, near-identical pairs), as exact
float hex. Needs scipy (not a project dependency): `pip install scipy && python scripts/data/cosine_golden.py`."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import scipy
from scipy.spatial.distance import cosine


def softmax(xs: list[float]) -> list[float]:
    m = max(xs)
    e = [math.exp(x - m) for x in xs]
    s = sum(e)
    return [x / s for x in e]


def cases(rng: random.Random) -> list[tuple[list[float], list[float]]]:
    out = []
    for _ in range(40):
        out.append((softmax([rng.gauss(0, 3) for _ in range(26)]), softmax([rng.gauss(0, 3) for _ in range(26)])))
    for _ in range(5):
        u = [rng.gauss(0, 1) for _ in range(768)]
        out.append((u, [x + rng.gauss(0, 0.3) for x in u]))
    for _ in range(10):
        p = softmax([rng.gauss(0, 5) for _ in range(26)])
        out.append((p, [x * (1 + rng.uniform(-1e-9, 1e-9)) for x in p]))  # near-identical: the clip matters
    return out


def main() -> None:
    rng = random.Random(20241123)
    rows = [
        {"u": [x.hex() for x in u], "v": [x.hex() for x in v], "distance": float(cosine(u, v)).hex()}
        for u, v in cases(rng)
    ]
    doc = {"source": f"scipy {scipy.__version__} scipy.spatial.distance.cosine", "cases": rows}
    path = Path(__file__).resolve().parents[2] / "tests" / "data" / "cosine_golden.json"
    path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"{len(rows)} cases -> {path}")


if __name__ == "__main__":
    main()
