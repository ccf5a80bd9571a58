"""Sandbox overhead: milliseconds per trial for a one-call program, each start method (fork server, new
interpreter) with and without the network namespace."""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

from pcg_plugin.sandbox.run import (
    START_METHODS,
    SandboxLimits,
    network_namespace_prefix,
    run_program_trial,
    use_start_method,
)

PROGRAM = """
from chatgpt4pcg.competition import TrialContext, TrialLoop, chat_with_chatgpt


class One(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        return chat_with_chatgpt(ctx, [{"role": "user", "content": target_character}])[0]
"""


def bench(limits: SandboxLimits, repeats: int) -> list[float]:
    with tempfile.TemporaryDirectory() as root:
        entry = Path(root) / "prog" / "main.py"
        entry.parent.mkdir()
        entry.write_text(PROGRAM)
        times = []
        for i in range(repeats):
            work = Path(root) / f"w{i}"
            work.mkdir()
            t = time.perf_counter()
            run_program_trial(entry, letter="A", chat=lambda m, n: ["ok"] * n, limits=limits, workdir=work)
            times.append(time.perf_counter() - t)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    print(f"network namespace: {' '.join(network_namespace_prefix()) or 'unavailable (audit hook only)'}")
    for method in START_METHODS:
        use_start_method(method)
        for network in ("deny", "hook"):
            times = bench(dataclasses.replace(SandboxLimits(), network=network), args.repeats)
            print(
                f"start={method} network={network}: median {statistics.median(times) * 1000:.1f} ms/trial, "
                f"max {max(times) * 1000:.0f} ms over {args.repeats} trials (the first: {times[0] * 1000:.0f} ms)"
            )


if __name__ == "__main__":
    main()
