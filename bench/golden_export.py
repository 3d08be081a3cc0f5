"""Golden dataset benchmark: streamed JSONL export memory, import time, near-duplicate check.

Run: .venv/bin/python bench/golden_export.py  (a throwaway SQLite database, or an empty one
named by BENCH_DATABASE_URL)
Prints the peak Python memory of streaming a version of N and 10N examples and their ratio
(constant memory means a ratio near 1), against building the whole file in memory.
"""

import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
# A throwaway SQLite file unless BENCH_DATABASE_URL names an empty database (e.g. PostgreSQL).
os.environ["DATABASE_URL"] = os.environ.get(
    "BENCH_DATABASE_URL", f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
)

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.models import Group  # noqa: E402
from django.core.management import call_command  # noqa: E402

from golden.duplicates import example_near_duplicates  # noqa: E402
from golden.jsonl import dataset_import_jsonl, dataset_version_export_lines  # noqa: E402
from golden.models import GoldenExample  # noqa: E402
from golden.services import dataset_version_create  # noqa: E402

TOOLS = ["get_recent_orders", "cancel_order", "search_flights", "book_flight", "run_tests"]


def make_examples(count: int, start: int) -> None:
    rows = []
    for n in range(start, start + count):
        steps = [
            {
                "step": i + 1,
                "tool": TOOLS[(n + i) % len(TOOLS)],
                "inputs": {
                    "id": "<from_context>" if i == 0 else f"<from_step_{i}_output>",
                    "note": f"customer {n} asked about order A{n:05d} " * 3,
                },
                "acceptable_output_fields": ["status", "items"],
            }
            for i in range(4)
        ]
        rows.append(
            GoldenExample(
                task=f"Customer C-{n} wants order A{n:05d} cancelled and refunded to card {n % 97}",
                task_type=["order_cancellation", "flight_booking", "code_fix"][n % 3],
                reference_trajectory=steps,
                failure_tags=["wrong_order"] if n % 5 == 0 else [],
                held_out=n % 5 == 0,
            )
        )
    GoldenExample.objects.bulk_create(rows, batch_size=500)


def measure_export(user, version) -> tuple[float, int, float]:
    tracemalloc.start()
    started = time.perf_counter()
    size = 0
    for part in ("open", "held_out"):
        for line in dataset_version_export_lines(user, version, part):
            size += len(line)
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6, size, elapsed


def measure_materialized(user, version) -> float:
    tracemalloc.start()
    text = "".join(
        line
        for part in ("open", "held_out")
        for line in list(dataset_version_export_lines(user, version, part))
    )
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del text
    return peak / 1e6


def main() -> None:
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create(username="bench-curator")
    user.groups.add(Group.objects.get_or_create(name="curator")[0])
    small_n, large_n = 1000, 10000
    make_examples(small_n, 0)
    small = dataset_version_create(name="small", user=user)
    make_examples(large_n - small_n, small_n)
    large = dataset_version_create(name="large", user=user)

    small_peak, small_bytes, _ = measure_export(user, small)
    large_peak, large_bytes, large_secs = measure_export(user, large)
    whole_peak = measure_materialized(user, large)
    started = time.perf_counter()
    for part in ("open", "held_out"):
        for _line in dataset_version_export_lines(user, large, part):
            pass
    large_secs = time.perf_counter() - started
    print(
        f"export {small_n:>6} examples: {small_bytes / 1e6:6.1f} MB written, "
        f"peak {small_peak:5.1f} MB"
    )
    print(
        f"export {large_n:>6} examples: {large_bytes / 1e6:6.1f} MB written, "
        f"peak {large_peak:5.1f} MB, {large_n / large_secs:,.0f} lines/s"
    )
    print(f"peak ratio 10x data / 1x data (streamed): {large_peak / small_peak:.2f}")
    print(f"peak ratio whole file in memory / streamed, {large_n}: {whole_peak / large_peak:.1f}x")

    lines = list(dataset_version_export_lines(user, large, "open"))
    GoldenExample.objects.all().delete()
    started = time.perf_counter()
    result = dataset_import_jsonl(sources=[("open", lines)], user=user, version_name="again")
    print(
        f"import {len(lines)} lines: {time.perf_counter() - started:.2f} s "
        f"({result.created} created)"
    )

    started = time.perf_counter()
    for n in range(20):
        example_near_duplicates(
            task=f"Customer C-{n} wants order A{n:05d} cancelled and refunded to card 3",
            task_type="order_cancellation",
        )
    per_check = (time.perf_counter() - started) / 20
    count = GoldenExample.objects.filter(task_type="order_cancellation").count()
    print(f"near-duplicate check against {count} examples of a type: {per_check * 1000:.0f} ms")


if __name__ == "__main__":
    main()
