"""Trace list filters (page and API): project, agent, version, task type, tag, status, dates,
end-user feedback, session, trace id, task search, content search (traces/search/) and sort.

Apps to the right filter traces by their own data through `trace_filter_add` (judges: verdict;
reviews: review items), so every list, export and selection of traces offers them while
traces never reads those apps' models.
"""

from collections import OrderedDict

import django_filters
from django import forms
from django.db.models import Exists, F, OuterRef, Q
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Lower
from django.forms.models import ModelChoiceIterator
from django.http import QueryDict
from django_filters.fields import ModelChoiceField

from core.errors import ApplicationError
from traces.context_attributes import USER_ID_KEY
from traces.models import Feedback, FeedbackKind, Project, Trace, TraceTag
from traces.search.filters import ContentSearchFilters
from traces.sessions import session_filter_q
from traces.stop_reasons import (
    STOP_PREFIXES,
    STOP_SPELLINGS,
    UNCLEAN_KINDS,
    StopKind,
    stop_spellings,
)

STATUS_CHOICES = [
    ("error", "Has errors"),
    ("ok", "No errors"),
    ("in_progress", "Still receiving spans"),
    ("complete", "Complete"),
]
FEEDBACK_CHOICES = [
    ("thumbs_down", "A thumbs-down"),
    ("thumbs_up", "A thumbs-up"),
    ("any", "Any feedback"),
    ("none", "No feedback"),
]
UNCLEAN = "unclean"
STOP_CHOICES = [
    (UNCLEAN, "Truncated, refused, step limit or error"),
    *[(kind.value, kind.label) for kind in StopKind],
]
SORT_CHOICES = [
    ("-started_at", "Newest first"),
    ("started_at", "Oldest first"),
    ("-span_count", "Most spans"),
    ("-error_count", "Most errors"),
    ("-cost_usd", "Most expensive"),
    ("-input_tokens", "Most input tokens"),
    ("agent_name", "Agent name"),
]


# The list's default order; every order ends with the id, so a page cursor (core/keyset.py)
# has one place in it. The indexes trace_list_newest and trace_project_newest serve it.
DEFAULT_SORT = "-started_at"


def trace_list_ordering(sort: str) -> tuple[str, ...]:
    """The keyset ordering of the list sorted by `sort` (a SORT_CHOICES value, or the default
    when empty): the same order `TraceFilter.qs` gives, nulls last."""
    return (sort if sort in dict(SORT_CHOICES) else DEFAULT_SORT, "-id")


DATE_INPUT = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


def _ordering(value: str):
    """Traces without times (or costs) go last either way, on SQLite and PostgreSQL alike."""
    if value.startswith("-"):
        return F(value[1:]).desc(nulls_last=True)
    return F(value).asc(nulls_last=True)


def _with_prefixes(spellings: list[str]) -> list[str]:
    # Enum spellings (FINISH_REASON_MAX_TOKENS, FinishReason.STOP) read as the plain spelling.
    return [*spellings, *(f"{prefix}{s}" for prefix in STOP_PREFIXES for s in spellings)]


class _ListedChoices(ModelChoiceIterator):
    """The choices read in one query. Django reads them through `.iterator()`, which on
    PostgreSQL is a server-side cursor: three round trips for a few projects on every list."""

    def __iter__(self):
        if self.field.empty_label is not None:
            yield ("", self.field.empty_label)
        for obj in self.queryset.all():
            yield self.choice(obj)


class _ListedChoiceField(ModelChoiceField):
    iterator = _ListedChoices


class _ListedChoiceFilter(django_filters.ModelChoiceFilter):
    field_class = _ListedChoiceField


class TraceFilter(ContentSearchFilters):
    project = _ListedChoiceFilter(
        queryset=Project.objects.order_by("name"), to_field_name="slug", empty_label="All"
    )
    agent_name = django_filters.CharFilter(label="Agent")
    agent_version = django_filters.CharFilter(label="Version")
    task_type = django_filters.CharFilter(label="Task type")
    tag = django_filters.CharFilter(
        method="filter_tag",
        label="Tag",
        help_text="A tag the agent gave its traces.",
        widget=forms.TextInput(attrs={"list": "known-tags", "autocomplete": "off"}),
    )
    end_user = django_filters.CharFilter(
        method="filter_end_user",
        label="User",
        help_text="The end user the agent served (user.id, enduser.id, a context's user_id).",
    )
    status = django_filters.ChoiceFilter(
        choices=STATUS_CHOICES, method="filter_status", empty_label="Any", label="Status"
    )
    stop = django_filters.ChoiceFilter(
        choices=STOP_CHOICES, method="filter_stop", empty_label="Any", label="Stop"
    )
    started_after = django_filters.DateFilter(
        field_name="started_at", lookup_expr="date__gte", label="From", widget=DATE_INPUT
    )
    started_before = django_filters.DateFilter(
        field_name="started_at", lookup_expr="date__lte", label="To", widget=DATE_INPUT
    )
    feedback = django_filters.ChoiceFilter(
        choices=FEEDBACK_CHOICES, method="filter_feedback", empty_label="Any", label="Feedback"
    )
    session = django_filters.CharFilter(
        method="filter_session", label="Session", help_text="Conversation id, or #number."
    )
    trace_id = django_filters.CharFilter(
        method="filter_trace_id",
        label="Trace id",
        help_text="The trace's own id as the agent sent it (OpenTelemetry hex).",
    )
    q = django_filters.CharFilter(field_name="task", lookup_expr="icontains", label="Search task")
    sort = django_filters.ChoiceFilter(
        choices=SORT_CHOICES, method="filter_sort", empty_label="Newest first", label="Sort"
    )

    class Meta:
        model = Trace
        fields: list[str] = []

    def filter_status(self, queryset, name, value):
        return {
            "error": queryset.filter(error_count__gt=0),
            "ok": queryset.filter(error_count=0),
            "in_progress": queryset.filter(completed_at__isnull=True),
            "complete": queryset.filter(completed_at__isnull=False),
        }.get(value, queryset)

    def filter_stop(self, queryset, name, value: str):
        """Traces whose stop reason, in any provider's spelling, is of the chosen kind."""
        if value == StopKind.OTHER:
            known = [s for spellings in STOP_SPELLINGS.values() for s in spellings]
            return queryset.alias(stop_lower=Lower("stop_reason")).exclude(
                Q(stop_reason="") | Q(stop_lower__in=_with_prefixes(known))
            )
        kinds = UNCLEAN_KINDS if value == UNCLEAN else (value,)
        spellings = [s for kind in kinds for s in stop_spellings(kind)]
        return queryset.alias(stop_lower=Lower("stop_reason")).filter(
            stop_lower__in=_with_prefixes(spellings)
        )

    def filter_feedback(self, queryset, name, value: str):  # typed: the schema says string
        given = Feedback.objects.filter(trace=OuterRef("pk"))
        if value == "none":
            return queryset.filter(~Exists(given))
        if value in ("thumbs_down", "thumbs_up"):
            given = given.filter(
                kind=FeedbackKind.THUMBS, value=1.0 if value == "thumbs_up" else 0.0
            )
        return queryset.filter(Exists(given))

    def filter_trace_id(self, queryset, name, value: str):
        # Both spellings through the (project, external_id) index: hex may be pasted in capitals.
        value = value.strip()
        return queryset.filter(external_id__in={value, value.lower()})

    def filter_tag(self, queryset, name, value):
        tagged = TraceTag.objects.filter(trace=OuterRef("pk"), name=value.strip())
        return queryset.filter(Exists(tagged))

    def filter_end_user(self, queryset, name, value):
        # Spelled as the trace_end_user index is, its condition too, so the index serves it.
        return queryset.alias(end_user_value=KeyTextTransform(USER_ID_KEY, "context")).filter(
            context__has_key=USER_ID_KEY, end_user_value=value.strip()
        )

    def filter_session(self, queryset, name, value):
        return queryset.filter(session_filter_q(value))

    def filter_sort(self, queryset, name, value):
        if value in dict(SORT_CHOICES):
            return queryset.order_by(_ordering(value), "-pk")
        return queryset

    @property
    def qs(self):
        queryset = super().qs
        if not queryset.query.order_by:
            queryset = queryset.order_by(_ordering(DEFAULT_SORT), "-pk")
        return queryset

    @property
    def ordering(self) -> tuple[str, ...]:
        """The keyset ordering of `qs` (call after is_valid)."""
        cleaned = getattr(self.form, "cleaned_data", None) or {}
        return trace_list_ordering(cleaned.get("sort") or "")


def traces_for_filter_fields(visible, given: dict, field: str = "filter"):
    """The traces of `visible` a trace-list filter sent as a JSON object selects (the API's
    bulk endpoints); an unknown or invalid parameter is refused naming `field.<name>`."""
    return traces_for_query(visible, filter_query(given), field)


def filter_query(given: dict) -> QueryDict:
    """A trace-list filter sent as a JSON object, as the list's query parameters."""
    query = QueryDict(mutable=True)
    query.update(given)
    return query


def traces_for_query(visible, query: QueryDict, field: str = "filter"):
    """The traces of `visible` a trace-list filter's parameters select, refused as above."""
    trace_filter = TraceFilter(query, queryset=visible)
    unknown = sorted(set(query) - set(trace_filter.filters))
    if unknown:
        raise ApplicationError("Not a trace-list filter.", field=f"{field}.{unknown[0]}")
    if not trace_filter.is_valid():
        name, errors = next(iter(trace_filter.errors.items()))
        raise ApplicationError(f"{name}: {' '.join(errors)}", field=f"{field}.{name}")
    return trace_filter.qs


def trace_filter_add(name: str, trace_filter: django_filters.Filter, *, after: str) -> None:
    """Offer a filter of an app to the right on every trace list, placed after `after`.

    Called from that app's ready(); the filter's `method` is a function of the app's own
    (queryset, name, value) -> queryset.
    """
    filters = [
        (existing, f) for existing, f in TraceFilter.base_filters.items() if existing != name
    ]
    position = [existing for existing, _ in filters].index(after) + 1
    filters.insert(position, (name, trace_filter))
    TraceFilter.base_filters = OrderedDict(filters)
