"""The trajectory LLM questions go through the anthropic SDK to the (simulated) judge."""

import pytest

from judges.trajectory_llm import parameter_judge_llm, path_judge_llm

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


def test_parameter_and_path_questions_reach_the_judge_and_come_back_scored(simulated_judge):
    # given the simulated judge is running and nothing has asked it yet
    before = simulated_judge.request_count
    # when both questions are asked
    parameter = parameter_judge_llm("reason", "placed by mistake", "ordered by accident", "Cancel")
    path, reason = path_judge_llm(
        [{"tool": "get_recent_orders"}, {"tool": "cancel_order"}],
        [{"tool": "cancel_order"}],
        "Cancel order A1042",
    )
    # then two requests were made and both answers are on the 1.0 / 0.5 / 0.0 scale
    assert simulated_judge.request_count == before + 2
    assert parameter in (0.0, 0.5, 1.0) and path in (0.0, 0.5, 1.0)
    assert isinstance(reason, str)
