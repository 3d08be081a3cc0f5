import json

import pytest

from golden.jsonl import ImportInvalid, dataset_import_jsonl, dataset_version_export_lines
from golden.models import DatasetVersion, GoldenExample
from golden.services import dataset_version_create
from tests.factories import RubricFactory
from tests.golden.builders import cancel_reference, example

STEPS = cancel_reference("cancelled")


def _dataset():
    rubric = RubricFactory(name="Outcome 1-5")
    example(
        task="Cancel my latest order (C-77)",
        reference_trajectory=STEPS,
        outcome_rubric=rubric,
        failure_tags=["wrong_order"],
        red_flags=[
            {
                "text": "cancel before lookup",
                "rule": {
                    "rule": "called_before",
                    "tool": "cancel_order",
                    "prerequisite": "get_recent_orders",
                },
            }
        ],
    )
    example(task="Book LIS→BER on 2026-03-14 — the cheapest", task_type="flight_booking")
    example(task="Fix the flaky date test", task_type="code_fix", held_out=True)


def _export(user, version):
    return {
        part: list(dataset_version_export_lines(user, version, part))
        for part in ("open", "held_out")
    }


def test_export_writes_one_example_a_line_split_into_open_and_held_out(curator):
    _dataset()
    version = dataset_version_create(name="v1", user=curator)
    parts = _export(curator, version)
    assert len(parts["open"]) == 2 and len(parts["held_out"]) == 1
    line = json.loads(parts["held_out"][0])
    assert line["task"] == "Fix the flaky date test" and line["held_out"] is True
    assert set(line) >= {"key", "reference_trajectory", "red_flags", "provenance"}


def test_export_then_import_gives_the_same_content_hash(curator):
    # given an exported version
    _dataset()
    version = dataset_version_create(name="v1", user=curator)
    parts = _export(curator, version)
    original_hash = version.content_hash
    # when the dataset is wiped and the export imported again
    DatasetVersion.objects.all().delete()
    GoldenExample.objects.all().delete()
    result = dataset_import_jsonl(
        sources=[("open.jsonl", parts["open"]), ("held_out.jsonl", parts["held_out"])],
        user=curator,
        version_name="v1-imported",
    )
    # then the same examples come back with the same hash
    assert result.created == 3 and result.updated == 0
    assert result.version.content_hash == original_hash
    assert result.version.held_out_count == 1


def test_importing_into_the_same_dataset_updates_by_key(curator):
    _dataset()
    version = dataset_version_create(name="v1", user=curator)
    parts = _export(curator, version)
    result = dataset_import_jsonl(sources=[("open", parts["open"])], user=curator)
    assert (result.created, result.updated) == (0, 2)
    assert GoldenExample.objects.count() == 3


def test_bad_lines_are_reported_by_line_and_nothing_is_imported(curator):
    # given a file with one good line and three bad ones
    good = json.dumps({"task": "Cancel order A1", "reference_trajectory": STEPS})
    lines = [
        good,
        "{not json",
        json.dumps({"task": "", "reference_trajectory": STEPS}),
        json.dumps({"task": "x", "reference_trajectory": [{**STEPS[0], "step": 3}]}),
        "",
    ]
    # when it is imported
    with pytest.raises(ImportInvalid) as caught:
        dataset_import_jsonl(sources=[("upload.jsonl", lines)], user=curator, version_name="v")
    # then each bad line is named with its field, and nothing was written
    described = [str(error) for error in caught.value.errors]
    assert described[0].startswith("upload.jsonl line 2: line: not JSON")
    assert "upload.jsonl line 3: task: must be the user's request, a non-empty text" in described
    assert any(d.startswith("upload.jsonl line 4: reference_trajectory[0].step") for d in described)
    assert GoldenExample.objects.count() == 0
    assert DatasetVersion.objects.count() == 0


def test_a_failure_while_writing_leaves_nothing_half_imported(curator):
    # given a valid file whose version name is already taken
    dataset_version_create(name="taken", user=curator)
    lines = [json.dumps({"task": f"Cancel order A{n}"}) for n in range(3)]
    # when the import fails at the last step
    with pytest.raises(Exception, match="already exists"):
        dataset_import_jsonl(sources=[("f", lines)], user=curator, version_name="taken")
    # then no example stayed behind
    assert GoldenExample.objects.count() == 0


def test_repeated_keys_and_unknown_rubrics_are_line_errors(curator):
    lines = [
        json.dumps({"key": "k1", "task": "a"}),
        json.dumps({"key": "k1", "task": "b"}),
        json.dumps({"task": "c", "outcome_rubric": "Missing rubric"}),
    ]
    with pytest.raises(ImportInvalid) as caught:
        dataset_import_jsonl(sources=[("f", lines)], user=curator)
    assert [(e.line, e.field) for e in caught.value.errors] == [(2, "key"), (3, "outcome_rubric")]
