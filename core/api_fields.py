"""Request fields the APIs share, and their rules for choosing rows."""

from rest_framework import serializers

from core.errors import ApplicationError

# The largest key a bigint column holds: a larger number names no row, and SQLite cannot
# even be asked about it.
MAX_ROW_ID = 2**63 - 1


class RowIdField(serializers.IntegerField):
    """A row's primary key as a client sends it: a positive integer a key column can hold."""

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ROW_ID)
        super().__init__(**kwargs)


class RowIdsField(serializers.ListField):
    """Rows chosen by their keys: at least one and at most `max_length`; optional, since an
    API that takes ids usually takes a filter instead."""

    def __init__(self, *, max_length: int, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(child=RowIdField(), allow_empty=False, max_length=max_length, **kwargs)


def exactly_one_given(data: dict, *names: str) -> None:
    """A serializer's rule that one and only one of these fields is given; the refusal names
    the first of them."""
    if sum(name in data for name in names) != 1:
        listed = f"{', '.join(names[:-1])} or {names[-1]}"
        raise serializers.ValidationError({names[0]: f"Give exactly one of {listed}."})


def ids_chosen(queryset, ids, *, field: str, noun: str) -> list[int]:
    """These ids, sorted, once `queryset` is found to hold each; an id it does not hold (not
    stored, or hidden from the reader) refuses the request, naming `field` and the first ten."""
    wanted = set(ids)
    found = set(queryset.filter(pk__in=wanted).values_list("pk", flat=True))
    missing = sorted(wanted - found)
    if missing:
        shown = ", ".join(map(str, missing[:10]))
        raise ApplicationError(f"No such {noun}: {shown}.", field=field)
    return sorted(found)


def rows_chosen(queryset, ids, *, field: str, noun: str):
    """The rows of `queryset` with these ids, refused as ids_chosen refuses."""
    return queryset.filter(pk__in=ids_chosen(queryset, ids, field=field, noun=noun))
