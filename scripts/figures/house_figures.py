"""The figures of the package's layout (issue 33), for this checkout: top-level modules, the problem contract,
what listing the problems imports, the largest folder and the repeated code.

    python scripts/figures/house_figures.py            # from a checkout, with its package installed (-e)
    python scripts/figures/house_figures.py --json     # the same as JSON

Run it in two checkouts (each with its own environment) to compare revisions; it reads the earlier layout too
(a ``Problem`` protocol without a base every problem subclasses, ``core.contract.problem.installed()``).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "pcg_plugin"
HEAVY = ("numpy", "torch", "transformers", "pymunk", "PIL")
GAMES = re.compile(
    r"\.games\.|\.(askguess|spyfall|tofukingdom)$|pcgbench\.(arcade|binary|building|ddave|elimination|"
    r"isaac|loderunner|mdungeons|smb|sokoban|talakat|zelda|tracery)"
)

# What pytest start-up does with the registry: list every installed problem and register its options.
LISTING = """
import json, sys, time
import pytest
before = set(sys.modules)
start = time.perf_counter()
from pcg_plugin.core.contract import problem as problems
parser = pytest.Parser(_ispytest=True)
if hasattr(problems, "installed"):
    names = list(problems.registered())
    for p in problems.installed():
        p.add_options(parser)
else:
    entries = problems.registered()
    names = list(entries)
    problems.add_options(parser, entries.values())
ms = (time.perf_counter() - start) * 1000
print(json.dumps({"problems": len(names), "ms": ms, "modules": sorted(set(sys.modules) - before)}))
"""


def top_level() -> list[str]:
    return sorted(p.name for p in PACKAGE.glob("*.py"))


def contract() -> dict[str, object]:
    from pcg_plugin.core.contract.base import BaseProblem
    from pcg_plugin.core.contract.problem import Problem

    protocol = sorted(n for n, v in vars(Problem).items() if callable(v) and not n.startswith("_"))
    defaults = sorted(
        n
        for n in dir(BaseProblem)
        if not n.startswith("_")
        and callable(getattr(BaseProblem, n))
        and n not in getattr(BaseProblem, "__abstractmethods__", ())
    )
    return {"protocol": protocol, "must_define": sorted(set(protocol) - set(defaults)), "hooks": defaults}


def listing() -> dict[str, object]:
    best = None
    for _ in range(5):  # the fastest of five fresh interpreters
        out = json.loads(
            subprocess.run([sys.executable, "-c", LISTING], capture_output=True, text=True, check=True, cwd=REPO).stdout
        )
        best = out if best is None or out["ms"] < best["ms"] else best
    assert best is not None
    mods = best["modules"]
    ours = [m for m in mods if m.startswith("pcg_plugin")]
    return {
        "problems": best["problems"],
        "ms": round(best["ms"]),
        "modules": len(mods),
        "ours": len(ours),
        "heavy": sorted({m.split(".")[0] for m in mods} & set(HEAVY)),
        "games": [m for m in ours if GAMES.search(m)],
    }


def folders(root: Path) -> list[tuple[int, str]]:
    counts = [
        (len(list(d.glob("*.py"))), d.relative_to(REPO).as_posix())
        for d in [root, *root.rglob("*")]
        if d.is_dir() and "__pycache__" not in d.parts
    ]
    return sorted(counts, reverse=True)[:3]


def duplicates() -> str | None:
    """The first line of the ``duplicates`` tool over pcg_plugin/ (None where the tool is not installed)."""
    if shutil.which("duplicates") is None:
        return None
    out = subprocess.run(["duplicates", "--repo", str(PACKAGE), "--seconds", "120"], capture_output=True, text=True)
    return out.stdout.splitlines()[0] if out.stdout else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    facts = {
        "top_level": top_level(),
        "contract": contract(),
        "listing": listing(),
        "largest_folders": folders(PACKAGE),
        "largest_test_folders": folders(REPO / "tests"),
        "duplicates": duplicates(),
    }
    if args.json:
        print(json.dumps(facts, indent=1))
        return 0
    c, lst = facts["contract"], facts["listing"]
    print(f"top-level modules: {len(facts['top_level'])} ({', '.join(facts['top_level'])})")
    print(
        f"Problem protocol: {len(c['protocol'])} methods; a problem must define {len(c['must_define'])} "
        f"({', '.join(c['must_define'])}); optional hooks with a default on the base: {len(c['hooks'])}"
    )
    print(
        f"listing {lst['problems']} problems: {lst['modules']} modules imported ({lst['ours']} of pcg_plugin) in "
        f"{lst['ms']} ms; heavy: {', '.join(lst['heavy']) or 'none'}; game modules: {len(lst['games'])}"
    )
    print("largest folders: " + ", ".join(f"{d} {n}" for n, d in facts["largest_folders"]))
    print("largest test folders: " + ", ".join(f"{d} {n}" for n, d in facts["largest_test_folders"]))
    print(f"duplicates in pcg_plugin/: {facts['duplicates'] or 'tool not installed'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
