"""Curator-only agreement of the judge on held-out golden examples."""

import pytest
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from insights.heldout import held_out_agreement
from reviews.models import ReviewItem
from tests.factories import (
    GoldenExampleFactory,
    JudgeRunFactory,
    QueueFactory,
    TraceFactory,
    VerdictFactory,
)

pytestmark = pytest.mark.django_db


def labelled(run, judge, human, *, held_out):
    trace = TraceFactory()
    VerdictFactory(run=run, trace=trace, status="agreed", score=judge)
    ReviewItem.objects.create(
        queue=QueueFactory(),
        trace=trace,
        rubric_version=run.rubric_version,
        reason="audit_sample",
        status="resolved",
        resolved_score=human,
    )
    GoldenExampleFactory(source_trace=trace, held_out=held_out)


def test_only_held_out_examples_are_reported():
    run = JudgeRunFactory()
    pairs = [(1.0, 1.0), (1.0, 0.0), (0.0, 0.0), (0.0, 0.0), (1.0, 1.0)]
    for judge, human in pairs:
        labelled(run, judge, human, held_out=True)
    labelled(run, 1.0, 0.0, held_out=False)
    [result] = held_out_agreement()
    measure = result["measure"]
    assert measure.n == 5
    assert measure.matrix == [[2, 0], [1, 2]]
    assert measure.kappa == pytest.approx(
        cohen_kappa_score([j for j, _ in pairs], [h for _, h in pairs])
    )


def test_curator_sees_the_report(client, curator):
    run = JudgeRunFactory()
    labelled(run, 1.0, 1.0, held_out=True)
    labelled(run, 0.0, 0.0, held_out=True)
    client.force_login(curator)
    response = client.get(reverse("insights:held_out_report"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "100%" in html
    # The counts read as a table a judge score a row, not as a list of lists.
    assert "judge ↓ / person →" in html
    assert "<tr><th>0</th><td>1</td><td>0</td></tr>" in html
    assert "[[" not in html
