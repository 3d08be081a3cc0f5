"""Rubric pages: list, versions and diffs, edit into a new version, preview on a trace."""

import pytest

from judges.models import Rubric
from judges.rubrics import rubric_version_create
from tests.factories import GoldenExampleFactory
from tests.judges import sample_traces
from tests.judges.rubric_form import version_form

pytestmark = pytest.mark.django_db


def _tool_rubric():
    return Rubric.objects.get(name="Tool-call decision accuracy")


def test_the_list_shows_the_built_in_rubrics_in_constant_queries(
    annotator, django_assert_max_num_queries, client_for
):
    client = client_for(annotator)

    with django_assert_max_num_queries(8):
        response = client.get("/judges/rubrics/")

    assert response.status_code == 200
    for name in ("Tool-call decision accuracy", "General trace judge", "Outcome 1-5"):
        assert name in response.content.decode()


def test_an_outsider_cannot_see_rubrics(outsider, client_for):
    assert client_for(outsider).get("/judges/rubrics/").status_code == 403


def test_an_edit_saves_the_next_version_and_keeps_the_old_one(curator, client_for):
    rubric = _tool_rubric()
    old = rubric.latest_version()
    client = client_for(curator)
    form = client.get(f"/judges/rubrics/{rubric.pk}/edit/").context["form"]
    data = {name: value for name, value in form.initial.items() if value is not None}
    data["system_prompt"] = old.system_prompt + "\nPrefer read-only tools before writes."
    data["note"] = "Prefer read-only tools"

    response = client.post(f"/judges/rubrics/{rubric.pk}/edit/", data)

    assert response.status_code == 302, response.context["form"].errors
    versions = list(rubric.versions.order_by("number"))
    assert [v.number for v in versions] == [1, 2]
    assert versions[0].system_prompt == old.system_prompt
    assert versions[1].evaluation_steps == old.evaluation_steps
    assert versions[1].created_by == curator


def test_a_broken_template_is_refused_with_its_line(curator, client_for):
    rubric = _tool_rubric()
    client = client_for(curator)
    data = version_form(
        "Judge the agent.\nScore from {{ score_range[0] }} to {{ score_range[1] ",
        "{{ trace_json }}",
        status="approved",
    )

    response = client.post(f"/judges/rubrics/{rubric.pk}/edit/", data)

    assert response.status_code == 200
    page = response.content.decode()
    assert "line 2" in page and "nothing was saved" in page
    assert rubric.versions.count() == 1


def test_an_unknown_variable_and_a_missing_trace_are_both_reported(curator, client_for):
    rubric = _tool_rubric()
    data = version_form("Hello {{ rubrik }}", "No trace here")

    page = client_for(curator).post(f"/judges/rubrics/{rubric.pk}/edit/", data).content.decode()

    assert "rubrik" in page and "line 1" in page
    assert "never shows the trace" in page


def test_an_annotator_cannot_edit(annotator, client_for):
    assert (
        client_for(annotator).get(f"/judges/rubrics/{_tool_rubric().pk}/edit/").status_code == 403
    )


def test_versions_show_a_diff(annotator, curator, client_for):
    rubric = _tool_rubric()
    old = rubric.latest_version()
    rubric_version_create(
        rubric=rubric,
        user=curator,
        system_prompt=old.system_prompt.replace("an expert evaluator", "a strict evaluator"),
        user_template=old.user_template,
        score_type=old.score_type,
        score_min=old.score_min,
        score_max=old.score_max,
        output_format=old.output_format,
        trace_format=old.trace_format,
    )

    page = client_for(annotator).get(f"/judges/rubrics/{rubric.pk}/?version=2&against=1")

    html = page.content.decode()
    assert 'class="diff-del">-You are an expert evaluator' in html
    assert 'class="diff-add">+You are a strict evaluator' in html


def test_the_preview_renders_the_prompt_with_the_trace_escaped(annotator, client_for):
    trace = sample_traces.support_cancel_ok()
    trace.spans.filter(name="cancel_order").update(output={"note": "<script>alert(1)</script>"})
    rubric = _tool_rubric()

    response = client_for(annotator).get(
        f"/judges/rubrics/{rubric.pk}/preview/", {"version": 1, "trace": trace.pk}
    )

    html = response.content.decode()
    assert "&lt;untrusted_trace&gt;" in html and "cancel_order" in html
    assert "<script>alert(1)</script>" not in html
    assert "Score from 0 to 1" in html


def test_held_out_golden_traces_are_never_offered_for_prompt_previews(curator, client_for):
    # given one trace behind a held-out golden example and one behind an open example
    held = sample_traces.support_cancel_ok()
    open_trace = sample_traces.support_cancel_ok()
    GoldenExampleFactory(source_trace=held, held_out=True)
    GoldenExampleFactory(source_trace=open_trace, held_out=False)
    rubric = _tool_rubric()
    client = client_for(curator)

    # when the author opens the rubric page and asks for a preview on each
    choices = client.get(f"/judges/rubrics/{rubric.pk}/").context["traces"]
    held_preview = client.get(
        f"/judges/rubrics/{rubric.pk}/preview/", {"version": 1, "trace": held.pk}
    )
    open_preview = client.get(
        f"/judges/rubrics/{rubric.pk}/preview/", {"version": 1, "trace": open_trace.pk}
    )

    # then the held-out trace is neither listed nor rendered
    assert open_trace in choices and held not in choices
    assert held_preview.context["prompt"] is None
    assert open_preview.context["prompt"]


def test_online_judging_is_switched_on_with_a_sample_rate(curator, client_for):
    rubric = _tool_rubric()

    client_for(curator).post(
        f"/judges/rubrics/{rubric.pk}/online/", {"judge_new_traces": "on", "sample_rate": "0.05"}
    )

    rubric.refresh_from_db()
    assert (rubric.judge_new_traces, rubric.sample_rate) == (True, 0.05)
