"""The comparison page: two runs side by side, worse tasks first, traces one click away."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from golden.models import GoldenExample
from golden.services import dataset_version_create
from tests.evals.golden_set import (
    EXAMPLES,
    baseline_and_candidate_scored,
    eval_run_scored,
    golden_version_create,
)
from tests.factories import GoldenExampleFactory

pytestmark = pytest.mark.django_db


def _page(client, base, cand):
    return client.get(
        reverse("golden:eval_run_compare"), {"baseline": base.pk, "candidate": cand.pk}
    )


def test_worse_task_is_listed_first_with_links_to_its_traces(client, annotator):
    # given a baseline and a candidate that got the cancellation wrong
    dataset = golden_version_create()
    base, cand = baseline_and_candidate_scored(dataset)
    client.force_login(annotator)
    # when
    response = _page(client, base, cand)
    # then
    assert response.status_code == 200
    tasks = response.context["comparison"]["tasks"]
    assert tasks[0]["key"] == "cancel-recent-order" and tasks[0]["got_worse"]
    assert [t["got_worse"] for t in tasks[1:]] == [False, False]
    html = response.content.decode()
    trace_id = cand.trials.get(entry__example_key="cancel-recent-order").trace_id
    assert reverse("explorer:detail", args=[trace_id]) in html
    assert html.index('data-key="cancel-recent-order"') < html.index(
        'data-key="book-cheapest-flight"'
    )
    assert 'id="metric-parameter_accuracy"' in html
    # and the candidate's failed trial says why it failed
    row = html[html.index('data-key="cancel-recent-order"') :]
    row = row[: row.index("</tr>")]
    assert 'class="trial-reason" data-trial="0"' in row
    assert "red flag hallucinated_parameter" in row and "A1043" in row
    assert 'class="trial-reason"' not in html[html.index('data-key="book-cheapest-flight"') :]
    # and the gate's decision is on the page with the rule that blocked
    assert response.context["gate"]["decision"] == "block"
    assert "parameter_accuracy dropped" in html


def test_query_count_does_not_grow_with_trials(client, annotator):
    dataset = golden_version_create()
    small = (eval_run_scored("1.4.0", "a", dataset), eval_run_scored("1.5.0", "b", dataset))
    big = (
        eval_run_scored("1.4.0", "c", dataset, trials=3),
        eval_run_scored("1.5.0", "d", dataset, trials=3),
    )
    client.force_login(annotator)
    with CaptureQueriesContext(connection) as few:
        _page(client, *small)
    with CaptureQueriesContext(connection) as many:
        _page(client, *big)
    assert len(many) == len(few)


def test_task_text_from_traces_is_escaped_and_unknown_runs_explain(client, annotator):
    dataset = golden_version_create()
    base = eval_run_scored("1.4.0", "<script>alert(1)</script>", dataset)
    client.force_login(annotator)
    listing = client.get(reverse("golden:eval_run_list"))
    assert b"<script>alert(1)</script>" not in listing.content
    assert b"&lt;script&gt;" in listing.content
    missing = client.get(
        reverse("golden:eval_run_compare"), {"baseline": base.pk, "candidate": 999}
    )
    assert missing.status_code == 404 and b"No eval run" in missing.content


def test_outsider_gets_403(client, outsider):
    client.force_login(outsider)
    assert client.get(reverse("golden:eval_run_list")).status_code == 403


def test_held_out_tasks_stay_hidden_from_annotators_on_the_page_and_the_api(
    client, annotator, curator, api_client_for
):
    # given the cancellation example is held out, and two scored runs over the version
    for data in EXAMPLES:
        GoldenExampleFactory(**data, held_out=data["key"] == "cancel-recent-order")
    dataset = dataset_version_create(name="support-v1", examples=GoldenExample.objects.all())
    base, cand = baseline_and_candidate_scored(dataset)
    held_out_trace = cand.trials.get(entry__example_key="cancel-recent-order").trace_id

    # when an annotator compares the runs and reads them through the API
    client.force_login(annotator)
    html = _page(client, base, cand).content.decode()
    run_json = api_client_for(annotator).get(f"/api/eval-runs/{cand.pk}/").json()

    # then neither shows the held-out task or its trace
    assert 'data-key="cancel-recent-order"' not in html
    assert reverse("explorer:detail", args=[held_out_trace]) not in html
    assert "cancel-recent-order" not in run_json["metrics"]["per_task"]
    assert "book-cheapest-flight" in run_json["metrics"]["per_task"]
    # nor does the gate report's list of failed trials
    gate = api_client_for(annotator).post(
        "/api/gate/", {"baseline": base.pk, "candidate": cand.pk}, format="json"
    )
    assert gate.status_code == 200
    assert "cancel-recent-order" not in json.dumps(gate.json()["candidate_trials"])
    # and a curator still sees it
    client.force_login(curator)
    assert 'data-key="cancel-recent-order"' in _page(client, base, cand).content.decode()


def test_compare_with_no_selection_offers_the_choice_with_different_defaults(client, annotator):
    # given two runs
    dataset = golden_version_create()
    base, cand = baseline_and_candidate_scored(dataset)
    client.force_login(annotator)
    # when the compare page is opened with nothing chosen
    response = client.get(reverse("golden:eval_run_compare"))
    # then it is a chooser, not a 404, and the two selects start on different runs
    assert response.status_code == 200
    html = response.content.decode()
    assert "Choose a baseline and a candidate" in html
    baseline_select = html[html.index('id="baseline"') : html.index('id="candidate"')]
    candidate_select = html[html.index('id="candidate"') :]
    assert f'value="{base.pk}" selected' in baseline_select
    assert f'value="{cand.pk}" selected' in candidate_select.split("</select>")[0]


def test_tasks_read_as_their_text_and_changes_say_better_or_worse(client, annotator):
    dataset = golden_version_create()
    base, cand = baseline_and_candidate_scored(dataset)
    client.force_login(annotator)
    response = _page(client, base, cand)
    html = response.content.decode()
    [task] = [
        t for t in response.context["comparison"]["tasks"] if t["key"] == "cancel-recent-order"
    ]
    assert task["task"] and task["task"][:40] in html
    # red flags rose for the candidate: the change reads as a rise that is worse
    row = html[html.index('id="metric-red_flag_rate"') :]
    row = row[: row.index("</tr>")]
    metric = next(
        m for m in response.context["comparison"]["metrics"] if m["name"] == "red_flag_rate"
    )
    assert metric["change"] > 0 and metric["delta"] < 0
    assert f"+{metric['change']:.3f} worse" in row
    # and a fall in parameter accuracy reads as a negative change that is worse
    row = html[html.index('id="metric-parameter_accuracy"') :]
    assert "badge bad delta" in row[: row.index("</tr>")] and ">-0." in row[: row.index("</tr>")]
