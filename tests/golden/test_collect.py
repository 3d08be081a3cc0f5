"""Adding traces to golden from the trace page, the trace list and the API: drafts with the
reference trajectory drafted as promotion does, left out of versions until confirmed."""

import pytest

from golden.models import ExampleOrigin, GoldenExample
from golden.services import dataset_version_create, golden_example_promote_draft
from metrics.models import RedFlag
from reviews.models import AuditEvent
from tests.factories import (
    GoldenExampleFactory,
    ReviewItemFactory,
    ToolSpanFactory,
    TraceFactory,
    VerdictFactory,
)

pytestmark = pytest.mark.django_db


def lookup_then_cancel(task="Cancel order A1042 for customer C-77.", **kw):
    trace = TraceFactory(task=task, final_answer="Order A1042 is cancelled.", **kw)
    ToolSpanFactory(
        trace=trace,
        name="get_orders",
        input={"customer_id": "C-77"},
        output={"orders": [{"order_id": "A1042"}]},
        position=1,
    )
    cancel = ToolSpanFactory(
        trace=trace,
        name="cancel_order",
        input={"order_id": "A1042", "reason": "Z-99"},
        output={"ok": True},
        position=2,
    )
    return trace, cancel


class TestTracePage:
    def test_adds_a_draft_with_the_promotion_trajectory(self, client, curator):
        trace, cancel = lookup_then_cancel()
        RedFlag.objects.create(
            trace=trace, span=cancel, kind=RedFlag.Kind.HALLUCINATED_PARAMETER, detail="Z-99"
        )
        item = ReviewItemFactory(trace=trace, status="resolved", resolved_score=1)
        client.force_login(curator)

        response = client.post(f"/golden/collect/{trace.pk}/")

        example = GoldenExample.objects.get()
        assert response.status_code == 302
        assert response["Location"] == f"/golden/examples/{example.pk}/edit/"
        assert example.draft and example.origin == ExampleOrigin.COLLECTED
        assert example.source_trace == trace
        # The same draft a promotion of this trace would propose: placeholders, flagged blanks.
        promoted, _ = golden_example_promote_draft(item=item, annotation=_annotation(item))
        assert example.reference_trajectory == promoted["reference_trajectory"]
        assert example.reference_trajectory[0]["inputs"] == {"customer_id": "<from_context>"}
        assert example.reference_trajectory[1]["inputs"]["reason"] is None
        assert AuditEvent.objects.filter(action="golden_example_draft").count() == 1

    def test_a_trace_already_in_golden_is_not_added_twice(self, client, curator):
        trace, _ = lookup_then_cancel()
        existing = GoldenExampleFactory(source_trace=trace)
        client.force_login(curator)

        response = client.post(f"/golden/collect/{trace.pk}/")

        assert response["Location"] == f"/golden/examples/{existing.pk}/"
        assert GoldenExample.objects.count() == 1

    def test_annotators_cannot_add(self, client, annotator):
        trace, _ = lookup_then_cancel()
        client.force_login(annotator)

        assert client.post(f"/golden/collect/{trace.pk}/").status_code == 403
        assert 'id="trace-to-golden"' not in client.get(f"/traces/{trace.pk}/").content.decode()

    def test_the_expected_outcome_follows_the_agreed_verdict(self, client, curator):
        passed, _ = lookup_then_cancel()
        VerdictFactory(trace=passed, status="agreed", score=1)
        failed, _ = lookup_then_cancel(task="Cancel order B7 for customer C-77.")
        VerdictFactory(trace=failed, status="agreed", score=0)
        client.force_login(curator)

        client.post(f"/golden/collect/{passed.pk}/")
        client.post(f"/golden/collect/{failed.pk}/")

        by_trace = {e.source_trace_id: e for e in GoldenExample.objects.all()}
        assert by_trace[passed.pk].expected_outcome == "Order A1042 is cancelled."
        assert by_trace[failed.pk].expected_outcome == ""


def _annotation(item):
    from tests.factories import UserFactory

    return item.annotations.create(annotator=UserFactory(), score=1, explanation="")


class TestTraceList:
    def test_adds_every_trace_of_the_filter(self, client, curator):
        mine = [lookup_then_cancel(agent_name="billing-bot")[0] for _ in range(3)]
        lookup_then_cancel(agent_name="other-bot")
        GoldenExampleFactory(source_trace=mine[0])
        client.force_login(curator)

        response = client.post("/golden/collect/", {"query": "agent_name=billing-bot"})

        drafts = GoldenExample.objects.filter(draft=True)
        assert {e.source_trace_id for e in drafts} == {mine[1].pk, mine[2].pk}
        assert response["Location"] == "/golden/?draft=yes"
        page = client.get(response["Location"]).content.decode()
        assert "Added 2 draft examples; 1 trace already in golden." in page
        assert page.count('class="badge warn">draft<') == 2

    def test_a_held_out_trace_is_never_drafted_into_the_open_set(self, client, curator):
        # A trace is held out because it backs a held-out example: it is skipped, not copied.
        held, _ = lookup_then_cancel()
        GoldenExampleFactory(source_trace=held, held_out=True)
        held.held_out = True
        held.save(update_fields=["held_out"])
        client.force_login(curator)

        client.post("/golden/collect/", {"query": ""})

        assert GoldenExample.objects.filter(source_trace=held).count() == 1
        assert not GoldenExample.objects.filter(draft=True).exists()

    def test_the_list_offers_the_button_to_curators(self, client, curator):
        lookup_then_cancel()
        client.force_login(curator)

        assert 'id="listed-to-golden"' in client.get("/traces/").content.decode()

    def test_too_many_traces_are_refused_with_the_count(self, client, curator, settings):
        from golden import collect

        for _ in range(3):
            lookup_then_cancel()
        client.force_login(curator)
        limit = collect.MAX_TRACES_AT_ONCE
        collect.MAX_TRACES_AT_ONCE = 2
        try:
            response = client.post("/golden/collect/", {"query": ""})
        finally:
            collect.MAX_TRACES_AT_ONCE = limit

        assert not GoldenExample.objects.exists()
        assert "3 traces match" in client.get(response["Location"]).content.decode()


class TestDraftsAndVersions:
    def test_versions_leave_drafts_out_until_confirmed(self, client, curator):
        trace, _ = lookup_then_cancel()
        client.force_login(curator)
        client.post(f"/golden/collect/{trace.pk}/")
        draft = GoldenExample.objects.get()

        before = dataset_version_create(name="v1", user=curator)
        client.post(f"/api/golden/examples/{draft.pk}/confirm/")
        after = dataset_version_create(name="v2", user=curator)

        assert before.example_count == 0 and after.example_count == 1
        assert AuditEvent.objects.filter(action="golden_example_confirm").count() == 1

    def test_saving_a_draft_from_the_edit_page_confirms_it(self, client, curator):
        trace, _ = lookup_then_cancel()
        client.force_login(curator)
        client.post(f"/golden/collect/{trace.pk}/")
        draft = GoldenExample.objects.get()
        form = client.get(f"/golden/examples/{draft.pk}/edit/").context["form"]
        data = {k: v for k, v in form.initial.items() if v is not None}

        response = client.post(f"/golden/examples/{draft.pk}/edit/", data)

        assert response.status_code == 302, response.content.decode()[:2000]
        draft.refresh_from_db()
        assert draft.draft is False


class TestApi:
    def test_drafts_from_trace_ids(self, curator, api_client_for):
        trace, _ = lookup_then_cancel()

        response = api_client_for(curator).post(
            "/api/golden/examples/from-traces/", {"trace_ids": [trace.pk]}, format="json"
        )

        assert response.status_code == 201, response.content
        body = response.json()
        assert body["skipped_trace_ids"] == []
        assert body["created"][0]["draft"] is True
        assert body["created"][0]["source_trace"] == trace.external_id

    def test_drafts_from_a_filter(self, curator, api_client_for):
        kept = lookup_then_cancel(agent_name="billing-bot")[0]
        lookup_then_cancel(agent_name="other-bot")

        response = api_client_for(curator).post(
            "/api/golden/examples/from-traces/",
            {"filter": {"agent_name": "billing-bot"}},
            format="json",
        )

        assert response.status_code == 201
        assert [e.source_trace_id for e in GoldenExample.objects.all()] == [kept.pk]

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"filter": {"verdict": "sideways"}}, "filter.verdict"),
            ({"filter": {"colour": "red"}}, "filter.colour"),
            ({"trace_ids": [987654]}, "trace_ids"),
            ({"trace_ids": [2**64]}, "trace_ids.0"),  # beyond any key: SQLite cannot be asked
            ({}, "trace_ids"),
        ],
    )
    def test_bad_input_names_the_field(self, curator, api_client_for, body, field):
        response = api_client_for(curator).post(
            "/api/golden/examples/from-traces/", body, format="json"
        )

        assert response.status_code == 400
        assert field in response.json()["error"]["fields"]
        assert not GoldenExample.objects.exists()

    def test_annotators_are_refused(self, annotator, api_client_for):
        trace, _ = lookup_then_cancel()

        response = api_client_for(annotator).post(
            "/api/golden/examples/from-traces/", {"trace_ids": [trace.pk]}, format="json"
        )

        assert response.status_code == 403

    def test_the_list_filters_drafts(self, curator, api_client_for):
        GoldenExampleFactory()
        GoldenExampleFactory(draft=True)

        body = api_client_for(curator).get("/api/golden/examples/?draft=yes").json()

        assert body["count"] == 1 and body["results"][0]["draft"] is True
