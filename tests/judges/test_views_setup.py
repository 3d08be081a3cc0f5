"""Curators create rubrics (from a seed or from scratch, checked and previewed) and configs."""

import pytest

from judges.models import JudgeConfig, Rubric
from tests.judges import sample_traces
from tests.judges.rubric_form import version_form

pytestmark = pytest.mark.django_db
SCRATCH = {
    "name": "Refund policy followed",
    "description": "",
    "task_type": "",
    **version_form(
        "Score from {{ score_range[0] }} to {{ score_range[1] }}.",
        "<trace>{{ trace_json }}</trace>",
    ),
    "evaluation_steps": "Read the policy\nCheck each refund",
    "rubric_text": "",
    "note": "",
}


def test_a_curator_creates_a_rubric_from_scratch_as_a_first_version(curator, client_for):
    response = client_for(curator).post("/judges/rubrics/new/", SCRATCH)

    rubric = Rubric.objects.get(name="Refund policy followed")
    assert response["Location"] == f"/judges/rubrics/{rubric.pk}/"
    version = rubric.latest_version()
    assert (version.number, version.status, rubric.created_by) == (1, "draft", curator)
    assert version.evaluation_steps == ["Read the policy", "Check each refund"]


def test_a_broken_template_saves_nothing_and_names_the_field(curator, client_for):
    broken = {**SCRATCH, "user_template": "{% if rubric %}never closed"}

    response = client_for(curator).post("/judges/rubrics/new/", broken)

    assert response.status_code == 200
    assert "nothing was saved" in response.content.decode()
    assert "user_template" in response.content.decode()
    assert not Rubric.objects.filter(name=SCRATCH["name"]).exists()


def test_a_taken_name_is_a_field_error(curator, client_for):
    response = client_for(curator).post("/judges/rubrics/new/", {**SCRATCH, "name": "Outcome 1-5"})

    assert "exists already" in response.content.decode()
    assert Rubric.objects.filter(name="Outcome 1-5").count() == 1


def test_a_seed_rubric_fills_the_form(curator, client_for):
    seed = Rubric.objects.get(name="General trace judge")

    body = client_for(curator).get(f"/judges/rubrics/new/?from={seed.pk}").content.decode()

    assert "Copied from General trace judge v1" in body
    assert "careful judge of AI agent traces" in body


def test_the_preview_renders_the_unsaved_draft_on_a_real_trace(curator, client_for):
    trace = sample_traces.travel_book_ok()

    body = (
        client_for(curator)
        .post("/judges/rubrics/new/preview/", {**SCRATCH, "preview_trace": trace.pk})
        .content.decode()
    )

    assert "Unsaved draft on trace" in body and "Score from 0 to 1." in body
    assert trace.spans.first().name in body
    assert not Rubric.objects.filter(name=SCRATCH["name"]).exists()


def test_the_preview_reports_a_template_problem(curator, client_for):
    trace = sample_traces.travel_book_ok()
    broken = {**SCRATCH, "system_prompt": "{{ trace_json }}", "preview_trace": trace.pk}

    body = client_for(curator).post("/judges/rubrics/new/preview/", broken).content.decode()

    assert "Keep the trace out of the system prompt" in body


def test_annotators_cannot_create_rubrics_or_configs(annotator, client_for):
    client = client_for(annotator)

    assert client.post("/judges/rubrics/new/", SCRATCH).status_code == 403
    assert client.post("/judges/configs/", {"name": "x", "model": "m"}).status_code == 403


def test_a_curator_creates_a_config_at_temperature_zero(curator, client_for):
    data = {"name": "opus-3", "model": "claude-opus-4-1", "passes": "3", "tolerance": "1"}

    response = client_for(curator).post(
        "/judges/configs/", {**data, "max_tokens": "2048", "use_batch_api": "on"}
    )

    assert response["Location"] == "/judges/configs/"
    config = JudgeConfig.objects.get(name="opus-3")
    assert (config.passes, config.tolerance, config.temperature) == (3, 1.0, 0.0)
    assert config.use_batch_api and config.max_tokens == 2048


def test_a_config_with_zero_passes_is_refused_on_the_field(curator, client_for):
    data = {"name": "none", "model": "m", "passes": "0", "tolerance": "0", "max_tokens": "1024"}

    body = client_for(curator).post("/judges/configs/", data).content.decode()

    assert "greater than or equal to 1" in body
    assert not JudgeConfig.objects.filter(name="none").exists()


def test_a_curator_points_a_config_at_a_self_hosted_openai_compatible_server(curator, client_for):
    data = {"name": "local-llama", "provider": "openai", "model": "llama-3.3-70b"}
    url = "http://gpu-box.internal:8000/v1"

    response = client_for(curator).post(
        "/judges/configs/",
        {**data, "base_url": url, "passes": "2", "tolerance": "0", "max_tokens": "1024"},
    )

    assert response.status_code == 302
    config = JudgeConfig.objects.get(name="local-llama")
    assert (config.provider, config.base_url) == ("openai", url)
    page = client_for(curator).get("/judges/configs/").content.decode()
    assert "OpenAI-compatible" in page and url in page


def test_the_batches_api_with_an_openai_config_is_refused_on_its_field(curator, client_for):
    data = {"name": "gpt", "provider": "openai", "model": "gpt-4.1", "use_batch_api": "on"}

    body = (
        client_for(curator)
        .post("/judges/configs/", {**data, "passes": "2", "tolerance": "0", "max_tokens": "1024"})
        .content.decode()
    )

    assert "Batches API is used only with Anthropic" in body
    assert not JudgeConfig.objects.filter(name="gpt").exists()
