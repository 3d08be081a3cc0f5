"""Judging unit tests talk to an in-process simulated judge through the real SDK."""

import pytest

from judges.models import JudgeConfig, Rubric


@pytest.fixture
def simulator(simulator, settings):
    """The shared simulated judge, with calls that give up within a second."""
    settings.JUDGE_TIMEOUT_SECONDS = 1.0
    return simulator


@pytest.fixture
def tool_rubric(db):
    """The built-in tool-call rubric's first version (from the seed migration)."""
    return Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)


@pytest.fixture
def default_config(db):
    return JudgeConfig.objects.get(name="default")


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    """Collect on-commit callbacks (task enqueues) instead of sending them to a broker."""
    return django_capture_on_commit_callbacks
