"""Judging unit tests talk to an in-process simulated judge through the real SDK."""

import pytest

from demo.simulator.server import start_simulator
from judges.models import JudgeConfig, Rubric


@pytest.fixture
def simulator(settings):
    handle = start_simulator()
    settings.ANTHROPIC_BASE_URL = handle.base_url
    settings.JUDGE_SIMULATED = True
    settings.JUDGE_RETRY_BASE_SECONDS = 0.01
    settings.JUDGE_RETRY_MAX_SECONDS = 0.05
    settings.JUDGE_TIMEOUT_SECONDS = 1.0
    settings.JUDGE_MAX_RETRIES = 2
    yield handle
    handle.stop()


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
