"""How many of the reference's own samples and README examples `pcg pcgbench eval` scores as the reference does.

Reads the golden files made by running pcg_benchmark 00b96f5 (`tests/pcgbench/fixtures/spaces/`, SOURCE.md there)
and feeds them, as JSONL lines in the benchmark's own JSON (`{"content": ..., "control": ...}`), through the eval
command's code path (`jsonl_eval.evaluate_lines`):

- samples: per variant, the contents and controls its content and control spaces drew; a line is exact when it is
  valid exactly when the reference scored it, and quality and controllability agree to 1e-9; the set diversity
  (fraction and per-item values) is compared too;
- README examples: per variant, the README contents the benchmark's content space accepts and scores, and how many
  of them eval accepts with the reference's quality and controllability.

    python scripts/checks/pcgbench_reference_check.py [--variants arcade-v0 talakat-v0 ...]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
from pathlib import Path
from typing import Any

from pcg_plugin.problems.pcgbench.bench.jsonl_eval import evaluate_lines
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "pcgbench" / "fixtures" / "spaces"
TOL = 1e-9


def close(a: Any, b: Any) -> bool:
    return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b, rel_tol=0, abs_tol=TOL)


def line_exact(record: dict[str, Any], ref: dict[str, Any], with_control: bool = True) -> bool:
    if "error" in ref:
        return not record["valid"]
    return (
        bool(record["valid"])
        and close(record["quality"], ref["quality"])
        and (not with_control or close(record["controllability"], ref["controllability"]))
    )


def samples(name: str) -> tuple[int, int, bool]:
    """(exact lines, lines, set diversity exact) of one variant's space samples."""
    doc = json.loads(gzip.decompress((FIXTURES / f"{name}.json.gz").read_bytes()))
    lines = [json.dumps({"content": c, "control": k}) for c, k in zip(doc["contents"], doc["controls"], strict=True)]
    records = list(evaluate_lines(get_problem(name), lines))
    *items, summary = records
    exact = sum(line_exact(r, ref) for r, ref in zip(items, doc["items"], strict=True))
    want = doc["set_diversity"]
    diversity = (
        summary.get("diversity") is not None
        and close(summary["diversity"], want["fraction"])
        and len(summary["per_item"]) == len(want["per_item"])
        and all(close(a, b) for a, b in zip(summary["per_item"], want["per_item"], strict=True))
    )
    return exact, len(items), diversity


def readme(doc: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """variant -> (README contents the reference scores that eval scores the same, README contents it scores)."""
    out = {}
    for problem in doc["problems"]:
        for name, rows in problem["variants"].items():
            scored = [
                (c, r)
                for (label, c), r in zip(problem["contents"], rows, strict=True)
                if label == "readme" and r["sampled"] and "error" not in r
            ]
            ok = 0
            for content, ref in scored:
                ((record, _),) = [list(evaluate_lines(get_problem(name), [json.dumps({"content": content})]))]
                ok += line_exact(record, ref, with_control=False)
            out[name] = (ok, len(scored))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="*", default=None, help="default: every registered variant")
    args = parser.parse_args()
    chosen = args.variants or names()
    total = [0, 0, 0, 0]  # exact lines, lines, exact variants, variants
    print(f"{'variant':28s} {'samples exact':>14s} {'set diversity':>14s} {'README scored':>14s}")
    readmes = readme(json.loads((FIXTURES / "readme_examples.json").read_text()))
    lost = 0
    for name in chosen:
        exact, lines, diversity = samples(name)
        ok, scored = readmes.get(name, (0, 0))
        lost += scored - ok
        total[0] += exact
        total[1] += lines
        total[2] += exact == lines and diversity
        total[3] += 1
        print(
            f"{name:28s} {f'{exact}/{lines}':>14s} {'exact' if diversity else 'DIFFERS':>14s} {f'{ok}/{scored}':>14s}"
        )
    print(
        f"samples: {total[0]}/{total[1]} lines exact; {total[2]}/{total[3]} variants exact (every line and the set "
        f"diversity); README examples the reference scores but eval does not score the same: {lost}"
    )


if __name__ == "__main__":
    main()
