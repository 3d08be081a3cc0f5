"""Scoring a trace from its page, without a queue: page form, API, audit, agreement, blind
and held-out rules."""

import pytest

from reviews.agreement import queue_agreement
from reviews.claims import review_item_claim_next
from reviews.models import Annotation, AuditEvent, ReviewItem, ReviewReason
from reviews.services import queue_for_rubric
from reviews.trace_actions import trace_score_direct
from tests.factories import (
    QueueFactory,
    ReviewItemFactory,
    RubricVersionFactory,
    TraceFactory,
    UserFactory,
    VerdictFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def five_point():
    return RubricVersionFactory(rubric__name="Helpfulness 1-5", one_to_five=True)


@pytest.fixture
def trace():
    return TraceFactory(task="Rebook my flight to Lisbon for Friday.")


def _score(client, trace, version, **fields):
    data = {"rubric_version": version.pk, "explanation": "", **fields}
    return client.post(f"/reviews/traces/{trace.pk}/score/", data)


class TestTracePage:
    def test_the_form_offers_the_rubric_scale(self, client, annotator, trace, five_point):
        client.force_login(annotator)

        html = client.get(f"/traces/{trace.pk}/?score_rubric={five_point.pk}").content.decode()

        assert 'id="trace-score-form"' in html
        for value in range(1, 6):
            assert f'name="score" value="{value}"' in html
        assert 'value="hallucinated_parameter"' in html

    def test_a_score_is_saved_audited_and_shown(self, client, annotator, trace, five_point):
        client.force_login(annotator)

        response = _score(
            client,
            trace,
            five_point,
            score="2",
            explanation="Booked Saturday, not Friday.",
            failure_tags=["hallucinated_parameter"],
            custom_tags="wrong date",
        )

        assert response.status_code == 302
        answer = Annotation.objects.get()
        assert (answer.score, answer.annotator) == (2.0, annotator)
        assert answer.failure_tags == ["hallucinated_parameter", "wrong date"]
        assert answer.item.reason == ReviewReason.DIRECT and answer.item.trace == trace
        assert AuditEvent.objects.filter(action="review_item.score_direct").count() == 1
        html = client.get(response["Location"]).content.decode()
        assert 'id="trace-people-scores"' in html and "Booked Saturday, not Friday." in html

    def test_a_score_off_the_scale_is_refused_and_nothing_stored(
        self, client, annotator, trace, five_point
    ):
        client.force_login(annotator)

        response = _score(client, trace, five_point, score="9")
        page = client.get(response["Location"]).content.decode()

        assert not Annotation.objects.exists()
        assert "between 1 and 5" in page

    def test_scoring_again_replaces_the_earlier_score(self, client, annotator, trace, five_point):
        client.force_login(annotator)
        _score(client, trace, five_point, score="2")
        _score(client, trace, five_point, score="4")

        active = Annotation.objects.filter(undone_at__isnull=True)
        assert [a.score for a in active] == [4.0]
        assert Annotation.objects.count() == 2
        assert AuditEvent.objects.filter(action="annotation.replace").count() == 1

    def test_outsiders_cannot_score(self, client, outsider, trace, five_point):
        client.force_login(outsider)

        assert _score(client, trace, five_point, score="3").status_code == 403
        assert not Annotation.objects.exists()

    def test_held_out_traces_are_404_for_annotators(self, client, annotator, five_point):
        held = TraceFactory(held_out=True)
        client.force_login(annotator)

        assert _score(client, held, five_point, score="3").status_code == 404
        assert not Annotation.objects.exists()

    def test_a_blind_view_hides_people_scores_and_marks_the_answer_blind(
        self, client, annotator, trace, five_point
    ):
        other = UserFactory(username="bea", roles=["annotator"])
        trace_score_direct(
            trace=trace,
            user=other,
            rubric_version=five_point,
            score=5,
            explanation="Bea says perfect",
        )
        item = ReviewItemFactory(
            trace=trace,
            queue=QueueFactory(name="Blind", blind=True),
            verdict=VerdictFactory(trace=trace),
        )
        assert review_item_claim_next(user=annotator, queue=item.queue).pk == item.pk
        client.force_login(annotator)

        html = client.get(f"/traces/{trace.pk}/").content.decode()
        _score(client, trace, five_point, score="3", blind="1")

        assert "Bea says perfect" not in html and 'id="trace-people-scores"' not in html
        assert Annotation.objects.get(annotator=annotator).blind is True


class TestAgreement:
    def test_two_people_scoring_a_trace_count_in_the_queue_agreement(
        self, annotator, trace, five_point
    ):
        bea = UserFactory(username="bea", roles=["annotator"])
        queue = queue_for_rubric(five_point.rubric, trace.project)
        queue.annotators_per_item = 2
        queue.save(update_fields=["annotators_per_item"])

        trace_score_direct(trace=trace, user=annotator, rubric_version=five_point, score=2)
        trace_score_direct(trace=trace, user=bea, rubric_version=five_point, score=2)

        item = ReviewItem.objects.get(reason=ReviewReason.DIRECT)
        assert item.status == "resolved" and item.resolved_score == 2.0
        assert queue_agreement(queue).items == 1

    def test_the_judges_verdict_is_linked_for_judge_human_agreement(
        self, annotator, trace, five_point
    ):
        verdict = VerdictFactory(
            trace=trace, run__rubric_version=five_point, status="agreed", score=4
        )

        trace_score_direct(trace=trace, user=annotator, rubric_version=five_point, score=2)

        assert ReviewItem.objects.get(reason=ReviewReason.DIRECT).verdict == verdict


class TestApi:
    def test_posts_a_score_by_rubric_name(self, annotator, api_client_for, trace, five_point):
        response = api_client_for(annotator).post(
            f"/api/traces/{trace.pk}/scores/",
            {"rubric": "Helpfulness 1-5", "score": 3, "failure_tags": ["unnecessary_loop"]},
            format="json",
        )

        assert response.status_code == 201, response.content
        assert response.json()["score"] == 3.0
        assert Annotation.objects.get().item.rubric_version == five_point

    def test_a_bad_score_is_a_400_naming_score(self, annotator, api_client_for, trace, five_point):
        response = api_client_for(annotator).post(
            f"/api/traces/{trace.pk}/scores/",
            {"rubric_version": five_point.pk, "score": 0},
            format="json",
        )

        assert response.status_code == 400
        assert response.json()["error"]["fields"].keys() == {"score"}
        assert not Annotation.objects.exists()

    def test_a_rubric_is_required(self, annotator, api_client_for, trace):
        response = api_client_for(annotator).post(
            f"/api/traces/{trace.pk}/scores/", {"score": 1}, format="json"
        )

        assert response.status_code == 400
        assert "rubric_version" in response.json()["error"]["fields"]

    def test_held_out_trace_is_404(self, annotator, api_client_for, five_point):
        held = TraceFactory(held_out=True)

        response = api_client_for(annotator).post(
            f"/api/traces/{held.pk}/scores/",
            {"rubric_version": five_point.pk, "score": 3},
            format="json",
        )

        assert response.status_code == 404
