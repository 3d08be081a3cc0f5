"""Eval scoring benchmark: time and queries per trial as a run grows.

Run: .venv/bin/python bench/eval_scoring.py  (uses a throwaway SQLite database)
Scores runs of the three-task support/travel golden set at k=5 and k=25 trials per task and
prints milliseconds and database queries per trial, and the ratio between the two sizes
(flat per-trial cost means a ratio near 1).
"""

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from golden.evals.scoring import ScoringOptions, eval_run_score  # noqa: E402
from golden.evals.services import eval_run_create  # noqa: E402
from tests.evals.golden_set import (  # noqa: E402
    EXAMPLES,
    agent_payload,
    golden_version_create,
    trace_from_payload,
)


def scored_run(dataset, name: str, version: str, trials: int) -> tuple[float, float, int]:
    run = eval_run_create(
        name=name, agent_version=version, dataset_version=dataset, trials_per_task=trials
    )
    for example in EXAMPLES:
        for trial in range(trials):
            trace_from_payload(agent_payload(version, example["key"], name, trial))
    started = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        metrics = eval_run_score(run, ScoringOptions())
    elapsed = time.perf_counter() - started
    count = metrics["overall"]["trials"]
    return elapsed * 1000 / count, len(queries) / count, count


def main() -> None:
    call_command("migrate", verbosity=0)
    dataset = golden_version_create()
    rows = []
    for trials in (5, 25):
        ms, queries, count = scored_run(dataset, f"bench-{trials}", "1.5.0", trials)
        rows.append((ms, queries))
        print(f"{count:4d} trials: {ms:6.2f} ms/trial, {queries:5.1f} queries/trial")
    print(
        f"per-trial ratio large/small: time {rows[1][0] / rows[0][0]:.2f}x, "
        f"queries {rows[1][1] / rows[0][1]:.2f}x"
    )


if __name__ == "__main__":
    main()
