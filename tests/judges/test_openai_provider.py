"""An OpenAI-compatible judge: the same double-pass path through the real `openai` SDK."""

import pytest

from core.errors import ApplicationError
from judges.configs import judge_config_create
from judges.costs import call_cost_usd
from judges.execution import judgment_execute
from judges.models import Judgment, JudgmentStatus, ParseStatus, Verdict, VerdictStatus
from judges.services import judge_run_start
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


@pytest.fixture
def gpt_config(settings, simulator):
    settings.OPENAI_BASE_URL = simulator.base_url + "/v1"
    return judge_config_create(name="gpt", provider="openai", model="gpt-4.1-mini")


def _start(version, config, trace, capture):
    with capture(execute=False):
        run = judge_run_start(rubric_version=version, config=config, traces=[trace])
    return run, list(run.judgments.order_by("pass_index"))


def _judged(version, config, trace, capture):
    """The run with every pass of it executed."""
    run, judgments = _start(version, config, trace, capture)
    for judgment in judgments:
        judgment_execute(judgment.pk)
    return run


def test_two_chat_completion_passes_agree_and_are_priced(
    simulator, tool_rubric, gpt_config, capture
):
    run, judgments = _start(tool_rubric, gpt_config, sample_traces.travel_book_ok(), capture)

    assert [judgment_execute(j.pk).state for j in judgments] == ["done", "done"]

    verdict = Verdict.objects.get(run=run)
    assert (verdict.status, verdict.score) == (VerdictStatus.AGREED, 1.0)
    stored = list(Judgment.objects.filter(run=run).order_by("pass_index"))
    assert stored[0].request_hash != stored[1].request_hash
    for judgment in stored:
        assert judgment.input_tokens > 0 and judgment.output_tokens > 0
        expected = call_cost_usd(
            "gpt-4.1-mini",
            input_tokens=judgment.input_tokens,
            output_tokens=judgment.output_tokens,
        )
        assert judgment.cost_usd == expected > 0
    assert simulator.stats()["answers"] == 2


def test_a_failing_trace_scores_zero_through_chat_completions(
    simulator, tool_rubric, gpt_config, capture
):
    trace = sample_traces.support_confident_after_error()

    run = _judged(tool_rubric, gpt_config, trace, capture)

    assert Verdict.objects.get(run=run).score == 0.0


def test_a_rate_limited_chat_call_is_retried_after_the_servers_retry_after(
    settings, simulator, tool_rubric, gpt_config, capture
):
    settings.JUDGE_RETRY_MAX_SECONDS = 5
    simulator.set(script=["429"], retry_after_s=2)
    _, judgments = _start(tool_rubric, gpt_config, sample_traces.support_cancel_ok(), capture)

    first = judgment_execute(judgments[0].pk)
    again = judgment_execute(judgments[0].pk)

    assert first.state == "retry" and 2 <= first.retry_in <= 5
    assert again.state == "done"
    assert Judgment.objects.get(pk=judgments[0].pk).attempts == 1


def test_a_refused_request_fails_the_pass_without_retrying(
    settings, simulator, tool_rubric, capture
):
    # The simulator's chat endpoint refuses a body without messages; a bad model id on a
    # real server is refused alike. Pointing at an unknown route gives the SDK a 404.
    settings.OPENAI_BASE_URL = simulator.base_url + "/nowhere"
    config = judge_config_create(name="misrouted", provider="openai", model="gpt-4.1-mini")
    _, judgments = _start(tool_rubric, config, sample_traces.support_cancel_ok(), capture)

    outcome = judgment_execute(judgments[0].pk)

    failed = Judgment.objects.get(pk=judgments[0].pk)
    assert outcome.state == "failed" and failed.status == JudgmentStatus.FAILED
    assert failed.parse_status == ParseStatus.CALL_FAILED and "NotFoundError" in failed.error


def test_the_same_prompt_to_another_server_is_not_served_from_cache(
    simulator, tool_rubric, gpt_config, capture
):
    trace = sample_traces.travel_book_ok()
    _judged(tool_rubric, gpt_config, trace, capture)
    elsewhere = judge_config_create(
        name="gpt-self-hosted",
        provider="openai",
        model="gpt-4.1-mini",
        base_url=simulator.base_url + "/v1",
    )
    _judged(tool_rubric, elsewhere, trace, capture)

    assert simulator.stats()["answers"] == 4
    assert not Judgment.objects.filter(served_from_cache=True).exists()


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"provider": "mistral"}, "provider"),
        ({"provider": "openai", "use_batch_api": True}, "use_batch_api"),
        ({"base_url": "http://127.0.0.1:9/v1"}, "base_url"),
    ],
)
def test_a_config_the_provider_cannot_serve_is_refused_on_the_field(fields, field):
    with pytest.raises(ApplicationError) as refused:
        judge_config_create(name="x", model="m", **fields)
    assert refused.value.field == field


def test_one_off_calls_follow_the_default_configs_provider(settings, simulator):
    from judges.models import JudgeConfig
    from judges.trajectory_llm import path_judge_llm

    settings.OPENAI_BASE_URL = simulator.base_url + "/v1"
    JudgeConfig.objects.filter(name="default").update(provider="openai", model="gpt-4.1-mini")

    score, _ = path_judge_llm([{"tool": "get_order"}], [{"tool": "get_order"}], "Cancel A1042")

    stats = simulator.stats()
    assert stats["chat_requests"] == 1 and "messages_requests" not in stats
    assert score is None or 0.0 <= score <= 1.0
