"""Counts on list pages read with thousands grouped, as the trace and queue counts do."""

import pytest
from django.urls import reverse

from tests.factories import JudgeRunFactory, ProjectFactory
from traces.models import Session

pytestmark = pytest.mark.django_db


def test_run_and_session_lists_group_thousands(client, curator):
    JudgeRunFactory(trace_count=12345)
    Session.objects.create(project=ProjectFactory(), external_id="long-chat", trace_count=4321)
    client.force_login(curator)

    runs = client.get(reverse("judges:run_list")).content.decode()
    sessions = client.get(reverse("explorer:session_list")).content.decode()

    assert "<td>12,345</td>" in runs
    assert "<td>4,321</td>" in sessions
