"""Keyset (cursor) pagination for pages whose lists grow: a deep page costs what the first does.

An offset page reads and throws away every row before it, so page 300 of a queue read 15,000
index entries. Here a page starts from the last row the reader saw: `?after=CURSOR` lists the
rows that follow it in the list's order, `?before=CURSOR` the rows that precede it. A cursor
holds the sort values of that row (the last is always the primary key, so ties on the sort key
never repeat or skip a row), so a link means the same rows' neighbourhood whatever is inserted
or settled meanwhile, and can be bookmarked. Rows added after the reader opened the first page
appear at the top, never pushed into the page they are on.

`?page=N` (the offset link of earlier versions) still answers, so bookmarks keep working;
pages link only by cursor.
"""

import base64
import binascii
import datetime as dt
import json
from dataclasses import dataclass, field
from functools import reduce
from operator import or_

from django.db.models import Q
from django.utils.dateparse import parse_datetime

from core.errors import ApplicationError

# The offset pages an old bookmark may still ask for; beyond, offset would cost what keyset
# pagination saves, and the link is refused with a pointer to the first page.
LEGACY_PAGE_MAX = 1000


@dataclass
class KeysetPage:
    """One page: its rows, and the cursors of the pages on either side ("" when none)."""

    rows: list
    newer_cursor: str = ""
    older_cursor: str = ""
    is_first: bool = True
    sort_fields: tuple[str, ...] = field(default=(), repr=False)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def has_other_pages(self) -> bool:
        return bool(self.newer_cursor or self.older_cursor)


def _field_name(term: str) -> str:
    return term.lstrip("-")


def _encode_value(value):
    if isinstance(value, dt.datetime):
        return value.isoformat()
    return value


def _decode_value(raw, like):
    """A cursor value of the type its field holds; ValueError when it is not one."""
    if isinstance(like, dt.datetime):
        parsed = parse_datetime(raw) if isinstance(raw, str) else None
        if parsed is None:
            raise ValueError(raw)
        return parsed
    if isinstance(like, int) and not isinstance(like, bool):
        if not isinstance(raw, int) or isinstance(raw, bool):
            raise ValueError(raw)
        return raw
    return raw


def cursor_encode(ordering: tuple[str, ...], row) -> str:
    """The cursor of `row` in a list ordered by `ordering` (URL-safe, no padding)."""
    values = [_encode_value(getattr(row, _field_name(term))) for term in ordering]
    text = json.dumps(values, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def cursor_decode(cursor: str, ordering: tuple[str, ...], kinds: tuple, name: str) -> list:
    """The sort values a cursor holds; ApplicationError naming the parameter when it is not
    a cursor of this list."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        values = json.loads(base64.urlsafe_b64decode(padded.encode()))
        if not isinstance(values, list) or len(values) != len(ordering):
            raise ValueError(values)
        return [_decode_value(raw, like) for raw, like in zip(values, kinds, strict=True)]
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise ApplicationError(
            f"{name}: not a position this list gave; start again from its first page.",
            field=name,
        ) from None


def _beyond(ordering: tuple[str, ...], values: list, reverse: bool) -> Q:
    """Rows strictly after `values` in `ordering` (before them when `reverse`): the usual
    expansion (a > x) OR (a = x AND b > y) OR ..., with the first column's bound repeated on
    its own so the database starts its index walk there."""
    terms = []
    for index, term in enumerate(ordering):
        descending = term.startswith("-") != reverse
        lookup = "lt" if descending else "gt"
        equal = {_field_name(t): values[i] for i, t in enumerate(ordering[:index])}
        terms.append(Q(**equal, **{f"{_field_name(term)}__{lookup}": values[index]}))
    first = ordering[0]
    first_bound = "lte" if first.startswith("-") != reverse else "gte"
    return Q(**{f"{_field_name(first)}__{first_bound}": values[0]}) & reduce(or_, terms)


def _reversed(ordering: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(term[1:] if term.startswith("-") else "-" + term for term in ordering)


# Python types of the sort fields, read from the model so a cursor's values are checked.
def _field_kinds(queryset, ordering: tuple[str, ...]) -> tuple:
    kinds = []
    for term in ordering:
        model_field = queryset.model._meta.get_field(_field_name(term))
        internal = model_field.get_internal_type()
        if internal == "DateTimeField":
            kinds.append(dt.datetime.now(dt.UTC))
        elif "Integer" in internal or internal in ("AutoField", "BigAutoField"):
            kinds.append(0)
        else:
            kinds.append("")
        if model_field.null:
            raise ValueError(f"keyset pagination needs non-null sort fields: {term}")
    return tuple(kinds)


def keyset_page(queryset, ordering: tuple[str, ...], params, per_page: int) -> KeysetPage:
    """The page `params` asks for (`after`, `before`, or the legacy `page`) of `queryset` in
    `ordering`, whose last term must be the primary key so every row has one place."""
    if _field_name(ordering[-1]) not in ("pk", "id"):
        raise ValueError("keyset ordering must end with the primary key")
    kinds = _field_kinds(queryset, ordering)
    after, before = params.get("after") or "", params.get("before") or ""
    ordered = queryset.order_by(*ordering)
    page = KeysetPage(rows=[], sort_fields=ordering)
    if before:
        values = cursor_decode(before, ordering, kinds, "before")
        backwards = list(
            queryset.filter(_beyond(ordering, values, reverse=True)).order_by(*_reversed(ordering))[
                : per_page + 1
            ]
        )
        if len(backwards) > per_page:
            page.rows = list(reversed(backwards[:per_page]))
            page.is_first = False
            page.newer_cursor = cursor_encode(ordering, page.rows[0])
            page.older_cursor = cursor_encode(ordering, page.rows[-1])
            return page
        # Back at the top: the first page, full, rather than the few rows left above.
        rows = list(ordered[: per_page + 1])
    elif after:
        values = cursor_decode(after, ordering, kinds, "after")
        rows = list(ordered.filter(_beyond(ordering, values, reverse=False))[: per_page + 1])
        page.is_first = False
    else:
        offset = _legacy_offset(params.get("page"), per_page)
        rows = list(ordered[offset : offset + per_page + 1])
        page.is_first = offset == 0
    page.rows = rows[:per_page]
    if len(rows) > per_page:
        page.older_cursor = cursor_encode(ordering, page.rows[-1])
    if not page.is_first and page.rows:
        page.newer_cursor = cursor_encode(ordering, page.rows[0])
    elif not page.is_first:
        # Past the last row (what the cursor pointed at went away): offer the way back.
        page.newer_cursor = after
    return page


def _legacy_offset(raw, per_page: int) -> int:
    if raw in (None, ""):
        return 0
    try:
        number = max(1, int(raw))
    except (TypeError, ValueError):
        number = 1  # as the offset pages read a page number they could not
    if number > LEGACY_PAGE_MAX:
        raise ApplicationError(
            f"page: must be a whole number from 1 to {LEGACY_PAGE_MAX}; "
            "later pages are reached with the Older link.",
            field="page",
        )
    return (number - 1) * per_page


def keyset_page_for_view(queryset, ordering: tuple[str, ...], params, per_page: int):
    """For a page: (page, error). A link this list did not give shows the first page with
    the reason (the view answers 400), rather than an error page without the list."""
    try:
        return keyset_page(queryset, ordering, params, per_page), ""
    except ApplicationError as exc:
        return keyset_page(queryset, ordering, {}, per_page), exc.message
