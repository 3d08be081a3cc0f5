"""Curators and admins, who are never blind, open trace pages."""

import pytest
from django.urls import reverse

from tests.factories import SpanFactory, TraceFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("persona", ["curator", "admin_user", "annotator"])
def test_every_role_opens_a_trace_page(client, request, persona):
    trace = TraceFactory(task="Refund order A1990.")
    SpanFactory(trace=trace, name="get_order")
    client.force_login(request.getfixturevalue(persona))
    response = client.get(reverse("explorer:detail", args=[trace.pk]))
    assert response.status_code == 200
    assert "Refund order A1990." in response.content.decode()
