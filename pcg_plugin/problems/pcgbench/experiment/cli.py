"""`pcg pcgbench experiment`: the paper's experiment from the shell (the arguments, the run, what is printed)."""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

from pcg_plugin._util.devices import available_cores
from pcg_plugin.problems.pcgbench.bench.registry import names, variant_name
from pcg_plugin.problems.pcgbench.experiment.baselines import write_baselines
from pcg_plugin.problems.pcgbench.experiment.figures import summarize
from pcg_plugin.problems.pcgbench.experiment.fitness import SHOWN, fitness_name
from pcg_plugin.problems.pcgbench.experiment.page import write_pages
from pcg_plugin.problems.pcgbench.experiment.pictures import NAMES
from pcg_plugin.problems.pcgbench.experiment.runner import Progress, execute, plan
from pcg_plugin.problems.pcgbench.experiment.search import GENERATORS
from pcg_plugin.problems.pcgbench.experiment.spaces import MODES
from pcg_plugin.problems.pcgbench.experiment.store import RunStore

# The paper's twelve problems, each by its default variant (the experiment's `data_processing.py` lists them).
PAPER_VARIANTS = (
    "arcade-v0",
    "binary-v0",
    "building-v0",
    "ddave-v0",
    "elimination-v0",
    "isaac-v0",
    "loderunner-v0",
    "mdungeons-v0",
    "smb-v0",
    "sokoban-v0",
    "talakat-v0",
    "zelda-v0",
)


def _variants(texts: list[str]) -> list[str]:
    out: list[str] = []
    for text in texts:
        found = list(PAPER_VARIANTS) if text == "paper" else [variant_name(text)]
        unknown = [v for v in found if v not in names()]
        if unknown:
            raise SystemExit(f"pcg pcgbench experiment: no variant {text!r}; known: paper, {', '.join(names())}")
        out += [v for v in found if v not in out]
    return out


def _generators(text: str) -> list[str]:
    found = [g.strip().lower() for g in text.split(",") if g.strip()]
    bad = [g for g in found if g not in GENERATORS]
    if bad or not found:
        raise argparse.ArgumentTypeError(f"generators {text!r}: expected a comma list of {', '.join(GENERATORS)}")
    return list(dict.fromkeys(found))


def _fitnesses(text: str) -> list[str]:
    try:
        found = [fitness_name(f) for f in text.split(",") if f.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not found:
        raise argparse.ArgumentTypeError("--fitness: name at least one fitness")
    return list(dict.fromkeys(found))


def add_parser(sub: Any) -> None:
    exp = sub.add_parser(
        "experiment",
        help="the paper's experiment: Random, ES and GA under the Q, QT and QTD fitnesses, its Fig. 2 and Fig. 3",
        description="Runs the PCG Benchmark paper's experiment as its code runs it (amidos2006/"
        "benchmark_experiments 2c7ce70): every generator under every fitness, --runs times each (run r seeded "
        "with --seed + r), stored run by run under --out so a killed experiment resumes; then writes the Fig. 2 "
        "curves and Fig. 3 counts (figures.json, SVG), a page per variant and the baselines as leaderboard "
        "submissions (OUT/baselines/VARIANT/).",
    )
    exp.add_argument("variants", nargs="+", metavar="VARIANT", help="variant names, or `paper` for its 12 defaults")
    exp.add_argument("--generator", type=_generators, default=list(GENERATORS), help="comma list of random, es, ga")
    exp.add_argument(
        "--fitness",
        type=_fitnesses,
        default=["q", "qt", "qtd"],
        help="comma list of q, qt, qtd (or quality, quality_control, quality_control_diversity)",
    )
    exp.add_argument("--runs", type=int, default=10, metavar="R", help="runs per generator and fitness (default 10)")
    exp.add_argument("--generations", type=int, default=200, metavar="G", help="generations per run (default 200)")
    exp.add_argument(
        "--population", type=int, default=100, metavar="N", help="population (ES: mu = lambda = N; default 100)"
    )
    exp.add_argument(
        "--seed",
        type=int,
        default=1,
        metavar="S",
        help="run r uses seed S + r (default 1: seed 0 leaves the reference's generator unseeded)",
    )
    exp.add_argument(
        "--spaces",
        choices=MODES,
        default="reference",
        help="reference: draw as the benchmark's env does after env.seed(seed), quirks included (default); "
        "uniform: the harness's uniform draw, as the paper's unseeded runs drew",
    )
    exp.add_argument(
        "--out",
        type=Path,
        default=Path("pcgbench-experiment"),
        metavar="DIR",
        help="where runs, figures, pages and baselines go (default pcgbench-experiment)",
    )
    exp.add_argument(
        "-j", "--jobs", type=int, default=available_cores(), metavar="N", help="worker processes (default: the cores)"
    )
    exp.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run on a Ray cluster instead of --jobs processes: auto, HOST:PORT, or local:N (N one-CPU nodes "
        "started here), as --pcg-cluster takes them (docs/cluster.md); needs the cluster extra",
    )
    exp.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per run (variant, generator, fitness, seed, best, final, evaluated, wall and CPU "
        "seconds) "
        "instead of a table",
    )
    exp.set_defaults(_action=run_experiment)


def command_line(args: argparse.Namespace, variants: list[str]) -> str:
    """The command that makes these runs again (every option that decides a run spelled out)."""
    options = {
        "--generator": ",".join(args.generator),
        "--fitness": ",".join(args.fitness),
        "--runs": args.runs,
        "--generations": args.generations,
        "--population": args.population,
        "--seed": args.seed,
        "--spaces": args.spaces,
    }
    return shlex.join(["pcg", "pcgbench", "experiment", *variants, *(str(x) for kv in options.items() for x in kv)])


def run_experiment(args: argparse.Namespace) -> int:
    if args.runs < 1 or args.generations < 0 or args.population < 1 or args.jobs < 1:
        raise SystemExit("pcg pcgbench experiment: --runs, --population and --jobs must be >= 1, --generations >= 0")
    variants = _variants(args.variants)
    specs = plan(
        variants, args.generator, args.fitness, args.runs, args.seed, args.population, args.generations, args.spaces
    )
    records = []
    for record in execute(specs, RunStore(args.out), args.jobs, Progress(len(specs)), args.cluster):
        records.append(record)
        if args.json:
            keys = ("variant", "generator", "fitness", "seed", "best", "final", "evaluated", "seconds", "cpu_seconds")
            print(json.dumps({k: record[k] for k in keys}), flush=True)
    summary = summarize(records)
    protocol = {
        "runs": args.runs,
        "generations": args.generations,
        "population": args.population,
        "seed": args.seed,
        "spaces": args.spaces,
        "command": command_line(args, variants),
    }
    write_pages(args.out, summary, protocol)
    write_baselines(args.out, records)
    if not args.json:
        for variant, data in summary.items():
            for key, c in data["fig2"].items():
                gen, _, fit = key.partition("-")
                e = data["fig3"][key]
                print(
                    f"{variant} {NAMES[gen]} {SHOWN[fit]}: best {c['mean'][-1]:.3f} [{c['low'][-1]:.3f}, "
                    f"{c['high'][-1]:.3f}]; elites successful {e['successful']}, controlled {e['controlled']}, "
                    f"unique {e['unique']} of {e['runs']}"
                )
            c = data["cost"]
            print(
                f"{variant}: {c['evaluations']} evaluations, {c['cpu_seconds']} CPU s ({c['ms_per_evaluation']} ms "
                f"each); the paper's protocol at this rate: {c['paper_protocol_cpu_hours']} CPU hours"
            )
        total = sum(d["cost"]["paper_protocol_cpu_hours"] for d in summary.values())
        print(f"the paper's protocol on these {len(summary)} variants: {total:.1f} CPU hours on one core")
        print(f"pages: {args.out / 'index.html'}; baselines: {args.out / 'baselines'}")
    return 0
