"""The demo's eval runs: a baseline and a candidate the gate blocks, so the gate has a story.

The candidate cancels the right order by accident: it skips the order lookup and guesses the
id. The outcome is still correct, so only the trajectory metrics and the red flag show it.
"""

import hashlib
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from evalsite_checks.matchers import IN_ORDER

from demo.golden import DEMO_EXAMPLES, DEMO_ORDERS
from golden.evals.scoring import ScoringOptions, eval_run_score
from golden.evals.services import eval_run_create
from golden.models import DatasetVersion, EvalRun, GoldenExample
from golden.services import dataset_version_create
from traces.ingest.services import ingest_span_tree
from traces.models import Project

DEMO_GATE_VERSION = "demo-gate-v1"
DEMO_MATCHER = IN_ORDER
# Eval traces live apart from the demo's live traffic, as a CI project's would.
DEMO_EVAL_PROJECT = ("demo-evals", "Demo eval runs")
DEMO_BASELINE_RUN, DEMO_CANDIDATE_RUN = "demo-baseline", "demo-candidate"
AGENT = "support-agent"
# The demo examples an agent can run end to end without a human in the loop.
CANCEL_TASK, FLIGHT_TASK = DEMO_EXAMPLES[0]["task"], DEMO_EXAMPLES[2]["task"]
FLIGHTS = {
    "flights": [
        {"flight_id": "TP538", "price": 96.0, "departs": "2026-03-14T07:05:00Z"},
        {"flight_id": "LH1173", "price": 142.5, "departs": "2026-03-14T10:40:00Z"},
    ]
}


def _calls(task: str, careful: bool) -> tuple[list[dict], str, dict]:
    """(tool calls, final answer, context) of one run of the agent on a task."""
    if task == CANCEL_TASK:
        cancel = {
            "name": "cancel_order",
            "input": {"order_id": "A1042"},
            "output": {"order_id": "A1042", "cancelled": True, "refund_days": 5},
        }
        lookup = {
            "name": "get_recent_orders",
            "input": {"customer_id": "C-77"},
            "output": DEMO_ORDERS,
        }
        answer = "Your latest order A1042 is cancelled; the refund reaches your card in 5 days."
        # The candidate guesses the id without looking: right this time, by accident.
        return ([lookup, cancel] if careful else [cancel]), answer, {"customer_id": "C-77"}
    search = {
        "name": "search_flights",
        "input": {"origin": "LIS", "destination": "BER", "date": "2026-03-14", "adults": 1},
        "output": FLIGHTS,
    }
    book = {
        "name": "book_flight",
        "input": {"flight_id": "TP538", "traveller_id": "T-5521"},
        "output": {"confirmation": "K7Q2ZD", "status": "confirmed"},
    }
    answer = "Booked on TP538, the cheapest flight (96.00), confirmation K7Q2ZD."
    context = {"traveller_id": "T-5521", "origin": "LIS", "destination": "BER"}
    return [search, book], answer, context


def _payload(run: EvalRun, key: str, task: str, careful: bool, started) -> dict:
    calls, answer, context = _calls(task, careful)
    at = [started + timedelta(seconds=n) for n in range(len(calls) + 2)]
    return {
        "trace_id": hashlib.sha256(f"{run.name}/{key}".encode()).hexdigest()[:32],
        "name": AGENT,
        "type": "agent",
        "task": task,
        "final_answer": answer,
        "agent_name": AGENT,
        "agent_version": run.agent_version,
        "context": {
            **context,
            "evalsite.eval_run": run.name,
            "evalsite.example_key": key,
            "evalsite.trial": 0,
        },
        "input": task,
        "output": answer,
        "start_time": at[0].isoformat(),
        "end_time": at[-1].isoformat(),
        "children": [
            {
                "name": call["name"],
                "type": "tool",
                "input": call["input"],
                "output": call["output"],
                "start_time": at[n].isoformat(),
                "end_time": (at[n] + timedelta(milliseconds=400)).isoformat(),
            }
            for n, call in enumerate(calls, start=1)
        ],
    }


def _gate_version(user) -> DatasetVersion:
    found = DatasetVersion.objects.filter(name=DEMO_GATE_VERSION).first()
    if found:
        return found
    examples = GoldenExample.objects.filter(task__in=[CANCEL_TASK, FLIGHT_TASK], held_out=False)
    return dataset_version_create(
        name=DEMO_GATE_VERSION,
        note="The demo tasks an agent can finish alone; the demo's eval runs use it.",
        user=user,
        examples=examples,
    )


@transaction.atomic
def demo_eval_runs_ensure(user=None) -> list[EvalRun]:
    """Record and score the two demo runs once; later loads return them unchanged."""
    slug, name = DEMO_EVAL_PROJECT
    project, _ = Project.objects.get_or_create(slug=slug, defaults={"name": name})
    existing = list(EvalRun.objects.filter(name__in=[DEMO_BASELINE_RUN, DEMO_CANDIDATE_RUN]))
    if existing:
        return existing
    dataset = _gate_version(user)
    entries = list(dataset.entries.values_list("example_key", "content__task"))
    started = timezone.now() - timedelta(hours=1)
    runs = []
    for name, version, careful in (
        (DEMO_BASELINE_RUN, "1.4.0", True),
        (DEMO_CANDIDATE_RUN, "1.5.0", False),
    ):
        run = eval_run_create(
            name=name, agent_name=AGENT, agent_version=version, dataset_version=dataset, user=user
        )
        for key, task in entries:
            ingest_span_tree(project, _payload(run, key, task, careful, started))
        # In order: the story is a skipped lookup, a read, which the default state matcher
        # leaves out of tool selection (it compares what a run changed).
        eval_run_score(run, ScoringOptions(matcher=DEMO_MATCHER))
        runs.append(run)
        started += timedelta(minutes=10)
    return runs
