"""Issue 44's provider figures: a Science Birds, a PCG Benchmark and a GameEval run on each native provider
(``--pcg-backend anthropic``, ``--pcg-backend gemini``; ``openai`` for comparison), each SDK pointed at a loopback
fake of its wire format, then a rerun with ``--pcg-record none`` on the same store. One row per run: the requests
the server received, the calls in the store, the rerun's requests and whether it scored the same.

    python scripts/figures/provider_runs.py                          # every provider x problem
    python scripts/figures/provider_runs.py --provider gemini --problem pcgbench

Needs the tests' doubles (tests/, run from a checkout) and the SDKs (pip install -e ".[anthropic,gemini]").
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from fault_cases import PROBLEMS, PROVIDERS, FaultServer, outcomes, run_pytest, scores, serve  # noqa: E402 - tests/

PROBLEM_NAMES = ("sb2024", "pcgbench", "gameeval")


def one(provider: str, problem: str, trials: int) -> str:
    """Both runs of one provider and problem, as a table row."""
    p = PROBLEMS[problem]
    with tempfile.TemporaryDirectory(prefix=f"pcg-{provider}-{problem}-") as tmp:
        root = Path(tmp)
        args = p.setup(root, {"t1": None}, {"trials": trials})
        with serve(FaultServer(p.answer), provider) as server:
            first = run_pytest(root, server, p, args, "out1", cache=False, provider=provider)
            again = run_pytest(root, server, p, args, "out2", "--pcg-record", "none", cache=False, provider=provider)
    same = outcomes(first.results) == outcomes(again.results) and scores(first.results) == scores(again.results)
    return (
        f"| {provider} | {problem} | {first.returncode} | {first.requests} | {first.recorded} | "
        f"{again.returncode} | {again.requests} | {'yes' if same and first.results else 'NO'} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--provider", action="append", choices=PROVIDERS)
    parser.add_argument("--problem", action="append", choices=PROBLEM_NAMES)
    parser.add_argument("--trials", type=int, default=2)
    opts = parser.parse_args()
    print("| provider | problem | exit | requests received | calls stored | rerun exit | rerun requests | same |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for provider in opts.provider or PROVIDERS:
        for problem in opts.problem or PROBLEM_NAMES:
            print(one(provider, problem, opts.trials), flush=True)


if __name__ == "__main__":
    main()
