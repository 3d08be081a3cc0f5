"""Send the shop's runs through evalsite the way users do, and read back each trial's metrics.

The tasks become a golden dataset version through the JSONL import; the runs arrive through
the HTTP API (transcripts at /api/traces/, OTLP at /v1/traces); each becomes an eval run
scored by `manage.py eval_run_score --no-llm`. Nothing here computes a metric itself.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client

from accounts.models import ApiToken
from accounts.roles import ANNOTATOR, CURATOR
from bench.environments.shop import tools, world
from bench.environments.shop.agent import Run
from bench.environments.shop.export import otlp_request, transcript_payload
from bench.environments.shop.tasks import Task
from golden.evals.services import eval_run_create
from golden.jsonl import dataset_import_jsonl
from golden.models import EvalTrial

PROJECT = "northwind-shop"
WAYS = ("transcript", "otlp")


@dataclass
class Trial:
    """One run as evalsite scored it, beside what the shop says happened."""

    run: Run
    metrics: dict
    passed: bool | None


def _reference_inputs(step) -> dict:
    """The plan's arguments as a curator would write them: the other accepted name of a
    cancellation reason, and the optional confirmation flag, which may be left out."""
    inputs = dict(step.args)
    if step.tool == "cancel_order":
        alias = next(a for a, c in world.REASON_ALIASES.items() if c == inputs["reason"])
        inputs["reason"] = {"any_of": [inputs["reason"], alias]}
    if step.tool in ("update_shipping_address", "schedule_delivery"):
        inputs["notify_customer"] = {"optional": True}
    return inputs


def golden_example(task: Task) -> dict:
    """A task as a golden example: the plan as reference trajectory, the lookups it needs as
    `called_before` rules, and a made-up id declared blocking."""
    reference = []
    for number, step in enumerate(task.plan, start=1):
        row = {
            "step": number,
            "tool": step.tool,
            "inputs": _reference_inputs(step),
            "acceptable_output_fields": [],
        }
        if step.after:
            row["after"] = step.after
        if step.optional:
            row["optional"] = True
        reference.append(row)
    red_flags, seen = [], set()
    for write in task.writes:
        prerequisite = task.prerequisite(write)
        if prerequisite and (write.tool, prerequisite) not in seen:
            seen.add((write.tool, prerequisite))
            red_flags.append(
                {
                    "text": f"{write.tool} before the {prerequisite} lookup it depends on.",
                    "rule": {
                        "rule": "called_before",
                        "tool": write.tool,
                        "prerequisite": prerequisite,
                    },
                }
            )
    red_flags.append(
        {
            "text": "Passes an id that nobody gave and no lookup returned.",
            "rule": {"rule": "generic_flag", "kind": "hallucinated_parameter"},
        }
    )
    return {
        "key": task.key,
        "task": task.turns[0],
        "task_type": task.family,
        "context": {**task.context, "available_tools": tools.tool_definitions()},
        "reference_trajectory": reference,
        "expected_outcome": task.outcome,
        "red_flags": red_flags,
    }


def _client(label: str) -> tuple[Client, object]:
    user, _ = get_user_model().objects.get_or_create(username=f"{label}-bench")
    for role in (ANNOTATOR, CURATOR):
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    _, raw = ApiToken.generate(user, label)
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}"), user


def _post(client: Client, way: str, run: Run, eval_run: str, version: str) -> None:
    if way == "transcript":
        response = client.post(
            "/api/traces/",
            data=json.dumps(transcript_payload(run, eval_run, version)),
            content_type="application/json",
            HTTP_X_EVALSITE_PROJECT=PROJECT,
        )
        expected = 201
    else:
        response = client.post(
            "/v1/traces",
            data=otlp_request(run, eval_run, version, PROJECT),
            content_type="application/x-protobuf",
        )
        expected = 200
    if response.status_code != expected:
        raise RuntimeError(f"{way} ingest refused {run.task.key}: {response.content[:300]!r}")


def evaluate(
    tasks: list[Task], runs: list[Run], *, label: str = "shop", ways=WAYS, version="2.0.0"
) -> dict[str, list[Trial]]:
    """Ingest, score, and pair each trial with its run, per way of sending."""
    client, user = _client(label)
    lines = [json.dumps(golden_example(t)) for t in tasks]
    dataset = dataset_import_jsonl(
        sources=[("shop.jsonl", lines)], user=user, version_name=f"{label}-tasks"
    ).version
    per_task = max(r.trial for r in runs) + 1
    results: dict[str, list[Trial]] = {}
    for way in ways:
        eval_run = eval_run_create(
            name=f"{label}-{way}",
            agent_version=version,
            dataset_version=dataset,
            agent_name="shop-agent",
            trials_per_task=per_task,
            user=user,
        )
        for run in runs:
            _post(client, way, run, eval_run.name, version)
        call_command("eval_run_score", eval_run.name, "--no-llm", stdout=io.StringIO())
        trials = {
            (t.entry.example_key, t.trial_index): t
            for t in EvalTrial.objects.filter(eval_run=eval_run).select_related("entry")
        }
        results[way] = []
        for run in runs:
            trial = trials.get((run.task.key, run.trial))
            if trial is None:
                raise RuntimeError(f"{way}: no trial for {run.task.key} #{run.trial}")
            results[way].append(Trial(run, trial.metrics, trial.passed))
    return results
