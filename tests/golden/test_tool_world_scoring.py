"""Scoring a tool-world run: each variant a task, what was injected in the trial report, the
fault-aware red flags, and the gate's per-fault-kind comparison."""

import re

import pytest
from django.urls import reverse

from accounts.roles import CURATOR
from golden.evals.gate import FIXED, GateConfig, gate_evaluate
from golden.evals.scoring import ScoringOptions, eval_run_score
from golden.models import EvalTrial, ToolWorldCall
from golden.worlds.serving import tool_world_call
from tests.factories import ProjectFactory, UserFactory
from tests.golden.world_agents import careful, idle, inventing, run_agent
from tests.golden.world_builders import world_example, world_run
from traces.ingest.services import ingest_span_tree

pytestmark = pytest.mark.django_db
# Stands in for the LLM behaviour judge: these tests are about the deterministic rules.
SHOWN = ScoringOptions(behavior_judge=lambda trace, expected: (1.0, "shown"))


def _service_call(handout):
    trial = EvalTrial.objects.select_related("entry").get(pk=handout["trial_id"])

    def call(tool, arguments):
        answer = tool_world_call(trial, tool, arguments, transport=ToolWorldCall.Transport.HTTP)
        return answer.status, answer.text

    return call


def _run(user, name, agent_for, project, examples=None):
    run, handouts = world_run(user, name=name, version=f"{name}-v", examples=examples)
    for handout in handouts:
        agent = agent_for(handout)
        if agent is not None:
            ingest_span_tree(project, run_agent(agent, _service_call(handout), handout))
    return run


@pytest.fixture
def curator():
    return UserFactory(roles=[CURATOR])


@pytest.fixture
def examples(curator):
    return [world_example(curator)]


def test_each_variant_is_a_task_and_the_report_says_what_was_injected(curator, examples):
    project = ProjectFactory()
    agents = {"status_disagrees": idle}
    run = _run(curator, "careful", lambda h: agents.get(h["variant"], careful), project, examples)
    metrics = eval_run_score(run, SHOWN)
    key = examples[0].key
    # the base world and each variant are tasks of their own
    assert set(metrics["per_task"]) == {
        key,
        *(f"{key}@{v}" for v in ("no_orders", "lookup_down", "cancel_timeout", "garbled_orders",
                                 "status_disagrees")),
    }  # fmt: skip
    assert metrics["overall"]["tasks"] == 6 and metrics["overall"]["missing_trials"] == 0
    by_variant = {t.variant: t for t in run.trials.all()}
    # the trial says which faults fired, and which never did because the agent did not call
    lookup = by_variant["lookup_down"].metrics["tool_world"]
    assert lookup["faults_fired"] == [{"sequence": 1, "tool": "get_recent_orders", "kind": "error"}]
    assert lookup["calls"] == 3 and lookup["faults_not_fired"] == []
    never = by_variant["status_disagrees"].metrics["tool_world"]
    assert never["calls"] == 0 and never["faults_not_fired"] == [
        {"tool": "get_order_status", "kind": "contradictory"}
    ]
    # a careful agent raises no fault-aware flag and passes every task
    kinds = {f["kind"] for t in run.trials.all() for f in t.metrics["red_flags"]}
    assert not kinds & {"invented_after_fault", "success_after_fault"}
    assert all(t.passed for t in run.trials.all()), [
        (t.variant, t.metrics["fail_reasons"]) for t in run.trials.all() if not t.passed
    ]
    assert metrics["overall"]["fault_kinds"]["timeout"] == {
        "trials": 1,
        "passed": 1,
        "failed": 0,
        "undecided": 0,
        "pass_rate": 1.0,
    }


def test_an_invented_id_after_an_injected_empty_result_fails_and_the_gate_blocks(curator, examples):
    project = ProjectFactory()
    baseline = _run(curator, "base", lambda h: careful, project, examples)
    candidate = _run(curator, "cand", lambda h: inventing, project, examples)
    eval_run_score(baseline, SHOWN)
    eval_run_score(candidate, SHOWN)
    no_orders = candidate.trials.get(variant="no_orders")
    flags = {f["kind"]: f for f in no_orders.metrics["red_flags"]}
    assert "A1043" in flags["invented_after_fault"]["detail"]
    assert flags["invented_after_fault"]["span_id"]  # names the agent's cancel span
    assert "success_after_fault" in flags
    assert no_orders.passed is False
    assert any(
        r.startswith("red flag invented_after_fault") for r in no_orders.metrics["fail_reasons"]
    )
    # the base world's trial of the same agent is not flagged: nothing was injected
    assert candidate.trials.get(variant="").passed is True
    report = gate_evaluate(baseline, candidate, GateConfig(mode=FIXED))
    assert report["decision"] == "block" and "red_flag_rate" in report["blocked_by"]
    empty = report["fault_kinds"]["empty"]
    assert empty["baseline"]["passed"] == 1 and empty["candidate"]["passed"] == 0
    assert empty["pass_rate_change"] == -1.0
    failed = {(t["variant"], t["trial"]) for t in report["candidate_trials"]["failed"]}
    assert ("no_orders", 0) in failed


def test_the_compare_page_shows_each_fault_kind_and_what_each_trial_met(client, curator, examples):
    # given a careful baseline and a candidate that invents an id after the empty lookup
    project = ProjectFactory()
    baseline = _run(curator, "base", lambda h: careful, project, examples)
    candidate = _run(curator, "cand", lambda h: inventing, project, examples)
    eval_run_score(baseline, SHOWN)
    eval_run_score(candidate, SHOWN)
    client.force_login(curator)
    # when the curator compares them
    response = client.get(
        reverse("golden:eval_run_compare"),
        {"baseline": baseline.pk, "candidate": candidate.pk},
    )
    # then the gate's fault kinds are a table of their own, baseline beside candidate
    assert response.status_code == 200
    html = response.content.decode()
    empty = _text(_element(html, 'id="fault-empty"', "</tr>"))
    assert "1 of 1 passed" in empty and "0 of 1 passed, 1 failed" in empty and "-1.00" in empty
    # and each variant is a task row of its own, with the trials of that variant only
    key = examples[0].key
    tasks = {task["key"]: task for task in response.context["comparison"]["tasks"]}
    assert tasks[f"{key}@no_orders"]["variant"] == "no_orders"
    assert tasks[f"{key}@no_orders"]["fault_kinds"] == ["empty"]
    for variant in ("", "no_orders", "lookup_down"):
        task = tasks[f"{key}@{variant}" if variant else key]
        expected = candidate.trials.get(variant=variant).trace_id
        assert [t["trace_id"] for t in task["candidate_traces"]] == [expected]
    row = _element(html, f'data-key="{key}@no_orders"', "</tr>")
    assert "variant <code>no_orders</code>" in row
    assert '<span class="badge warn">empty</span>' in row
    # and the failed trial says what was injected before the red flags that followed
    reason = _text(_element(row, 'class="trial-reason"', "</div>"))
    assert "Injected: empty get_recent_orders at call 1" in reason
    assert "invented_after_fault" in reason
    # and the base world's row has no variant and nothing injected
    base_row = _element(html, f'data-key="{key}"', "</tr>")
    assert "task-variant" not in base_row and "Injected" not in base_row


def _element(html: str, start: str, end: str) -> str:
    part = html[html.index(start) :]
    return part[: part.index(end)]


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split()).replace(" ,", ",")
