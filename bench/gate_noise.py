"""Gate benchmark: how often each threshold rule blocks an unchanged agent, and catches a real drop.

Run: .venv/bin/python bench/gate_noise.py [--seed 7] [--rounds 2000]
Simulates eval runs of an agent whose trials pass at random (20 tasks x 3 trials), gates an
unchanged candidate and a candidate whose pass probability really dropped, with the fixed 10%
rule and the learned k-sigma rule (sigma from 5 no-op runs). Prints the false-block ("flap")
rate of each rule, their ratio, and the detection rate of the real drop.
"""

import argparse
import os
import random
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

import django  # noqa: E402

django.setup()

from golden.evals.gate import GateConfig, metric_verdict, noise_spread  # noqa: E402

TASKS, TRIALS, NOOP_RUNS = 20, 3, 5
METRIC = "outcome_score"


def run_metric(rng: random.Random, pass_probability: float) -> float:
    """The run's mean outcome over TASKS x TRIALS Bernoulli trials."""
    trials = TASKS * TRIALS
    return sum(rng.random() < pass_probability for _ in range(trials)) / trials


def block_rates(rng: random.Random, rounds: int, base_p: float, cand_p: float, k: float):
    fixed_cfg = GateConfig(mode="fixed", fixed_drop=0.10)
    learned_cfg = GateConfig(mode="learned", sigma_k=k)
    fixed_blocks = learned_blocks = 0
    for _ in range(rounds):
        noop = [
            SimpleNamespace(metrics={"overall": {METRIC: run_metric(rng, base_p)}})
            for _ in range(NOOP_RUNS)
        ]
        spread = noise_spread(noop).get(METRIC)
        base, cand = run_metric(rng, base_p), run_metric(rng, cand_p)
        fixed_blocks += metric_verdict(METRIC, base, cand, fixed_cfg, None)["blocked"]
        learned_blocks += metric_verdict(METRIC, base, cand, learned_cfg, spread)["blocked"]
    return fixed_blocks / rounds, learned_blocks / rounds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--k", type=float, default=2.5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(
        f"{TASKS} tasks x {TRIALS} trials, sigma from {NOOP_RUNS} no-op runs, k={args.k}, "
        f"{args.rounds} rounds, seed {args.seed}"
    )
    fixed_flap, learned_flap = block_rates(rng, args.rounds, 0.80, 0.80, args.k)
    print(
        f"unchanged agent (p=0.80): fixed 10% blocks {fixed_flap:.1%}, "
        f"learned {args.k}σ blocks {learned_flap:.1%}"
    )
    if learned_flap:
        print(f"  flap ratio fixed/learned: {fixed_flap / learned_flap:.1f}x")
    for cand_p in (0.65, 0.55):
        fixed_hit, learned_hit = block_rates(rng, args.rounds, 0.80, cand_p, args.k)
        print(
            f"real drop to p={cand_p:.2f}: fixed catches {fixed_hit:.1%}, "
            f"learned catches {learned_hit:.1%}"
        )


if __name__ == "__main__":
    main()
