"""The trace list's content search (`search`) and attribute filters (`attr`), page and API.

A value the languages in traces/search/syntax.py cannot read is a form error on its field, so
the API answers 400 naming the parameter and the page shows the message beside the box.
"""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import Q

from traces.search.matching import attribute_condition
from traces.search.sql import content_condition
from traces.search.syntax import (
    MAX_SEARCH_CHARS,
    SearchSyntaxError,
    attribute_clauses_parse,
    content_query_parse,
)


class _ParsedField(forms.CharField):
    """A text box whose cleaned value is its parse; bad syntax is a validation error."""

    def __init__(self, *args, parse=None, **kwargs):
        self.parse = parse
        super().__init__(*args, **kwargs)

    def clean(self, value):
        text = super().clean(value)
        if not text:
            return None
        try:
            return self.parse(text)
        except SearchSyntaxError as exc:
            # The message holds the user's text: passed as a parameter, a `%` in it is not a
            # format directive to the code that formats it (django-filter's API errors).
            raise forms.ValidationError(
                "%(message)s", code="syntax", params={"message": str(exc)}
            ) from exc


class _ParsedFilter(django_filters.CharFilter):
    # A CharFilter, so the OpenAPI schema types it as a string (the text a client sends).
    field_class = _ParsedField


class ContentSearchFilters(django_filters.FilterSet):
    """Declared filters a trace FilterSet gets by inheriting this class."""

    search = _ParsedFilter(
        method="filter_search",
        label="Search content",
        parse=content_query_parse,
        max_length=MAX_SEARCH_CHARS,
        help_text='Words in task, answer, span inputs, outputs or attributes; "a phrase", '
        "OR, -exclude.",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "timeout OR refused"}),
    )
    attr = _ParsedFilter(
        method="filter_attributes",
        label="Attributes",
        parse=attribute_clauses_parse,
        help_text="key = value or key > number; separate clauses with ;",
        widget=forms.TextInput(attrs={"placeholder": "gen_ai.usage.input_tokens > 1000"}),
    )

    def filter_search(self, queryset, name, value):
        return queryset.filter(content_condition(value)) if value else queryset

    def filter_attributes(self, queryset, name, value):
        condition = Q()
        for clause in value or ():
            condition &= attribute_condition(clause)
        return queryset.filter(condition)
