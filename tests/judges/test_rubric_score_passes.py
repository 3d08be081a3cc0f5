"""RubricVersion.score_passes: the one rule for "did this score say the agent got it right"."""

import pytest

from judges.models import RubricVersion, ScoreType


def version(score_type, low, high) -> RubricVersion:
    return RubricVersion(score_type=score_type, score_min=low, score_max=high)


@pytest.mark.parametrize(
    ("score_type", "low", "high", "score", "passes"),
    [
        # a 1-5 rubric: 3 is the judge's "neither", not a claim that the agent got it right
        (ScoreType.RANGE, 1, 5, 2, False),
        (ScoreType.RANGE, 1, 5, 3, False),
        (ScoreType.RANGE, 1, 5, 3.5, True),
        (ScoreType.RANGE, 1, 5, 4, True),
        # partial credit on the 1.0 / 0.5 / 0.0 scale is not a pass either
        (ScoreType.CONTINUOUS, 0, 1, 0.5, False),
        (ScoreType.CONTINUOUS, 0, 1, 1.0, True),
        (ScoreType.CRITERIA, 0, 1, 0.5, False),
        (ScoreType.CRITERIA, 0, 1, 0.75, True),
        # a binary scale passes only at its top
        (ScoreType.BINARY, 0, 1, 0, False),
        (ScoreType.BINARY, 0, 1, 0.9, False),
        (ScoreType.BINARY, 0, 1, 1, True),
    ],
)
def test_a_score_passes_strictly_above_the_middle_of_its_scale(
    score_type, low, high, score, passes
):
    assert version(score_type, low, high).score_passes(score) is passes
