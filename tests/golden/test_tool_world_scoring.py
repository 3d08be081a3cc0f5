"""Scoring a tool-world run: each variant a task, what was injected in the trial report, the
fault-aware red flags, and the gate's per-fault-kind comparison."""

import pytest

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
