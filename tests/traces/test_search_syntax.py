"""The search box and attribute filter languages: what they read and what they refuse."""

import pytest

from traces.search.syntax import (
    MAX_CLAUSES,
    AttributeClause,
    SearchSyntaxError,
    attribute_clauses_parse,
    content_query_parse,
)


def test_clauses_read_operators_numbers_words_and_quoted_strings():
    clauses = attribute_clauses_parse(
        'gen_ai.usage.input_tokens > 1000; gen_ai.request.model = "gpt-4o mini" and '
        "span.status != error cost<=0.5"
    )

    assert clauses == [
        AttributeClause("gen_ai.usage.input_tokens", ">", "1000", 1000.0),
        AttributeClause("gen_ai.request.model", "=", "gpt-4o mini", None),
        AttributeClause("span.status", "!=", "error", None),
        AttributeClause("cost", "<=", "0.5", 0.5),
    ]


def test_a_key_starting_with_and_is_a_key_not_a_separator():
    clauses = attribute_clauses_parse("a = 1 android.version = 14")

    assert [c.key for c in clauses] == ["a", "android.version"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("gen_ai.usage.input_tokens >", "Cannot read"),
        ("tokens > many", "needs a number"),
        ("tokens > nan", "needs a number"),
        ("= 5", "Cannot read"),
        ('model = "unclosed', "Cannot read"),
        ("just words", "Cannot read"),
    ],
)
def test_unreadable_clauses_are_refused_saying_what_to_write(text, says):
    with pytest.raises(SearchSyntaxError, match=says):
        attribute_clauses_parse(text)


def test_too_many_clauses_are_refused():
    with pytest.raises(SearchSyntaxError, match="At most"):
        attribute_clauses_parse("; ".join(f"k{n} = {n}" for n in range(MAX_CLAUSES + 1)))


def test_search_text_reads_words_phrases_or_and_exclusions():
    query = content_query_parse('refund "payment gateway" timeout OR refused -warehouse -"dry run"')

    assert query.required == [["refund"], ["payment gateway"], ["timeout", "refused"]]
    assert query.excluded == ["warehouse", "dry run"]


def test_or_with_nothing_before_it_is_a_word():
    assert content_query_parse("OR gate").required == [["OR"], ["gate"]]


def test_an_overlong_search_is_refused():
    with pytest.raises(SearchSyntaxError, match="at most"):
        content_query_parse("x" * 501)
