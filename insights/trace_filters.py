"""The trace lists' topic filter: the traces of one topic ("open as a trace list")."""

import django_filters


def traces_of_topic(queryset, name, value):
    return queryset.filter(topic_membership__topic_id=value)


def topic_filter() -> django_filters.NumberFilter:
    return django_filters.NumberFilter(method=traces_of_topic, label="Topic", min_value=1)
