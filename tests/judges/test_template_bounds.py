"""Rubric templates are bounded in what they build and how long they run: refused when saved
(the edit page and the API, naming the field), and a pass that hits a bound at judge time is
stored as failed with the bound named, not a crashed task."""

import time

import pytest
from django.test import Client

from judges.execution import judgment_execute
from judges.models import Judgment, JudgmentStatus, Rubric, RubricVersion
from judges.prompts import prompt_render, rubric_templates_check
from judges.services import judge_run_start
from tests.judges import sample_traces
from tests.judges.rubric_form import version_form

pytestmark = pytest.mark.django_db

UNBOUNDED = [
    "{{ ('a' * 10**7)|length }}",
    "{{ 'a'|center(10**9) }}",
    "{{ 'a'.rjust(10**9) }}",
    "{{ '%999999999s' % 'a' }}",
    "{{ '%*s' % (10**9, 'a') }}",
    "{{ '{:>999999999}'.format('a') }}",
    "{{ range(100000)|join('x' * 100000) }}",
    "{{ 'ab'|replace('a', 'a' * 100000)|replace('a', 'a' * 100000) }}",
    "{{ [1]|batch(10**9, 'x')|list|length }}",
    "{{ ((10**64)**64)**64 }}",
    "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}",
    "{{ ('a' * 900000) ~ ('b' * 900000) }}",
]
NO_OUTPUT_LOOP = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"


def _version(user_template: str, **fields) -> RubricVersion:
    defaults = {
        "system_prompt": "Score from {{ score_range[0] }} to {{ score_range[1] }}.",
        "score_type": "range",
        "score_min": 0,
        "score_max": 10,
        "output_format": "score_reason",
    }
    return RubricVersion(user_template=user_template, **{**defaults, **fields})


@pytest.mark.parametrize("expression", UNBOUNDED)
def test_a_template_that_builds_past_the_bound_is_refused_quickly_saying_so(expression):
    started = time.monotonic()

    problems = rubric_templates_check(_version("{{ trace_json }} " + expression))

    assert time.monotonic() - started < 1.5
    assert problems and problems[0].field == "user_template"
    assert "bound" in problems[0].message


def test_a_loop_that_outruns_the_time_bound_is_stopped_and_refused(settings):
    settings.RUBRIC_RENDER_SECONDS = 0.3
    started = time.monotonic()

    problems = rubric_templates_check(_version("{{ trace_json }}" + NO_OUTPUT_LOOP))

    assert time.monotonic() - started < 2
    assert problems[0].field == "user_template"
    assert "RUBRIC_RENDER_SECONDS" in problems[0].message


def test_the_lipsum_global_is_gone():
    problems = rubric_templates_check(_version("{{ trace_json }} {{ lipsum(10**7) }}"))

    assert "lipsum" in problems[0].message


def test_ordinary_formatting_still_renders():
    template = (
        "{{ trace_json }} {{ '-' * 20 }} {{ 2 ** 8 }} {{ '%5s|%-3d' % ('a', 1) }} "
        "{{ range(3)|join(', ') }} {{ 'x'|center(5) }} {{ '{:>4}'.format(7) }} "
        "{% for step in evaluation_steps %}{{ loop.index }}. {{ step }}{% endfor %}"
    )

    assert rubric_templates_check(_version(template)) == []


def test_the_edit_page_refuses_an_unbounded_template_under_its_field(curator):
    rubric = Rubric.objects.get(name="Tool-call decision accuracy")
    web = Client()
    web.force_login(curator)
    data = version_form(
        "Score from {{ score_range[0] }} to {{ score_range[1] }}.",
        "{{ trace_json }} {{ ('a' * 10**7)|length }}",
    )

    page = web.post(f"/judges/rubrics/{rubric.pk}/edit/", data).content.decode()

    assert "user_template" in page and "RUBRIC_RENDER_MAX_CHARS" in page
    assert rubric.versions.count() == 1


def test_the_api_refuses_an_unbounded_template_naming_the_field(curator, api_client_for):
    rubric = Rubric.objects.get(name="Tool-call decision accuracy")
    body = {
        "system_prompt": "Score from {{ score_range[0] }} to {{ score_range[1] }}.",
        "user_template": "{{ trace_json }} {{ 'a'|center(10**9) }}",
        "score_type": "binary",
        "score_min": 0,
        "score_max": 1,
        "output_format": "evaluation_summary",
    }
    client = api_client_for(curator)

    refused = client.post(f"/api/rubrics/{rubric.pk}/versions/", body, format="json")
    body["user_template"] = "{{ trace_json }}"
    saved = client.post(f"/api/rubrics/{rubric.pk}/versions/", body, format="json")

    assert refused.status_code == 400
    assert "bound" in refused.json()["error"]["fields"]["user_template"][0]
    assert saved.status_code == 201 and saved.json()["number"] == 2


def test_a_pass_whose_template_outgrows_the_bound_on_its_trace_fails_saying_so(
    settings, simulator, default_config, django_capture_on_commit_callbacks
):
    # Fine on the small example trace it is checked on at save time; too big on a real one.
    template = "{{ trace_json }} {% for c in trace_json %}{{ trace_json }}{% endfor %}"
    version = RubricVersion.objects.create(
        rubric=Rubric.objects.get(name="General trace judge"),
        number=2,
        system_prompt="Score from 0 to 10.",
        user_template=template,
        score_type="range",
        score_min=0,
        score_max=10,
        output_format="score_reason",
    )
    settings.RUBRIC_RENDER_MAX_CHARS = 400_000
    assert rubric_templates_check(version) == []
    trace = sample_traces.travel_book_ok()
    with django_capture_on_commit_callbacks(execute=False):
        run = judge_run_start(rubric_version=version, config=default_config, traces=[trace])
    judgment = run.judgments.order_by("pass_index").first()

    outcome = judgment_execute(judgment.pk)

    failed = Judgment.objects.get(pk=judgment.pk)
    assert outcome.state == "failed" and failed.status == JudgmentStatus.FAILED
    assert "hit its bound" in failed.error and "RUBRIC_RENDER_MAX_CHARS" in failed.error
    assert simulator.request_count == 0
    with pytest.raises(Exception, match="bound"):
        prompt_render(version, trace)
