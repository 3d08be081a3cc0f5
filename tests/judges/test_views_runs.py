"""Judge-run pages: start a run, follow its progress, cancel it."""

import re

import pytest

from judges.execution import judgment_execute
from judges.models import JudgeConfig, JudgeRun, Rubric
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


def _version():
    return Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)


def test_a_curator_starts_a_run_from_the_form(curator, capture, client_for):
    traces = [sample_traces.travel_book_ok(), sample_traces.coding_fix_ok()]
    config = JudgeConfig.objects.get(name="default")

    with capture(execute=False):
        response = client_for(curator).post(
            "/judges/runs/new/",
            {
                "rubric_version": _version().pk,
                "config": config.pk,
                "trace_ids": f"{traces[0].external_id}, {traces[1].external_id}",
                "sample_rate": "1",
            },
        )

    run = JudgeRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/judges/runs/{run.pk}/"
    assert (run.trace_count, run.created_by) == (2, curator)


def _start(client, capture, **fields):
    data = {
        "rubric_version": _version().pk,
        "config": JudgeConfig.objects.get(name="default").pk,
        "sample_rate": "1",
        **fields,
    }
    with capture(execute=False):
        return client.post("/judges/runs/new/", data)


def test_an_unknown_hex_trace_id_is_named_on_the_form(curator, capture, client_for):
    known = sample_traces.travel_book_ok()

    response = _start(client_for(curator), capture, trace_ids=f"{known.external_id} deadbeef00")

    assert response.status_code == 200
    assert "No trace has the id deadbeef00." in response.content.decode()
    assert not JudgeRun.objects.exists()


def test_the_last_n_traces_are_the_newest(curator, capture, client_for):
    traces = [sample_traces.travel_book_ok(), sample_traces.coding_fix_ok()]
    newest = sample_traces.support_confident_after_error()

    _start(client_for(curator), capture, last="1")

    run = JudgeRun.objects.get()
    assert run.trace_count == 1 and run.trace_filter == {"limit": 1}
    assert list(run.judgments.values_list("trace_id", flat=True).distinct()) == [newest.pk]
    assert all(t.pk != newest.pk for t in traces)


def test_a_trace_list_address_judges_what_the_list_shows(curator, capture, client_for):
    wanted = sample_traces.travel_book_ok()
    sample_traces.coding_fix_ok()

    _start(
        client_for(curator),
        capture,
        trace_list_query=f"http://x/traces/?agent_name={wanted.agent_name}",
    )

    run = JudgeRun.objects.get()
    assert run.trace_filter["trace_list"] == f"agent_name={wanted.agent_name}"
    assert set(run.judgments.values_list("trace_id", flat=True)) == {wanted.pk}


def test_the_trace_page_link_fills_in_the_trace_id(curator, client_for):
    trace = sample_traces.travel_book_ok()

    page = client_for(curator).get(f"/judges/runs/new/?trace_ids={trace.external_id}")

    assert f'value="{trace.external_id}"' in page.content.decode()


def test_an_empty_selection_is_explained_on_the_form(curator, client_for):
    config = JudgeConfig.objects.get(name="default")

    response = client_for(curator).post(
        "/judges/runs/new/",
        {
            "rubric_version": _version().pk,
            "config": config.pk,
            "agent_name": "nobody",
            "sample_rate": "1",
        },
    )

    assert response.status_code == 200
    assert "the selection is empty" in response.content.decode()
    assert not JudgeRun.objects.exists()


def test_the_run_page_shows_progress_tokens_and_cost_and_polls_while_live(
    annotator, curator, simulator, capture, client_for
):
    from judges.services import judge_run_start

    traces = [sample_traces.travel_book_ok(), sample_traces.support_confident_after_error()]
    with capture(execute=False):
        run = judge_run_start(
            rubric_version=_version(), config=JudgeConfig.objects.get(name="default"), traces=traces
        )
    first = run.judgments.order_by("pk").first()
    judgment_execute(first.pk)

    live = client_for(annotator).get(f"/judges/runs/{run.pk}/").content.decode()
    for judgment in run.judgments.exclude(pk=first.pk):
        judgment_execute(judgment.pk)
    done = client_for(annotator).get(f"/judges/runs/{run.pk}/progress/").content.decode()

    assert 'hx-trigger="every 2s"' in live and "1 of 4 passes finished" in live
    assert "Cancel run" not in live  # annotators watch; curators cancel
    assert "hx-trigger" not in done and "4 of 4 passes finished" in done
    assert "simulated judge" in live
    run.refresh_from_db()
    assert run.status == "done"
    # Money reads as people write it: two significant digits, never 16 decimals.
    cost = re.search(r"<th>Cost</th><td>([^<]*)</td>", done).group(1)
    assert re.fullmatch(r"\$0\.0\d{0,3}[1-9]?|\$0\.\d{1,2}|\$0", cost), cost
    assert len(cost) <= 8


def test_an_online_runs_page_says_new_traces_keep_joining_it(annotator, curator, client_for):
    run = JudgeRun.objects.create(
        rubric_version=_version(),
        config=JudgeConfig.objects.get(name="default"),
        status="running",
        online=True,
    )

    page = client_for(annotator).get(f"/judges/runs/{run.pk}/").content.decode()
    curators_page = client_for(curator).get(f"/judges/runs/{run.pk}/").content.decode()

    assert "passes finished (100%) so far: online judging adds each new trace to this run" in page
    # Cancel stops this run, not online judging: the curator is told where that is turned off.
    rubric_link = f'href="/judges/rubrics/{_version().rubric_id}/"'
    assert 'id="online-cancel-note"' in curators_page and rubric_link in curators_page
    JudgeRun.objects.filter(pk=run.pk).update(online=False)
    page = client_for(curator).get(f"/judges/runs/{run.pk}/").content.decode()
    assert "so far: online judging" not in page and 'id="online-cancel-note"' not in page


def test_the_run_list_lists_runs_in_constant_queries(
    annotator, capture, django_assert_max_num_queries, client_for
):
    from judges.services import judge_run_start

    config = JudgeConfig.objects.get(name="default")
    with capture(execute=False):
        for _ in range(5):
            judge_run_start(
                rubric_version=_version(), config=config, traces=[sample_traces.travel_book_ok()]
            )
    client = client_for(annotator)

    with django_assert_max_num_queries(8):
        response = client.get("/judges/runs/")

    assert response.content.decode().count("Tool-call decision accuracy v1") == 5


def test_a_curator_cancels_a_live_run(curator, capture, client_for):
    from judges.services import judge_run_start

    with capture(execute=False):
        run = judge_run_start(
            rubric_version=_version(),
            config=JudgeConfig.objects.get(name="default"),
            traces=[sample_traces.travel_book_ok()],
        )

    response = client_for(curator).post(f"/judges/runs/{run.pk}/cancel/", follow=True)

    run.refresh_from_db()
    assert run.status == "cancelled"
    assert "Run cancelled" in response.content.decode()


def test_the_run_page_lists_verdicts_in_constant_queries(
    annotator, capture, django_assert_max_num_queries, client_for
):
    from judges.services import judge_run_start
    from tests.factories import VerdictFactory

    traces = sample_traces.traces_mixed(6)
    with capture(execute=False):
        run = judge_run_start(
            rubric_version=_version(), config=JudgeConfig.objects.get(name="default"), traces=traces
        )
    for trace in traces:
        VerdictFactory(trace=trace, run=run, status="agreed", score=1.0)
    client = client_for(annotator)

    with django_assert_max_num_queries(10):
        response = client.get(f"/judges/runs/{run.pk}/")

    assert response.content.decode().count('badge good">agreed') == 6
