"""The trace lists' verdict filter: traces by the status of their verdicts, or never judged."""

import django_filters
from django.db.models import Exists, OuterRef

from judges.models import Verdict

VERDICT_CHOICES = [
    ("agreed", "Agreed"),
    ("disputed", "Disputed"),
    ("failed", "Failed"),
    ("none", "Not judged"),
]


def traces_by_verdict(queryset, name, value):
    verdicts = Verdict.objects.filter(trace=OuterRef("pk"))
    if value == "none":
        return queryset.filter(~Exists(verdicts))
    return queryset.filter(Exists(verdicts.filter(status=value)))


def verdict_filter() -> django_filters.ChoiceFilter:
    return django_filters.ChoiceFilter(
        choices=VERDICT_CHOICES, method=traces_by_verdict, empty_label="Any", label="Verdict"
    )
