"""The trace lists' review filter: traces with or without a review item."""

import django_filters
from django.db.models import Exists, OuterRef

from reviews.models import ReviewItem


def traces_by_review_item(queryset, name, value):
    items = ReviewItem.objects.filter(trace=OuterRef("pk"))
    return queryset.filter(Exists(items) if value == "true" else ~Exists(items))


def review_item_filter() -> django_filters.ChoiceFilter:
    return django_filters.ChoiceFilter(
        choices=[("true", "Yes"), ("false", "No")],
        method=traces_by_review_item,
        label="In review",
        empty_label="Any",
    )
