"""reply_parse: each output format, validated by type and range; nothing is guessed."""

import pytest

from judges.models import OutputFormat, ParseStatus, RubricVersion, ScoreType
from judges.parsing import reply_parse

BOOLEAN_SCORE = '{"evaluation_summary": {"score": true, "explanation": "x"}}'
HALF_SCORE = '{"evaluation_summary": {"score": 0.5, "explanation": "x"}}'


def _version(output_format, score_type=ScoreType.BINARY, low=0, high=1):
    return RubricVersion(
        output_format=output_format, score_type=score_type, score_min=low, score_max=high
    )


@pytest.mark.parametrize(
    ("fmt", "score_type", "low", "high", "reply", "score"),
    [
        (
            OutputFormat.EVALUATION_SUMMARY,
            ScoreType.BINARY,
            0,
            1,
            '```json\n{"evaluation_summary": {"score": 1, "explanation": "search ok"}}\n```',
            1.0,
        ),
        (
            OutputFormat.SCORE_REASON,
            ScoreType.RANGE,
            0,
            10,
            'Here you go: {"score": 7, "reason": "book_flight used the searched id"}',
            7.0,
        ),
        (OutputFormat.SCORE_LINE, ScoreType.RANGE, 1, 5, "Mostly right.\n\n**Score: 4**", 4.0),
        (OutputFormat.BARE_NUMBER, ScoreType.CONTINUOUS, 0, 1, " 0.5\n", 0.5),
        (
            OutputFormat.CRITERIA,
            ScoreType.CRITERIA,
            0,
            1,
            '{"criteria": [{"question": "Refund issued?", "met": true},'
            ' {"question": "Customer told?", "met": false}]}',
            0.5,
        ),
    ],
)
def test_each_format_parses_to_a_score(fmt, score_type, low, high, reply, score):
    parsed = reply_parse(reply, _version(fmt, score_type, low, high))

    assert (parsed.status, parsed.score) == (ParseStatus.OK, score)


def test_cited_spans_are_the_span_names_in_the_explanation():
    reply = '{"score": 2, "reason": "cancel_order failed yet the answer claims success"}'
    version = _version(OutputFormat.SCORE_REASON, ScoreType.RANGE, 0, 10)

    parsed = reply_parse(reply, version, ["get_recent_orders", "cancel_order"])

    assert parsed.cited_spans == ["cancel_order"]


@pytest.mark.parametrize(
    ("fmt", "reply", "why"),
    [
        (OutputFormat.EVALUATION_SUMMARY, '{"evaluation_summary": {"score": ', "JSON"),
        (OutputFormat.EVALUATION_SUMMARY, '{"evaluation_summary": {"score": 1}}', "explanation"),
        (
            OutputFormat.EVALUATION_SUMMARY,
            '{"evaluation_summary": {"score": true, "explanation": "x"}}',
            "not a number",
        ),
        (OutputFormat.SCORE_REASON, '{"score": "high", "reason": "fine"}', "not a number"),
        (OutputFormat.SCORE_LINE, "Score: excellent", "Score: N"),
        (OutputFormat.BARE_NUMBER, "About one.", "bare number"),
        (OutputFormat.CRITERIA, '{"criteria": [{"question": "q", "met": "yes"}]}', "true or false"),
    ],
)
def test_a_reply_of_the_wrong_shape_is_unparseable_with_the_reason(fmt, reply, why):
    parsed = reply_parse(
        reply, _version(fmt, ScoreType.CRITERIA if fmt == "criteria" else "binary")
    )

    assert parsed.status == ParseStatus.UNPARSEABLE and parsed.score is None
    assert why in parsed.error


@pytest.mark.parametrize(
    ("fmt", "score_type", "low", "high", "reply"),
    [
        (OutputFormat.SCORE_LINE, ScoreType.RANGE, 1, 5, "Great.\nScore: 7"),
        (OutputFormat.SCORE_LINE, ScoreType.RANGE, 1, 5, "Good.\nScore: 3.5"),
        (
            OutputFormat.EVALUATION_SUMMARY,
            ScoreType.BINARY,
            0,
            1,
            '{"evaluation_summary": {"score": 0.5, "explanation": "x"}}',
        ),
        (OutputFormat.BARE_NUMBER, ScoreType.CONTINUOUS, 0, 1, "0.7"),
    ],
)
def test_a_score_outside_the_scale_is_out_of_range_not_clamped(fmt, score_type, low, high, reply):
    parsed = reply_parse(reply, _version(fmt, score_type, low, high))

    assert parsed.status == ParseStatus.OUT_OF_RANGE
    assert parsed.score is None and parsed.error
