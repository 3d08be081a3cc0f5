"""A per-criterion pass scores the weighted share met and cites the span each criterion names."""

import pytest

from judges.adaptive_rubrics.generation import criteria_version_create, rubric_version_approve
from judges.models import Judgment, Verdict
from judges.parsing import reply_parse
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db

SPECIFIC = "Did cancel_order succeed before the answer said the order was cancelled?"
GENERIC = "Was the agent polite to the customer?"


def test_the_score_is_the_weighted_share_met(
    approved_generated, default_config, judge_all, curator
):
    # given a criterion weighted 3 that fails and a generic one weighted 1 that passes
    criteria = [{"question": SPECIFIC, "weight": 3}, {"question": GENERIC, "weight": 1}]
    version = criteria_version_create(rubric=approved_generated.rubric, criteria=criteria)
    version = rubric_version_approve(version=version, user=curator)
    trace = sample_traces.support_confident_after_error()

    # when both passes are judged
    run = judge_all(version, default_config, [trace])

    # then the verdict is 1/4, not 1/2, and the failing criterion's span is cited
    assert Verdict.objects.get(run=run).score == pytest.approx(0.25)
    judgment = Judgment.objects.filter(run=run).first()
    cancel = trace.spans.get(name="cancel_order").span_id
    assert {"cited": "cancel_order", "span_id": cancel} in judgment.cited_spans
    assert judgment.criteria_results[0] == {
        "question": SPECIFIC,
        "met": False,
        "span": "cancel_order",
    }


def test_without_weights_every_criterion_counts_the_same(approved_generated):
    reply = '{"criteria": [{"question": "a?", "met": true}, {"question": "b?", "met": false}]}'
    approved_generated.criteria = [{"question": "a?"}, {"question": "b?"}]

    assert reply_parse(reply, approved_generated).score == 0.5
