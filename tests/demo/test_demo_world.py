"""The demo agent runs the demo's tool world over MCP against a live server, twice (1.4.0, then
1.5.0), and the gate blocks 1.5.0 for inventing an order id after the injected empty lookup."""

import socket
from concurrent.futures import ThreadPoolExecutor
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.roles import CURATOR
from demo.golden import golden_demo_ensure
from demo.simulator.server import start_simulator
from demo.world_runs import DEMO_WORLD_VERSION, demo_world_runs, demo_world_runs_ensure
from golden.evals.gate import gate_evaluate
from golden.models import EvalRun, EvalTrial, ToolWorldCall
from tests.built_in_rows import built_in_rubrics_seed
from tests.factories import UserFactory

# The live server sees only committed rows; the fixture seeds the built-in rubrics a flush took.
pytestmark = pytest.mark.django_db(transaction=True)


def _in_own_thread(function, *args, **kwargs):
    """The agent's event loop on a thread of its own, as `serve --demo` runs it: a loop another
    test left in this thread must not stop it from starting."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args, **kwargs).result()


@pytest.fixture
def demo_golden(settings):
    """The demo's golden examples, and the simulated judge `serve --demo` starts beside them."""
    built_in_rubrics_seed()  # the "Expected behavior" rubric judges the variants
    simulator = start_simulator()
    settings.ANTHROPIC_BASE_URL = simulator.base_url
    settings.JUDGE_SIMULATED = True
    golden_demo_ensure(user=UserFactory(username="cora", roles=[CURATOR]))
    yield
    simulator.stop()


def test_the_demo_agent_runs_the_world_over_mcp_and_the_gate_blocks_the_guess(
    live_server, demo_golden
):
    # when the demo agent runs against the served worlds
    baseline, candidate = _in_own_thread(demo_world_runs_ensure, live_server.url)
    # then each run has the example's base world and its two fault variants, one trial each,
    # every trial with its trace, and every call went over MCP
    assert baseline.dataset_version.name == DEMO_WORLD_VERSION
    for run in (baseline, candidate):
        assert sorted(run.trials.values_list("variant", flat=True)) == [
            "",
            "no_orders",
            "orders_down",
        ]
        assert not run.trials.filter(trace__isnull=True).exists()
        assert not run.trials.exclude(tool_token_hash="").exists()  # the worlds were closed
    transports = set(ToolWorldCall.objects.values_list("transport", flat=True))
    assert transports == {"mcp"}
    # the orders service failed on both lookups of the error variant: one try and one retry
    down = baseline.trials.get(variant="orders_down").metrics["tool_world"]
    assert [f["kind"] for f in down["faults_fired"]] == ["error", "error"]
    # 1.4.0 cancels the recorded order in the base world, and the judge finds it behaved as
    # each variant expects: it admitted the empty lookup and the service that stayed down
    assert list(baseline.trials.order_by("variant").values_list("variant", "passed")) == [
        ("", True),
        ("no_orders", True),
        ("orders_down", True),
    ]
    calls = ToolWorldCall.objects.filter(trial__eval_run=candidate, trial__variant="no_orders")
    assert list(calls.order_by("sequence").values_list("tool", "status")) == [
        ("get_recent_orders", 200),
        ("cancel_order", 404),  # the guessed id has no recording
    ]
    guessed = candidate.trials.get(variant="no_orders")
    flags = {flag["kind"] for flag in guessed.metrics["red_flags"]}
    assert {"invented_after_fault", "success_after_fault"} <= flags and guessed.passed is False
    # and the gate blocks 1.5.0, with the fault kind it mishandled
    report = gate_evaluate(baseline, candidate)
    assert report["decision"] == "block" and "red_flag_rate" in report["blocked_by"]
    assert report["fault_kinds"]["empty"]["pass_rate_change"] == -1.0
    assert report["fault_kinds"]["error"]["pass_rate_change"] == 0.0

    # when it runs again, nothing new is recorded and the command prints the stored report
    trials = EvalTrial.objects.count()
    out = StringIO()
    _in_own_thread(call_command, "demo_agent", url=live_server.url, stdout=out)
    assert EvalTrial.objects.count() == trials
    text = out.getvalue()
    assert text.splitlines()[1].startswith("BLOCK: Blocked:"), text
    assert "  BLOCK red_flag_rate rose" in text
    assert "fault empty          baseline 0 of 1 failed, candidate 1 of 1 failed" in text
    assert "fault error          baseline 0 of 1 failed, candidate 0 of 1 failed" in text
    assert "@no_orders #0" in text and "invented_after_fault" in text
    assert f"/golden/evals/compare/?baseline={baseline.pk}&candidate={candidate.pk}" in text


def test_a_run_left_unscored_is_started_over(live_server, demo_golden):
    # given an earlier attempt that stopped after creating the baseline run
    _in_own_thread(demo_world_runs_ensure, live_server.url)
    EvalRun.objects.filter(name="demo-worlds-candidate").update(metrics={})
    assert demo_world_runs() == []
    # when the agent runs again, the unscored run is made anew and scored
    baseline, candidate = _in_own_thread(demo_world_runs_ensure, live_server.url)
    assert EvalRun.objects.filter(name__startswith="demo-worlds-").count() == 2
    assert candidate.metrics["overall"]["fault_kinds"]["empty"]["failed"] == 1


def test_the_command_says_when_no_server_listens(demo_golden):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(CommandError, match="could not reach"):
        call_command("demo_agent", url=f"http://127.0.0.1:{port}")
    assert not EvalRun.objects.exists()
