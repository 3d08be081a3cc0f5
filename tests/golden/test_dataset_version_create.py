import pytest

from core.errors import ApplicationError
from golden.models import DatasetVersion, DatasetVersionImmutable
from golden.services import dataset_version_create, golden_example_update
from tests.golden.builders import example


def test_a_version_snapshots_every_example_with_counts_and_a_hash(curator):
    # given two open examples and one held out
    example(task="Cancel order A1")
    example(task="Cancel order A2")
    example(task="Cancel order A3", held_out=True)
    # when a version is made
    version = dataset_version_create(name="v1", note="first", user=curator)
    # then
    assert version.example_count == 3 and version.held_out_count == 1
    assert len(version.content_hash) == 64
    assert version.entries.count() == 3


def test_the_hash_depends_on_content_only(curator):
    first = example(task="Cancel order A1")
    v1 = dataset_version_create(name="v1", user=curator)
    v2 = dataset_version_create(name="v2", user=curator)
    assert v1.content_hash == v2.content_hash
    golden_example_update(example=first, data={"expected_behavior": "Confirm first."}, user=curator)
    v3 = dataset_version_create(name="v3", user=curator)
    assert v3.content_hash != v1.content_hash


def test_a_version_does_not_change_when_examples_change(curator):
    # given a version of one example
    first = example(task="Cancel order A1")
    version = dataset_version_create(name="v1", user=curator)
    # when the example is edited afterwards
    golden_example_update(example=first, data={"task": "Cancel order A1 today"}, user=curator)
    # then the snapshot still holds the old content
    entry = version.entries.get()
    assert entry.content["task"] == "Cancel order A1"


def test_a_version_cannot_be_saved_or_updated_again(curator):
    example(task="Cancel order A1")
    version = dataset_version_create(name="v1", user=curator)
    version.note = "changed"
    with pytest.raises(DatasetVersionImmutable):
        version.save()
    with pytest.raises(DatasetVersionImmutable):
        DatasetVersion.objects.filter(pk=version.pk).update(note="changed")
    entry = version.entries.get()
    entry.content = {"task": "x"}
    with pytest.raises(DatasetVersionImmutable):
        entry.save()
    with pytest.raises(DatasetVersionImmutable):
        version.entries.update(held_out=True)
    version.refresh_from_db()
    assert version.note == ""


def test_names_are_unique_and_required(curator):
    dataset_version_create(name="v1", user=curator)
    with pytest.raises(ApplicationError) as caught:
        dataset_version_create(name="v1", user=curator)
    assert caught.value.field == "name"
    with pytest.raises(ApplicationError):
        dataset_version_create(name="  ", user=curator)
