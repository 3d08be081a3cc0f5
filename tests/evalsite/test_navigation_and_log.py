"""Where a newcomer finds the API, and a log that stays quiet at INFO."""

import logging

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_navigation_links_api_docs_and_api_tokens(client, annotator):
    client.force_login(annotator)
    page = client.get(reverse("explorer:list")).content.decode()
    assert f'href="{reverse("api-docs")}">API docs</a>' in page
    assert f'href="{reverse("accounts:tokens")}"' in page and ">API tokens</a>" in page


def test_a_403_logs_no_warning_with_a_traceback(client, outsider, caplog):
    client.force_login(outsider)
    with caplog.at_level(logging.INFO):
        response = client.get(reverse("judges:config_list"))
    assert response.status_code == 403
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_beat_ticks_are_below_info():
    assert not logging.getLogger("celery.beat").isEnabledFor(logging.INFO)
    assert logging.getLogger("django.request").isEnabledFor(logging.ERROR)
