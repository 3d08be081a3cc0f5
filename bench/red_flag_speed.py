"""Red-flag checks per trace, this code against an earlier commit's, in the same run. This
code's figure includes the failures told only to the model that a settled trace's error count
takes in, which the same check counts.

Run: .venv/bin/python bench/red_flag_speed.py [--before REF] [--runs 2]  (throwaway SQLite)
The gate scores many trials, and every settled trace is checked once: the checks must stay
cheap. Traces are the shop environment's runs, stored through the transcript and OTLP ingest;
CPU time per trace is printed for both versions, alternating, with the load average.
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from bench.environments.shop import agent, export, tasks, world  # noqa: E402
from metrics import redflags  # noqa: E402
from metrics.told_failures import trace_told_failures  # noqa: E402
from traces.ingest.services import ingest_otlp, ingest_transcript  # noqa: E402
from traces.models import Trace  # noqa: E402
from traces.projects import project_resolve  # noqa: E402

MODULE = "metrics/redflags.py"


def module_at(ref: str):
    """The red-flag module as it was at `ref`, loaded beside the current one."""
    source = subprocess.run(
        ["git", "show", f"{ref}:{MODULE}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "redflags_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("redflags_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def traces_store(per_task: int) -> list[tuple[Trace, list]]:
    base = world.world_create()
    shop_tasks = tasks.tasks_create(base)
    project = project_resolve(named="bench-shop")
    for run in agent.runs_generate(shop_tasks, base, per_task, seed=3):
        ingest_transcript(project, export.transcript_payload(run, "bench", "2.0.0"))
        body = export.otlp_request(run, "bench", "2.0.0", "bench-shop")
        ingest_otlp(body=body, content_type="application/x-protobuf")
    return [(t, list(t.spans.order_by("position", "pk"))) for t in Trace.objects.all()]


def checks_now(trace, spans) -> None:
    """What the checks now do of a settled trace: its red flags, and the failures told only to
    the model that its error count takes in (metrics.redflag_store)."""
    redflags.red_flags_detect(trace, spans)
    trace_told_failures(trace, spans)


def cpu_ms_per_trace(check, traces, rounds: int = 3) -> float:
    started = time.process_time()
    for _ in range(rounds):
        for trace, spans in traces:
            check(trace, spans)
    return (time.process_time() - started) * 1000 / (rounds * len(traces))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="HEAD~1", help="the commit to compare with")
    parser.add_argument("--runs", type=int, default=2, help="runs of each shop task")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    before = module_at(args.before)
    traces = traces_store(args.runs)
    spans = sum(len(s) for _t, s in traces) / len(traces)
    print(
        f"{len(traces)} shop traces, {spans:.1f} spans each; load average {os.getloadavg()[0]:.2f}"
    )
    figures = {"before": [], "now": []}
    for _ in range(3):
        figures["before"].append(cpu_ms_per_trace(before.red_flags_detect, traces))
        figures["now"].append(cpu_ms_per_trace(checks_now, traces))
    best_before, best_now = min(figures["before"]), min(figures["now"])
    print(f"  {args.before:>10}: {best_before:.3f} ms CPU per trace (best of 3)")
    print(f"  {'now':>10}: {best_now:.3f} ms CPU per trace (best of 3)")
    print(
        f"  ratio now/before: {best_now / best_before:.2f}x; load average {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
