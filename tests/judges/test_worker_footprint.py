"""What a judge worker loads at start: the tasks and judging's code, not the topics' scikit-learn
and SciPy (about 120 MiB) nor every view through Django's system checks (about 35 MiB). Checked in
a fresh interpreter, as `celery -A evalsite worker` starts one."""

import json
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

ROOT = Path(__file__).resolve().parents[2]

WORKER_START = """
import json, sys
import django
django.setup()
from evalsite.celery import app
app.loader.import_default_modules()
import judges.tasks, insights.tasks
print(json.dumps({
    "modules": sorted(
        m for m in ("sklearn", "scipy", "mcp", "judges.execution") if m in sys.modules
    ),
    "skip_checks": __import__("os").environ.get("CELERY_SKIP_CHECKS"),
    "tasks": sorted(t for t in app.tasks if t.startswith(("judges.", "insights.tasks.topics"))),
}))
"""


def _worker_start_report() -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "evalsite.settings"}
    env.pop("CELERY_SKIP_CHECKS", None)
    answer = subprocess.run(
        [sys.executable, "-c", WORKER_START],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(answer.stdout.strip().splitlines()[-1])


def test_a_worker_starts_without_topics_libraries_or_system_checks():
    report = _worker_start_report()

    assert report["modules"] == ["judges.execution"]
    assert report["skip_checks"] == "1"
    # The topics tasks are still registered; they import the topics code when they run.
    assert "insights.tasks.topics_build_task" in report["tasks"]
    assert "judges.tasks.judge_passes_task" in report["tasks"]


@pytest.mark.django_db(transaction=True)
def test_a_pass_in_flight_holds_no_database_connection_nor_its_object(
    simulator, tool_rubric, default_config
):
    from django.db import connection, connections

    from judges import execution
    from judges.execution import judgment_execute
    from judges.models import Judgment, JudgmentStatus
    from judges.services import judge_run_start
    from tests.judges import sample_traces

    assert connection.pool is not None  # PostgreSQL with the process's pool, as in production
    held_during_call = []
    provider_call = execution.provider_call

    def call_noting_connections(config, params):
        held_during_call.append(connections.all(initialized_only=True))
        return provider_call(config, params)

    trace = sample_traces.travel_book_ok()
    run = judge_run_start(rubric_version=tool_rubric, config=default_config, traces=[trace])
    first = run.judgments.order_by("pass_index").first()
    with mock.patch.object(execution, "provider_call", call_noting_connections):
        outcome = judgment_execute(first.pk)

    assert outcome.state == "done"
    # While the provider answered, this thread had no connection object at all; the store
    # after the call made a new one from the pool.
    assert held_during_call == [[]]
    assert Judgment.objects.get(pk=first.pk).status == JudgmentStatus.DONE
