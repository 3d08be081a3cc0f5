"""Task-adaptive rubric tests use the judging tests' simulated judge (real SDK, local server)."""

import pytest

from judges.adaptive_rubrics.generation import rubric_criteria_generate, rubric_version_approve
from judges.execution import judgment_execute
from judges.services import judge_run_start
from tests.judges import conftest as judging
from tests.judges import sample_traces

simulator = judging.simulator
default_config = judging.default_config
capture = judging.capture


@pytest.fixture
def cancellation_traces(db):
    """Support traces of one task type: good cancellations and confident-after-error ones."""
    return [
        (
            sample_traces.support_cancel_ok
            if i % 2
            else sample_traces.support_confident_after_error
        )()
        for i in range(6)
    ]


@pytest.fixture
def approved_generated(simulator, cancellation_traces, curator):
    draft = rubric_criteria_generate(task_type="order_cancellation", user=curator)
    return rubric_version_approve(version=draft, user=curator)


@pytest.fixture
def judge_all(capture):
    """Run a version over traces and execute every pass in this process."""

    def run(version, config, traces):
        with capture(execute=False):
            started = judge_run_start(rubric_version=version, config=config, traces=traces)
        for judgment in started.judgments.order_by("trace_id", "pass_index"):
            judgment_execute(judgment.pk)
        return started

    return run
