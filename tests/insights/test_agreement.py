"""Judge vs people: matrices per pass and verdict, kappa, blind labels apart."""

import pytest
from sklearn.metrics import cohen_kappa_score

from insights.agreement import judge_human_agreement, judge_human_chart
from reviews.models import Annotation, Queue, ReviewItem
from tests.factories import (
    GoldenExampleFactory,
    JudgeRunFactory,
    JudgmentFactory,
    RubricVersionFactory,
    TraceFactory,
    UserFactory,
    VerdictFactory,
)

pytestmark = pytest.mark.django_db


def resolved(run, passes, verdict_score, human, *, blind=False, person=None):
    trace = TraceFactory()
    for index, score in enumerate(passes):
        JudgmentFactory(trace=trace, run=run, pass_index=index, score=score)
    verdict = VerdictFactory(trace=trace, run=run, status="agreed", score=verdict_score)
    queue, _ = Queue.objects.get_or_create(name="Blind" if blind else "Open", blind=blind)
    item = ReviewItem.objects.create(
        queue=queue,
        trace=trace,
        verdict=verdict,
        rubric_version=run.rubric_version,
        reason="calibration" if blind else "audit_sample",
        status="resolved",
        resolved_score=human,
    )
    person = person or UserFactory()
    Annotation.objects.create(item=item, annotator=person, score=human, blind=blind)
    return item


def by_source(results):
    return {(r["source"], r["blind"]): r for r in results}


def test_binary_matrices_per_pass_and_verdict_match_hand_counts():
    run = JudgeRunFactory()
    # (pass 1, pass 2, verdict, human)
    rows = [(1, 1, 1, 1), (1, 1, 1, 1), (0, 0, 0, 0), (1, 0, 1, 0), (0, 1, 0, 1), (1, 1, 1, 0)]
    for p1, p2, verdict, human in rows:
        resolved(run, [float(p1), float(p2)], float(verdict), float(human))
    results = by_source(judge_human_agreement(resamples=200))
    verdict = results[("verdict", False)]
    # judge rows, person columns: (0,0)=1 (0,1)=1 (1,0)=2 (1,1)=2
    assert verdict["matrix"] == [[1, 1], [2, 2]]
    assert verdict["percent_agreement"] == pytest.approx(3 / 6)
    judge = [r[2] for r in rows]
    human = [r[3] for r in rows]
    assert verdict["kappa"] == pytest.approx(cohen_kappa_score(judge, human))
    second = results[("pass 2", False)]
    # pass 2 is [1,1,0,0,1,1] against [1,1,0,0,1,0]: (0,0)=2 (1,0)=1 (1,1)=3
    assert second["matrix"] == [[2, 0], [1, 3]]
    assert second["kappa"] == pytest.approx(cohen_kappa_score([r[1] for r in rows], human))


def test_blind_labels_are_measured_apart():
    run = JudgeRunFactory()
    resolved(run, [1.0, 1.0], 1.0, 1.0)
    resolved(run, [1.0, 1.0], 1.0, 0.0, blind=True)
    resolved(run, [0.0, 0.0], 0.0, 0.0, blind=True)
    results = by_source(judge_human_agreement(resamples=50))
    assert results[("verdict", False)]["n"] == 1
    assert results[("verdict", True)]["n"] == 2
    assert results[("verdict", True)]["matrix"] == [[1, 0], [1, 0]]


def test_ordinal_rubric_is_linear_weighted_over_its_whole_scale():
    version = RubricVersionFactory(score_type="range", score_min=1, score_max=5)
    run = JudgeRunFactory(rubric_version=version)
    pairs = [(5, 4), (4, 4), (2, 1), (3, 3), (1, 1), (5, 5)]
    for judge, human in pairs:
        resolved(run, [float(judge), float(judge)], float(judge), float(human))
    verdict = by_source(judge_human_agreement(resamples=50))[("verdict", False)]
    assert verdict["weights"] == "linear"
    assert verdict["labels"] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert verdict["kappa"] == pytest.approx(
        cohen_kappa_score(
            [j for j, _ in pairs], [h for _, h in pairs], labels=[1, 2, 3, 4, 5], weights="linear"
        )
    )


def test_open_items_and_unlabelled_verdicts_are_left_out():
    run = JudgeRunFactory()
    item = resolved(run, [1.0, 1.0], 1.0, 1.0)
    ReviewItem.objects.filter(pk=item.pk).update(status="open")
    VerdictFactory(run=run, status="agreed", score=1.0)
    assert judge_human_agreement(resamples=10) == []
    assert judge_human_chart(resamples=10).figure["data"] == []


def test_held_out_golden_traces_are_left_to_the_curator_report():
    run = JudgeRunFactory()
    resolved(run, [1.0, 1.0], 1.0, 1.0)
    hidden = resolved(run, [1.0, 1.0], 1.0, 0.0)
    GoldenExampleFactory(source_trace=hidden.trace, held_out=True)
    results = by_source(judge_human_agreement(resamples=10))
    assert results[("verdict", False)]["n"] == 1
    assert results[("pass 1", False)]["n"] == 1
