"""CSV download of each overview chart."""

import csv
import io

import pytest
from django.urls import reverse

from insights.overview import CHART_BUILDERS
from tests.insights.csv_download import csv_download_rows

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("key", list(CHART_BUILDERS))
@pytest.mark.usefixtures("module_world")
def test_every_chart_downloads_as_csv_with_its_header(client, annotator, key):
    client.force_login(annotator)
    rows = csv_download_rows(client.get(reverse("insights:chart_csv", args=[key])), key)
    assert len(rows) >= 2  # a header and at least one row of data


@pytest.mark.usefixtures("module_world")
def test_flip_rate_csv_carries_counts_and_interval(client, annotator):
    client.force_login(annotator)
    response = client.get(reverse("insights:chart_csv", args=["flip_rate"]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert set(rows[0]) == {
        "week",
        "judge_version",
        "verdicts",
        "flips",
        "flip_rate",
        "ci_low",
        "ci_high",
    }
    assert sum(int(r["flips"]) for r in rows) == 3


def test_unknown_chart_is_not_found(client, annotator):
    client.force_login(annotator)
    assert client.get(reverse("insights:chart_csv", args=["nope"])).status_code == 404


def test_csv_needs_a_role(client, outsider):
    client.force_login(outsider)
    assert client.get(reverse("insights:chart_csv", args=["flip_rate"])).status_code == 403
