"""Judge replies read onto the 1.0 / 0.5 / 0.0 scale."""

import pytest

from judges.trajectory_llm import reply_score


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ('{"score": 1.0, "reason": "same"}', 1.0),
        ('{"evaluation_summary": {"score": 0.5, "explanation": "x"}}', 0.5),
        ("They differ.\nScore: 0", 0.0),
        # The seed's "Parameter equivalence" rubric asks for a bare number.
        ("1.0", 1.0),
        ("0.5\n", 0.5),
        # Unreadable or off the scale: a person decides, nothing is guessed.
        ("no idea", None),
        ('{"evaluation_summary": {"score": 0.4, "explanation": "x"}}', None),
    ],
)
def test_reply_score_snaps_to_the_rubric_scale(reply, score):
    assert reply_score(reply)[0] == score
