"""Session list and page, the session filter on the trace list, API and export, and the
held-out and blind rules on all of them."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from reviews.claims import review_item_claim_next
from reviews.models import ReviewItem, ReviewReason
from tests.factories import (
    GoldenExampleFactory,
    QueueFactory,
    TraceFactory,
    VerdictFactory,
    VerdictItemFactory,
)
from traces.models import Session, Trace
from traces.session_totals import sessions_totals_recount

pytestmark = pytest.mark.django_db


def _session_verdict(conversation, **kw):
    last = conversation.traces.order_by("-started_at").first()
    return VerdictFactory(trace=last, session=conversation, **kw)


class TestSessionList:
    def test_lists_the_conversation_with_its_count_and_opening_task(
        self, client, annotator, conversation
    ):
        client.force_login(annotator)

        html = client.get("/traces/sessions/").content.decode()

        assert "conv-1" in html
        first = conversation.traces.order_by("started_at").first()
        assert first.task[:60] in html
        assert "<td>2</td>" in html

    def test_query_count_does_not_grow_with_sessions(self, client, annotator, conversation):
        client.force_login(annotator)
        client.get("/traces/sessions/")
        with CaptureQueriesContext(connection) as one:
            client.get("/traces/sessions/")
        for index in range(6):
            extra = Session.objects.create(project=conversation.project, external_id=f"s{index}")
            TraceFactory(project=conversation.project, session=extra)
            _session_verdict(extra)
        with CaptureQueriesContext(connection) as many:
            html = client.get("/traces/sessions/").content.decode()

        assert "s5" in html
        assert len(many) == len(one)

    def test_filters_by_project_and_id(self, client, annotator, conversation):
        other = Session.objects.create(project=conversation.project, external_id="zzz-other")
        TraceFactory(project=conversation.project, session=other)
        client.force_login(annotator)

        html = client.get("/traces/sessions/?q=conv").content.decode()

        assert "conv-1" in html and "zzz-other" not in html

    def test_the_list_and_the_api_read_no_trace_rows(
        self, client, annotator, api_client_for, conversation
    ):
        client.force_login(annotator)
        api = api_client_for(annotator)
        with CaptureQueriesContext(connection) as page:
            client.get("/traces/sessions/")
        with CaptureQueriesContext(connection) as listing:
            body = api.get("/api/sessions/").json()
        table, items = Trace._meta.db_table, ReviewItem._meta.db_table
        queries = [q["sql"] for q in page.captured_queries + listing.captured_queries]
        # Trace rows are read only to find the user's own blind review items' sessions.
        reads = [sql for sql in queries if f'"{table}"' in sql and f'"{items}"' not in sql]
        assert reads == [] and len(queries) > 4
        row = body["results"][0]
        assert (row["trace_count"], row["error_count"]) == (2, conversation.error_count)
        assert row["last_trace_at"] is not None and row["first_task"]


class TestHeldOut:
    def test_a_mixed_session_is_totalled_over_what_each_reader_may_see(
        self, annotator, curator, api_client_for, conversation
    ):
        held, shown = conversation.traces.order_by("started_at")
        GoldenExampleFactory(source_trace=held, held_out=True)

        as_annotator = api_client_for(annotator).get("/api/sessions/").json()["results"][0]
        as_curator = api_client_for(curator).get("/api/sessions/").json()["results"][0]
        one = api_client_for(annotator).get(f"/api/sessions/{conversation.pk}/").json()

        assert (as_annotator["trace_count"], as_curator["trace_count"]) == (1, 2)
        assert as_annotator["first_task"] == shown.task[:200]
        assert as_curator["first_task"] == held.task[:200]
        assert one["trace_count"] == 1 and held.task not in json.dumps(one)

    def test_held_out_traces_are_left_out_for_annotators(self, client, annotator, conversation):
        held = conversation.traces.order_by("started_at").first()
        held.held_out = True
        held.save(update_fields=["held_out"])
        sessions_totals_recount([conversation.pk])  # as golden's held-out sync does
        client.force_login(annotator)

        detail = client.get(f"/traces/sessions/{conversation.pk}/").content.decode()

        assert held.task not in detail
        assert conversation.traces.exclude(pk=held.pk).get().task in detail

    def test_a_session_of_held_out_traces_only_is_hidden(
        self, client, annotator, curator, conversation
    ):
        conversation.traces.update(held_out=True)
        sessions_totals_recount([conversation.pk])
        client.force_login(annotator)

        assert "conv-1" not in client.get("/traces/sessions/").content.decode()
        assert client.get(f"/traces/sessions/{conversation.pk}/").status_code == 404
        assert "0 traces." in client.get("/traces/?session=conv-1").content.decode()
        client.force_login(curator)
        assert client.get(f"/traces/sessions/{conversation.pk}/").status_code == 200


class TestSessionPage:
    def test_shows_every_trace_in_order_as_a_conversation(self, client, annotator, conversation):
        first, second = conversation.traces.order_by("started_at")
        client.force_login(annotator)

        html = client.get(f"/traces/sessions/{conversation.pk}/").content.decode()

        assert html.index(first.task) < html.index(second.task)
        assert html.index(first.final_answer) < html.index(second.final_answer)
        # Tool calls and a failed result are read as turns, as on the trace page.
        assert 'class="turn-call"' in html and "cancel_order" in html
        assert "turn-result is-error" in html
        assert f'href="/traces/{second.pk}/"' in html

    def test_a_curator_deletes_its_traces_and_its_totals_follow(
        self, client, annotator, curator, conversation
    ):
        client.force_login(annotator)
        page = f"/traces/sessions/{conversation.pk}/"
        assert 'id="session-delete"' not in client.get(page).content.decode()
        client.force_login(curator)
        link = f"/traces/delete/?session=%23{conversation.pk}"
        assert f'href="{link}" id="session-delete"' in client.get(page).content.decode()

        assert "Delete 2 traces?" in client.get(link).content.decode()
        done = client.post(
            "/traces/delete/", {"query": f"session=%23{conversation.pk}", "expected": "2"}
        )

        assert done.status_code == 302
        assert not conversation.traces.exists()
        conversation.refresh_from_db()
        assert conversation.trace_count == 0

    def test_untrusted_text_is_escaped(self, client, annotator, conversation):
        trace = conversation.traces.first()
        trace.task = "<script>alert(1)</script>"
        trace.save(update_fields=["task"])
        client.force_login(annotator)

        html = client.get(f"/traces/sessions/{conversation.pk}/").content.decode()

        assert "<script>alert(1)" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html

    def test_shows_the_session_verdict(self, client, annotator, conversation):
        _session_verdict(conversation, status="disputed", reason="pass scores 1, 0")
        client.force_login(annotator)

        html = client.get(f"/traces/sessions/{conversation.pk}/").content.decode()

        assert 'id="session-verdicts"' in html and "pass scores 1, 0" in html

    def test_blind_holder_sees_no_session_verdict(self, client, annotator, conversation):
        verdict = _session_verdict(conversation, status="disputed", reason="pass scores 1, 0")
        item = VerdictItemFactory(
            session=conversation,
            verdict=verdict,
            queue=QueueFactory(name="Blind", blind=True),
            reason=ReviewReason.PASSES_DISAGREE,
        )
        assert review_item_claim_next(user=annotator, queue=item.queue).pk == item.pk
        client.force_login(annotator)

        detail = client.get(f"/traces/sessions/{conversation.pk}/").content.decode()
        listing = client.get("/traces/sessions/").content.decode()
        api = client.get(f"/api/sessions/{conversation.pk}/").json()

        assert "pass scores 1, 0" not in detail and 'id="session-verdicts"' not in detail
        assert "disputed" not in listing
        assert api["verdicts"] == []

    def test_the_trace_page_links_its_session(self, client, annotator, conversation):
        trace = conversation.traces.first()
        client.force_login(annotator)

        html = client.get(f"/traces/{trace.pk}/").content.decode()

        assert f'href="/traces/sessions/{conversation.pk}/" id="trace-session"' in html

    def test_curators_get_the_judge_button_annotators_do_not(
        self, client, annotator, curator, conversation
    ):
        url = f"/traces/sessions/{conversation.pk}/"
        client.force_login(annotator)
        assert 'id="session-judge"' not in client.get(url).content.decode()
        client.force_login(curator)
        assert 'id="session-judge"' in client.get(url).content.decode()


class TestSessionFilter:
    def test_trace_list_filters_by_session_id_and_number(self, client, annotator, conversation):
        stranger = TraceFactory(project=conversation.project, task="A trace of no session")
        client.force_login(annotator)

        by_id = client.get("/traces/?session=conv-1").content.decode()
        by_number = client.get(f"/traces/?session=%23{conversation.pk}").content.decode()

        for html in (by_id, by_number):
            assert "2 traces." in html and stranger.task not in html

    def test_trace_api_filters_by_session(self, annotator, api_client_for, conversation):
        TraceFactory(project=conversation.project)

        body = api_client_for(annotator).get("/api/traces/?session=conv-1").json()

        assert body["count"] == 2
        assert {row["session"] for row in body["results"]} == {"conv-1"}

    def test_export_takes_the_session_filter(self, curator, api_client_for, conversation):
        TraceFactory(project=conversation.project)

        response = api_client_for(curator).get("/api/export/traces/?format=jsonl&session=conv-1")
        lines = [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]

        assert len(lines) == 2
        assert {line["session"] for line in lines} == {"conv-1"}

    def test_export_csv_has_a_session_column(self, curator, api_client_for, conversation):
        response = api_client_for(curator).get("/api/export/traces/?format=csv&session=conv-1")
        rows = b"".join(response.streaming_content).decode().splitlines()

        assert "session" in rows[0].split(",")
        assert len(rows) == 3 and all("conv-1" in row for row in rows[1:])


class TestSessionApi:
    def test_lists_sessions_with_totals(self, annotator, api_client_for, conversation):
        body = api_client_for(annotator).get("/api/sessions/").json()

        assert (body["count"], body["count_is_lower_bound"]) == (1, False)
        row = body["results"][0]
        assert row["session_id"] == "conv-1" and row["trace_count"] == 2
        assert row["project"] == conversation.project.slug

    def test_one_session_has_its_traces_in_order(self, annotator, api_client_for, conversation):
        _session_verdict(conversation, status="agreed", score=0.0)
        first, second = conversation.traces.order_by("started_at")

        body = api_client_for(annotator).get(f"/api/sessions/{conversation.pk}/").json()

        assert [t["id"] for t in body["traces"]] == [first.pk, second.pk]
        assert body["verdicts"][0]["status"] == "agreed"

    def test_unknown_session_is_404_json(self, annotator, api_client_for):
        response = api_client_for(annotator).get("/api/sessions/999999/")

        assert response.status_code == 404
        assert response["Content-Type"].startswith("application/json")

    def test_outsiders_are_refused(self, outsider, api_client_for, conversation):
        assert api_client_for(outsider).get("/api/sessions/").status_code == 403


def test_a_session_review_item_links_its_session(client, curator, conversation):
    verdict = _session_verdict(conversation, status="disputed")
    item = VerdictItemFactory(
        session=conversation,
        verdict=verdict,
        reason=ReviewReason.PASSES_DISAGREE,
    )
    client.force_login(curator)

    html = client.get(f"/reviews/items/{item.pk}/").content.decode()

    assert 'id="item-session"' in html
    assert f'href="/traces/sessions/{conversation.pk}/"' in html
