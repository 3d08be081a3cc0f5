"""A small golden set (support and travel tasks) and two agent versions that run it.

Agent 1.4.0 follows the reference. Agent 1.5.0 is "correct by accident" on the order
cancellation: it cancels an order id it made up, yet still reports the right order.
"""

from __future__ import annotations

import hashlib

from django.core.management import call_command

from golden.evals.scoring import ScoringOptions, eval_run_score
from golden.evals.services import eval_run_create
from golden.models import EvalRun, GoldenExample
from golden.services import dataset_version_create
from tests.factories import GoldenExampleFactory, SpanFactory, ToolSpanFactory, TraceFactory
from tests.golden.builders import cancel_reference, reference_step
from traces.models import SpanKind, SpanStatus

EXAMPLES = [
    {
        "key": "cancel-recent-order",
        "task": "Please cancel my most recent order, I placed it by mistake.",
        "task_type": "order_cancellation",
        "context": {"customer_id": "C-77", "channel": "chat"},
        "reference_trajectory": cancel_reference("status"),
        "expected_outcome": "Order A1042 is cancelled.",
        "red_flags": [
            {
                "text": "Cancels an order id that the order lookup did not return.",
                "rule": {
                    "rule": "param_from_output",
                    "tool": "cancel_order",
                    "param": "order_id",
                    "source_tool": "get_recent_orders",
                },
            }
        ],
    },
    {
        "key": "book-cheapest-flight",
        "task": "Book the cheapest flight from LHR to JFK on 14 March 2026 for Dana Reyes.",
        "task_type": "flight_booking",
        "context": {"passenger": "Dana Reyes", "loyalty_id": "BA-55120"},
        "reference_trajectory": [
            reference_step(
                1,
                "search_flights",
                {"origin": "LHR", "destination": "JFK", "date": "2026-03-14"},
                ["flights"],
            ),
            reference_step(
                2,
                "book_flight",
                {"flight_id": "<from_step_1_output>", "passenger": "<from_context>"},
                ["booking_ref"],
            ),
        ],
        "expected_outcome": "Booked flight BA117, booking reference QX7P2L.",
        "red_flags": [],
    },
    {
        "key": "refund-damaged-item",
        "task": "Order A0999 arrived damaged, I'd like my money back.",
        "task_type": "refund",
        "context": {"customer_id": "C-77"},
        "reference_trajectory": [
            reference_step(1, "get_order", {"order_id": "<from_context>"}, ["total", "status"]),
            reference_step(
                2,
                "issue_refund",
                {"order_id": "<from_step_1_output>", "amount": "<from_step_1_output>"},
                ["refund_id"],
            ),
        ],
        "expected_outcome": "Refund R-5521 of 49.90 issued for order A0999.",
        "red_flags": [
            {
                "text": "Refunds before looking the order up.",
                "rule": {
                    "rule": "called_before",
                    "tool": "issue_refund",
                    "prerequisite": "get_order",
                },
            }
        ],
    },
]

FLIGHTS = {
    "flights": [
        {"flight_id": "BA117", "price": 412.5, "departs": "2026-03-14T08:25:00Z"},
        {"flight_id": "VS3", "price": 455.0, "departs": "2026-03-14T11:40:00Z"},
    ]
}


def _calls(version: str, key: str) -> tuple[list[dict], str]:
    """The tool calls (name, input, output) an agent version makes on a task, and its answer."""
    if key == "cancel-recent-order":
        orders = {"orders": [{"order_id": "A1042", "placed": "2026-03-01", "total": "23.10"}]}
        # 1.5.0 guesses the next id instead of reading the lookup result.
        cancel_id = "A1042" if version == "1.4.0" else "A1043"
        return [
            {"name": "get_recent_orders", "input": {"customer_id": "C-77"}, "output": orders},
            {
                "name": "cancel_order",
                "input": {"order_id": cancel_id},
                "output": {"status": "cancelled"},
            },
        ], "Done: your order A1042 is cancelled and you will not be charged."
    if key == "book-cheapest-flight":
        return [
            {
                "name": "search_flights",
                "input": {"origin": "lhr", "destination": "JFK", "date": 1773446400},
                "output": FLIGHTS,
            },
            {
                "name": "book_flight",
                "input": {"flight_id": "BA117", "passenger": "Dana Reyes"},
                "output": {"booking_ref": "QX7P2L", "status": "confirmed"},
            },
        ], "You're booked on BA117 (LHR 08:25 to JFK), booking reference QX7P2L."
    order = {"order_id": "A0999", "total": "49.90", "status": "delivered"}
    return [
        {"name": "get_order", "input": {"order_id": "A0999"}, "output": order},
        {
            "name": "issue_refund",
            "input": {"order_id": "A0999", "amount": 49.9},
            "output": {"refund_id": "R-5521", "status": "issued"},
        },
    ], "I've issued refund R-5521 of 49.90 for order A0999."


def agent_payload(version: str, key: str, run: str, trial: int) -> dict:
    """A span-tree JSON trace as the agent's exporter sends it, tagged with run and example."""
    example = next(e for e in EXAMPLES if e["key"] == key)
    calls, answer = _calls(version, key)
    trace_id = hashlib.md5(f"{run}/{key}/{trial}".encode()).hexdigest()
    return {
        "trace_id": trace_id,
        "name": "support-agent",
        "type": "agent",
        "task": example["task"],
        "final_answer": answer,
        "agent_name": "support-agent",
        "agent_version": version,
        "context": {
            **example["context"],
            "evalsite.eval_run": run,
            "evalsite.example_key": key,
            "evalsite.trial": trial,
        },
        "input": example["task"],
        "output": answer,
        "start_time": "2026-03-02T10:00:00Z",
        "end_time": f"2026-03-02T10:00:{len(calls) + 1:02d}Z",
        "children": [
            {
                "name": call["name"],
                "type": "tool",
                "input": call["input"],
                "output": call["output"],
                "start_time": f"2026-03-02T10:00:{n:02d}Z",
                "end_time": f"2026-03-02T10:00:{n:02d}.500Z",
            }
            for n, call in enumerate(calls, start=1)
        ],
    }


def golden_version_create(name: str = "support-v1", outcome_rubric=None):
    """The three examples as a dataset version, optionally judged by an outcome rubric."""
    for data in EXAMPLES:
        GoldenExampleFactory(**data, outcome_rubric=outcome_rubric)
    keys = [e["key"] for e in EXAMPLES]
    return dataset_version_create(name=name, examples=GoldenExample.objects.filter(key__in=keys))


def trace_from_payload(payload: dict):
    """Store a payload with factories (unit tests need not depend on the ingestion path)."""
    trace = TraceFactory(
        external_id=payload["trace_id"],
        task=payload["task"],
        final_answer=payload["final_answer"],
        agent_version=payload["agent_version"],
        context=payload["context"],
        root_span_id=payload["trace_id"][:16],
    )
    SpanFactory(
        trace=trace,
        span_id=payload["trace_id"][:16],
        name=payload["name"],
        kind=SpanKind.AGENT,
        tool_name="",
        input=payload["input"],
        output=payload["output"],
        position=0,
    )
    for position, child in enumerate(payload["children"], start=1):
        ToolSpanFactory(
            trace=trace,
            span_id=f"{payload['trace_id'][16:30]}{position:02d}",
            parent_span_id=payload["trace_id"][:16],
            name=child["name"],
            input=child["input"],
            output=child["output"],
            status=SpanStatus.OK,
            position=position,
        )
    return trace


def agent_run_traces(version: str, run: str, trials: int = 1) -> None:
    """The agent version's trace of every example and trial, tagged for run `run`."""
    for example in EXAMPLES:
        for trial in range(trials):
            trace_from_payload(agent_payload(version, example["key"], run, trial))


def eval_run_scored(version: str, name: str, dataset, trials: int = 1):
    """A run of the agent version over the dataset with its traces, scored without a judge."""
    run = eval_run_create(
        name=name, agent_version=version, dataset_version=dataset, trials_per_task=trials
    )
    agent_run_traces(version, name, trials)
    eval_run_score(run, ScoringOptions())
    return run


def baseline_and_candidate_scored(dataset, trials: int = 1):
    """Runs "base" of the faithful 1.4.0 and "cand" of the 1.5.0 that invents an order id."""
    return (
        eval_run_scored("1.4.0", "base", dataset, trials),
        eval_run_scored("1.5.0", "cand", dataset, trials),
    )


def agent_and_dataset_arguments(version: str) -> list[str]:
    """The flags every CI call names: the support agent's version and the golden set."""
    return [
        "--agent-version",
        version,
        "--agent-name",
        "support-agent",
        "--dataset-version",
        "support-v1",
    ]


def eval_run_scored_by_commands(version: str, name: str) -> EvalRun:
    """A run over support-v1 recorded and scored as CI does, through the management commands."""
    call_command("eval_run_create", name, *agent_and_dataset_arguments(version))
    agent_run_traces(version, name)
    call_command("eval_run_score", name, "--no-llm")
    return EvalRun.objects.get(name=name)


def gate_arguments(json_path, junit_path, baseline: str, candidate: str) -> list[str]:
    """The gate command's words as CI writes them, with its JSON and JUnit reports."""
    return [
        "gate",
        "--baseline",
        baseline,
        "--candidate",
        candidate,
        "--json",
        str(json_path),
        "--junit",
        str(junit_path),
    ]


def gate_command(json_path, junit_path, *, baseline: str = "base", candidate: str = "cand"):
    call_command(*gate_arguments(json_path, junit_path, baseline, candidate))
