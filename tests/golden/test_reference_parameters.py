"""Reference parameters that may be left out or accept alternatives travel through the JSONL
import and export, the example form and page; answer keys in the function-calling form import;
an example that checks nothing but the outcome says so at import, on its page and at the gate."""

import json

import pytest
from django.urls import reverse

from golden.evals.gate import gate_evaluate
from golden.jsonl import ImportInvalid, dataset_import_jsonl, dataset_version_export_lines
from golden.models import DatasetVersion, EvalRun, GoldenExample
from golden.reference_trajectory import reference_from_answer_key, reference_trajectory_errors
from tests.golden.builders import example, reference_step

pytestmark = pytest.mark.django_db

WEATHER = [
    reference_step(
        1,
        "get_weather",
        {"city": {"any_of": ["San Francisco", "SF"]}, "unit": {"optional": True}},
        [],
    )
]


def _line(**fields):
    return json.dumps({"task": "What is the weather in San Francisco?", **fields})


def test_an_answer_key_imports_as_a_reference_with_alternatives_and_optional_parameters():
    steps, errors = reference_from_answer_key(
        [{"get_weather": {"city": ["San Francisco", "SF"], "unit": ["", "celsius"], "days": [3]}}]
    )
    assert errors == {}
    assert steps[0]["inputs"] == {
        "city": {"any_of": ["San Francisco", "SF"]},
        "unit": {"any_of": ["celsius"], "optional": True},
        "days": 3,
    }


def test_a_jsonl_line_with_an_answer_key_imports_and_exports_as_its_reference(curator):
    line = _line(key="sf-weather", answer_key=[{"get_weather": {"city": ["SF"], "unit": [""]}}])
    result = dataset_import_jsonl(sources=[("keys.jsonl", [line])], user=curator, version_name="v")
    stored = GoldenExample.objects.get(key="sf-weather").reference_trajectory
    assert stored[0]["inputs"] == {"city": {"any_of": ["SF"]}, "unit": {"optional": True}}
    exported = json.loads(next(dataset_version_export_lines(curator, result.version, "open")))
    assert exported["reference_trajectory"] == stored


def test_a_wrong_answer_key_or_spec_is_refused_with_its_field(curator):
    bad_key = _line(answer_key=[{"get_weather": {"city": "SF"}}])
    bad_spec = _line(reference_trajectory=[{**WEATHER[0], "inputs": {"city": {"any_of": []}}}])
    with pytest.raises(ImportInvalid) as caught:
        dataset_import_jsonl(sources=[("x.jsonl", [bad_key, bad_spec])], user=curator)
    fields = {(e.line, e.field) for e in caught.value.errors}
    assert (1, "answer_key[0].city") in fields
    assert (2, "reference_trajectory[0].inputs.city") in fields
    errors = reference_trajectory_errors([{**WEATHER[0], "optional": "yes"}])
    assert errors == {"reference_trajectory[0].optional": "must be true or false"}


def test_the_import_says_which_examples_check_nothing_but_the_outcome(curator, client):
    lines = [
        _line(key="checks-the-call", reference_trajectory=WEATHER),
        _line(key="outcome-only", reference_trajectory=[]),
    ]
    result = dataset_import_jsonl(sources=[("x.jsonl", lines)], user=curator)
    assert result.outcome_only == ["outcome-only"]
    assert "outcome-only" in result.warnings[0] and "nothing but the outcome" in result.warnings[0]


def test_the_example_page_says_it_checks_nothing_but_the_outcome(client, curator):
    client.force_login(curator)
    bare = example(task="Say hello", reference_trajectory=[])
    page = client.get(reverse("golden:example_detail", args=[bare.pk])).content.decode()
    assert 'id="outcome-only"' in page and "nothing but the outcome" in page
    checked = example(task="Weather in SF?", reference_trajectory=WEATHER)
    page = client.get(reverse("golden:example_detail", args=[checked.pk])).content.decode()
    assert 'id="outcome-only"' not in page
    # and the accepted values read as alternatives, the optional parameter as such
    assert "&quot;San Francisco&quot;</code> or <code>&quot;SF&quot;" in page
    assert "(may be left out)" in page


def test_the_gate_report_names_examples_that_check_nothing_but_the_outcome(curator):
    example(key="outcome-only", task="Say hello", reference_trajectory=[])
    example(key="weather", task="Weather in SF?", reference_trajectory=WEATHER)
    from golden.services import dataset_version_create

    version = dataset_version_create(name="v1", user=curator)
    runs = [
        EvalRun.objects.create(
            name=name,
            agent_name="a",
            agent_version=name,
            dataset_version=version,
            metrics={"overall": {"outcome_score": 1.0}, "matcher": "auto"},
        )
        for name in ("base", "cand")
    ]
    report = gate_evaluate(*runs)
    warning = next(w for w in report["warnings"] if "nothing but the outcome" in w)
    assert "outcome-only" in warning and "weather" not in warning
    assert DatasetVersion.objects.count() == 1
