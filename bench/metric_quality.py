"""Do evalsite's trajectory metrics agree with what really happened?

Run: .venv/bin/python bench/metric_quality.py [--per-task 5] [--seed 3]  (throwaway SQLite)

The shop environment (bench/environments/shop) runs its scripted agent over its 49 tasks;
the shop's own database decides each run's reward. Every run is sent to evalsite twice, as
an Anthropic transcript and as OTLP spans, scored through the eval-run path, and compared:
ROC AUC against reward for each metric and the pass rule, red flags on successful runs, and
per injected failure kind how often the pass rule and the red flags caught it.
Targets: pass rule AUC >= 0.95; red flags on <= 10% of successful runs; every failure kind
caught by at least one signal.
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

from bench.environments.figures import figures_compute, figures_text  # noqa: E402
from bench.environments.shop import agent, pipeline, tasks, world  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=5, help="runs of each task")
    parser.add_argument("--seed", type=int, default=3, help="the agent policy's seed")
    args = parser.parse_args()
    setup_test_environment()
    call_command("migrate", verbosity=0)
    base = world.world_create()
    shop_tasks = tasks.tasks_create(base)
    runs = agent.runs_generate(shop_tasks, base, args.per_task, args.seed)
    started = time.perf_counter()
    results = pipeline.evaluate(shop_tasks, runs)
    elapsed = time.perf_counter() - started
    print(
        f"{len(shop_tasks)} tasks, {len(runs)} runs (seed {args.seed}), "
        f"{sum(r.reward for r in runs)} successful; ingested and scored both ways in "
        f"{elapsed:.1f}s, load average {os.getloadavg()[0]:.2f}"
    )
    for way, trials in results.items():
        print(figures_text(figures_compute(trials), way))


if __name__ == "__main__":
    main()
