"""Do evalsite's trajectory metrics agree with what really happened?

Run: .venv/bin/python bench/metric_quality.py [--per-task 5] [--seed 3] [--held-back-seed 2027]
(throwaway SQLite)

Two labelled environments of our own (bench/environments):
- the shop: a scripted agent over 49 tasks; the shop's own database decides each run's reward.
  Every run is sent to evalsite twice, as an Anthropic transcript and as OTLP spans, scored
  through the eval-run path, and compared: ROC AUC against reward for each metric and the
  pass rule, red flags on successful and failed runs, and per injected failure kind how often
  the pass rule and the red flags caught it.
- calls: function-calling tasks with answer keys and runs labelled right or wrong by kind,
  scored with the default matcher and the pass rule, and checked by the red flags.

`--seed` is the seed rules were developed against. `--held-back-seed` was never looked at
while choosing a rule; its figures are printed apart, and the targets are checked on them:
default matcher >= 95% of wrong calls judged wrong and of right calls judged right for each
kind; pass rule AUC >= 0.96; red flags on <= 5% of successful runs and on >= 3x that share of
failed runs; every injected failure kind caught by at least one signal.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
# Scoring is what is measured: traces are judged by nobody while they arrive.
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "false")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from bench.environments.calls.cases import tasks_draw  # noqa: E402
from bench.environments.calls.evaluate import calls_judge, calls_targets, calls_text  # noqa: E402
from bench.environments.figures import figures_compute, figures_text  # noqa: E402
from bench.environments.shop import agent, pipeline, tasks, world  # noqa: E402

HELD_BACK_SEED = 2027


def shop_run(shop_tasks, base, per_task: int, seed: int):
    runs = agent.runs_generate(shop_tasks, base, per_task, seed)
    started = time.perf_counter()
    results = pipeline.evaluate(shop_tasks, runs, label=f"shop-{seed}")
    elapsed = time.perf_counter() - started
    print(
        f"\n#### shop, seed {seed}: {len(shop_tasks)} tasks, {len(runs)} runs, "
        f"{sum(r.reward for r in runs)} successful; ingested and scored both ways in "
        f"{elapsed:.1f}s, load average {os.getloadavg()[0]:.2f}"
    )
    figures = {way: figures_compute(trials) for way, trials in results.items()}
    for way, computed in figures.items():
        print(figures_text(computed, way))
    return figures


def shop_targets(figures) -> list[str]:
    lines = []
    for way, f in figures.items():
        auc = f.auc["pass rule"][0] or 0.0
        ratio = f.flagged_failures / f.flagged_successes if f.flagged_successes else float("inf")
        uncaught = [
            k for k, (_n, _lost, failed, flagged) in f.failures.items() if not (failed or flagged)
        ]
        lines += [
            f"  shop {way}: pass rule AUC {auc:.3f} (>= 0.96: {'yes' if auc >= 0.96 else 'NO'})",
            f"  shop {way}: red flags on successes {f.flagged_successes:.1%} (<= 5%: "
            f"{'yes' if f.flagged_successes <= 0.05 else 'NO'}), on failures "
            f"{f.flagged_failures:.1%} ({ratio:.1f}x; >= 3x: {'yes' if ratio >= 3 else 'NO'})",
            f"  shop {way}: failure kinds no signal caught: {', '.join(uncaught) or 'none'}",
        ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=5, help="runs of each shop task")
    parser.add_argument("--seed", type=int, default=3, help="the seed rules were developed on")
    parser.add_argument(
        "--held-back-seed", type=int, default=HELD_BACK_SEED, help="the seed kept out of tuning"
    )
    args = parser.parse_args()
    setup_test_environment()
    call_command("migrate", verbosity=0)
    base = world.world_create()
    shop_tasks = tasks.tasks_create(base)
    print(calls_text(calls_judge(tasks_draw(args.seed)), f"calls, seed {args.seed}"))
    shop_run(shop_tasks, base, args.per_task, args.seed)
    print(f"\n######## held back: seed {args.held_back_seed}, never looked at while tuning")
    held_calls = calls_judge(tasks_draw(args.held_back_seed))
    print(calls_text(held_calls, f"calls, held-back seed {args.held_back_seed}"))
    held_shop = shop_run(shop_tasks, base, args.per_task, args.held_back_seed)
    print(f"\ntargets on the held-back seed {args.held_back_seed}:")
    print("\n".join(calls_targets(held_calls) + shop_targets(held_shop)))


if __name__ == "__main__":
    main()
