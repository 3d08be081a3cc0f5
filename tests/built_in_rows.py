"""The rows the migrations seed: the built-in rubrics and the default judge config.

A transactional test flushes every table after it, so a test that comes later puts them back
from here, through the same seed the judges migration runs.
"""

from django.apps import apps

from judges.builtin_rubrics import builtin_rubrics_seed


def built_in_rubrics_seed() -> None:
    """Seed the built-in rubrics and the default config again; rows still there are kept."""
    builtin_rubrics_seed(apps)
