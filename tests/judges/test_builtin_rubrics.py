"""The built-in rubrics a new database is seeded with (by the judges migration, through this
same function): each once, with an approved first version, whatever is seeded again."""

import pytest
from django.apps import apps

from judges.builtin_rubrics import BUILT_IN_RUBRICS, builtin_rubrics_seed
from judges.models import JudgeConfig, Rubric, RubricVersion

pytestmark = pytest.mark.django_db


def test_seeding_twice_leaves_each_built_in_rubric_once_with_one_approved_version():
    builtin_rubrics_seed(apps)
    builtin_rubrics_seed(apps)
    names = [spec["name"] for spec in BUILT_IN_RUBRICS]
    assert sorted(Rubric.objects.filter(name__in=names).values_list("name", flat=True)) == sorted(
        names
    )
    versions = RubricVersion.objects.filter(rubric__name__in=names)
    assert sorted(versions.values_list("rubric__name", "number", "status")) == sorted(
        (name, 1, "approved") for name in names
    )
    assert JudgeConfig.objects.filter(name="default").count() == 1


def test_the_pairwise_rubric_carries_its_criteria_and_steps():
    builtin_rubrics_seed(apps)
    version = RubricVersion.objects.get(rubric__name="Pairwise preference")
    assert (version.score_type, version.output_format) == ("pairwise", "pairwise")
    assert len(version.criteria) == 3 and len(version.evaluation_steps) == 5
