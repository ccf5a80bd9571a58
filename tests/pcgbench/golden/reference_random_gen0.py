"""Generation 0 of the Random baseline (best quality of 100 uniform contents) by the reference itself, with and
without `env.seed`: seeding gives every leaf space its own default_rng(seed), so sibling leaves of a dictionary
space draw the same stream (a building drop's x equals its y), which is not the uniform space the paper sampled.
Run against pcg_benchmark 00b96f5 as SOURCE.md says: `python reference_random_gen0.py building-v0 20`.
"""

import sys

import numpy as np
import pcg_benchmark


def gen0(env, seed):
    if seed is not None:
        env.seed(seed)
    p = env._problem
    return max(p.quality(p.info(env.content_space.sample())) for _ in range(100))


if __name__ == "__main__":
    name, runs = sys.argv[1], int(sys.argv[2])
    env = pcg_benchmark.make(name)
    print(
        name,
        "unseeded",
        round(float(np.mean([gen0(env, None) for _ in range(runs)])), 3),
        "seeded",
        round(float(np.mean([gen0(env, s) for s in range(runs)])), 3),
    )
