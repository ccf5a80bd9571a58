"""The spending cap's cases (docs/spending-cap.md), printed as a table: the PCG Benchmark competition of
``tests/in_flight_cases.py`` (two submissions x 2 instances x 2 trials) answered by a loopback OpenAI-compatible
server, priced by a table that makes the sums exact (model "double": $0 per prompt token, $1000 per million
completion tokens; the server bills 7 completion tokens a call, $0.007, and a call's worst case is $16.384):

1. reached at ``-n 2`` with 4 trials in flight per worker under a $16.419 cap;
2. the same command again with ``PCG_MAX_COST=100`` and ``-n 0``: it pays only what is missing;
3. no price for the model (no ``--pcg-prices``): refused before any call.

For each: the exit code, the line the run printed, what results.json says was spent, the requests the server
received and the calls the store holds, and the trials not run.

    python scripts/figures/cost_cap_cases.py WORK
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
sys.path[:0] = [str(TESTS)]

import loopback_llm  # noqa: E402 - tests/, put on sys.path above
from in_flight_cases import CASES, SlowServer, command, load, make_work, stored_calls  # noqa: E402 - as above

CASE = "pcgbench"


def main() -> None:
    work = Path(sys.argv[1]).resolve()
    make_work(work, CASE)
    (work / "prices.json").write_text(json.dumps({"models": {"double": [0, 1000]}}))
    path = str(CASES[CASE]["path"])
    sys.path[:0] = [str(work), path]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(work), path, str(ROOT), os.environ.get("PYTHONPATH", "")])}
    for var in ("OPENAI_API_KEY", "PCG_MAX_COST", "PCG_PRICES"):
        env.pop(var, None)
    server = SlowServer(load(CASES[CASE]["responder"]), delay=0.05)
    rows = []
    with loopback_llm.serve(server):
        model = ["--pcg-backend", "openai-compatible", "--pcg-base-url", server.url, "--pcg-model", "double"]
        cases = [
            ("reached at -n 2", "run", 2, ["--pcg-prices", "prices.json", "--pcg-max-cost", "16.419"], {}),
            ("rerun, PCG_MAX_COST=100", "run", 0, ["--pcg-prices", "prices.json"], {"PCG_MAX_COST": "100"}),
            ("unknown price", "unpriced", 0, ["--pcg-max-cost", "5"], {}),
        ]
        for name, out, workers, extra, more in cases:
            before, stored_before = len(server.bodies), stored_calls(work, out)
            cmd = command(CASE, out, 2, workers, *model, "--pcg-in-flight", "4", *extra, small=True)
            done = subprocess.run(cmd, cwd=work, env={**env, **more}, capture_output=True, text=True, check=False)
            said = re.findall(
                r"stopped at the cost cap: \$[\d.]+ of \$[\d.]+|the model '\w+' has no price", done.stdout + done.stderr
            )
            doc_path = work / out / "results.json"
            doc = json.loads(doc_path.read_text()) if doc_path.is_file() and not name.startswith("unknown") else {}
            cap = doc.get("cost_cap", {})
            rows.append(
                (
                    name,
                    done.returncode,
                    said[0] if said else "-",
                    f"{cap['spent_usd']:.4f} of {cap['cap_usd']:.4f}" if cap else "-",
                    len(server.bodies) - before,
                    stored_calls(work, out) - stored_before,
                    len(doc.get("not_run", {})),
                )
            )
    print("| case | exit | printed | spent of cap (USD, results.json) | requests | calls stored | not run |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(str(v) for v in row) + " |")


if __name__ == "__main__":
    main()
