"""Mutation testing of the modules where a wrong line means a wrong score (mutmut 3; a habit, not a CI step).

    pip install -e ".[mutation]"                        # mutmut, into your own environment
    python scripts/checks/mutation.py                          # every module below, each against its fast tests
    python scripts/checks/mutation.py scoring diversity        # some of them
    python scripts/checks/mutation.py physics --sample 40      # a seeded random sample of a module's mutants
    python scripts/checks/mutation.py --list-survivors grid    # what the tests let through, to kill or explain
    python scripts/checks/mutation.py aggregate --sample 12 --functions group,scoring_inputs   # some functions only

Each module is mutated in its own scratch copy of the repo (``--workdir``, default a temp folder), against a
small targeted test selection (``MODULES``), on one core with one child (the machine is shared): mutmut runs,
for each mutant, only the selected tests that execute the mutated function. The pytest plugins of this
package are disabled there (``-p no:pcg``) so nothing imports the unmutated package; subprocess and pytester
tests are not selected (they would import the installed, unmutated code). Prints one line per module: mutants
tried, killed, survived, without tests, and the score killed/(tried), which docs/contributing/development.md
records per module.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

_SB = "problems/science_birds"
# module -> where it lies below pcg_plugin/ (no .py)
PATHS: dict[str, str] = {
    "scoring": f"{_SB}/scoring/official",
    "aggregate": f"{_SB}/scoring/aggregate",
    "official_layout": f"{_SB}/report/official_layout",
    "diversity": f"{_SB}/scoring/diversity",
    "baseline": f"{_SB}/scoring/baseline",
    "bootstrap": f"{_SB}/scoring/bootstrap",
    "extract": f"{_SB}/level/extract",
    "grid": f"{_SB}/level/grid",
    "levelxml": f"{_SB}/level/levelxml",
    "physics": f"{_SB}/level/physics",
}
# module -> the fast tests that exercise it (no subprocess, no pytester, no slow marker)
MODULES: dict[str, list[str]] = {
    "scoring": ["tests/science_birds/scoring/test_scoring.py", "tests/science_birds/test_cli_score.py"],
    "aggregate": ["tests/science_birds/scoring/test_aggregate.py"],  # records -> scoring inputs
    "official_layout": [
        "tests/science_birds/report/test_official_layout.py",
        "tests/science_birds/test_cli_score.py",
    ],  # stage files -> inputs
    "diversity": ["tests/science_birds/scoring/test_diversity.py"],
    "baseline": ["tests/science_birds/scoring/test_baseline.py"],
    "bootstrap": ["tests/science_birds/scoring/test_bootstrap.py"],
    "extract": ["tests/science_birds/level/test_extract.py"],
    "grid": ["tests/science_birds/level/test_grid.py"],
    "levelxml": ["tests/science_birds/level/test_levelxml.py"],
    "physics": ["tests/science_birds/level/test_physics.py"],
}
PYTEST_ARGS = ["-p", "no:cacheprovider", "-p", "no:pcg", "-p", "no:pcg_rules", "-p", "no:randomly", "-q"]


def prepare(module: str, work: Path, repo: Path = REPO) -> None:
    """A scratch copy of the package and tests with a [tool.mutmut] section for this module."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "mutants")
    for name in ("pcg_plugin", "tests", "templates"):
        shutil.copytree(repo / name, work / name, ignore=ignore)
    shutil.copy2(repo / "conftest.py", work / "conftest.py")
    config = {
        "source_paths": ["pcg_plugin/"],
        "only_mutate": [f"pcg_plugin/{PATHS[module]}.py"],
        "pytest_add_cli_args_test_selection": MODULES[module],
        "pytest_add_cli_args": PYTEST_ARGS,
    }
    lines = ["[tool.mutmut]"] + [f"{key} = {json.dumps(value)}" for key, value in config.items()]
    text = (repo / "pyproject.toml").read_text(encoding="utf-8")
    (work / "pyproject.toml").write_text(text + "\n" + "\n".join(lines) + "\n", encoding="utf-8")


def mutmut(work: Path, names: list[str], time_box: float) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "mutmut", "run", "--max-children", "1", *names]
    try:
        subprocess.run(
            cmd, cwd=work, env=env, timeout=time_box, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
        )
    except subprocess.TimeoutExpired:
        print(f"  (time box of {time_box:.0f} s reached: mutants not yet run are reported as not run)")


def results(work: Path, module: str) -> dict[str, str]:
    """mutant name -> mutmut status (killed, survived, no tests, timeout, not checked, ...)."""
    from mutmut.stats import status_by_exit_code

    meta = work / "mutants" / "pcg_plugin" / f"{PATHS[module]}.py.meta"
    if not meta.is_file():
        return {}
    codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    return {name: status_by_exit_code[code] for name, code in codes.items()}


def _in_functions(name: str, functions: list[str] | None) -> bool:
    """Whether mutant ``pcg_plugin.<module path>.x_FUNC__mutmut_N`` mutates one of the module-level FUNCTIONS."""
    return not functions or name.rsplit(".", 1)[-1].split("__mutmut_")[0] in {f"x_{f}" for f in functions}


def run_module(module: str, args: argparse.Namespace) -> dict[str, object]:
    work = Path(args.workdir) / module
    prepare(module, work, Path(args.repo))
    names: list[str] = []
    everything: list[str] = []
    if args.sample:
        dotted = PATHS[module].replace("/", ".")
        mutmut(work, [f"pcg_plugin.{dotted}.no_such_mutant*"], args.time_box)  # generate + collect stats only
        everything = sorted(n for n in results(work, module) if _in_functions(n, args.functions))
        names = sorted(random.Random(args.seed).sample(everything, min(args.sample, len(everything))))
    mutmut(work, names, args.time_box)
    status = results(work, module)
    if names:
        status = {n: status[n] for n in names}
    tried = {n: s for n, s in status.items() if s not in ("not checked", "skipped")}
    killed = sum(1 for s in tried.values() if s in ("killed", "timeout", "caught by type check"))
    survived = sorted(n for n, s in tried.items() if s == "survived")
    no_tests = sorted(n for n, s in tried.items() if s == "no tests")
    score = 100.0 * killed / len(tried) if tried else 0.0
    within = f" in {', '.join(args.functions)}" if args.functions else ""
    sampled = f" (sample of {len(names)} of {len(everything)}{within}, seed {args.seed})" if names else ""
    print(
        f"{module:16} {len(tried):4} tried{sampled}, {killed} killed, {len(survived)} survived, "
        f"{len(no_tests)} without tests: {score:.0f} %",
        flush=True,
    )
    if args.list_survivors:
        for name in survived + no_tests:
            shown = subprocess.run(
                [sys.executable, "-m", "mutmut", "show", name], cwd=work, capture_output=True, text=True, check=False
            )
            print(f"--- {name} ({status[name]})\n{shown.stdout.strip()}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return {"module": module, "tried": len(tried), "killed": killed, "survived": survived, "no_tests": no_tests}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "modules", nargs="*", metavar="MODULE", help=f"modules to mutate (default all: {', '.join(MODULES)})"
    )
    parser.add_argument("--sample", type=int, default=0, help="run a seeded random sample of N mutants per module")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--functions",
        type=lambda v: [f for f in v.split(",") if f],
        default=None,
        help="with --sample: sample only the mutants of these functions (comma-separated)",
    )
    parser.add_argument(
        "--repo", default=str(REPO), help="checkout to mutate (e.g. an older commit, for a before/after)"
    )
    parser.add_argument("--time-box", type=float, default=600, help="seconds per module (default 600)")
    parser.add_argument("--workdir", default=None, help="scratch folder (default: a new temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies (mutmut browse/show there)")
    parser.add_argument("--list-survivors", action="store_true", help="print each surviving mutant's diff")
    parser.add_argument("--json", default=None, help="also write the per-module results to this file")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.modules) - set(MODULES))
    if unknown:
        parser.error(f"unknown module(s) {', '.join(unknown)}; choose from {', '.join(MODULES)}")
    args.workdir = args.workdir or tempfile.mkdtemp(prefix="pcg-mutation-")
    out = [run_module(m, args) for m in (args.modules or list(MODULES))]
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
