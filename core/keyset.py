"""Keyset (cursor) pagination for pages whose lists grow: a deep page costs what the first does.

An offset page reads and throws away every row before it, so page 300 of a queue read 15,000
index entries. Here a page starts from the last row the reader saw: `?after=CURSOR` lists the
rows that follow it in the list's order, `?before=CURSOR` the rows that precede it. A cursor
holds the sort values of that row (the last is always the primary key, so ties on the sort key
never repeat or skip a row; a nullable first sort field lists its nulls last, as the lists'
NULLS LAST indexes hold them), so a link means the same rows' neighbourhood whatever is inserted
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
from decimal import Decimal, InvalidOperation

from django.db.models import F
from django.utils.dateparse import parse_datetime

from core.errors import ApplicationError

# The offset pages an old bookmark may still ask for; beyond, offset would cost what keyset
# pagination saves, and the link is refused with a pointer to the first page.
LEGACY_PAGE_MAX = 1000
# A cursor's whole numbers must fit the widest integer column, or the database refuses them.
BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1


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
    if isinstance(value, Decimal):
        return str(value)
    return value


def _decode_value(raw, like, nullable: bool):
    """A cursor value of the type its field holds; ValueError when it is not one."""
    if raw is None:
        if not nullable:
            raise ValueError(raw)
        return None
    if isinstance(like, Decimal):
        try:
            parsed = Decimal(raw) if isinstance(raw, str) else None
        except InvalidOperation:
            parsed = None
        # Finite and of a size a numeric column compares with (the database refuses more).
        if parsed is None or not parsed.is_finite() or abs(parsed.adjusted()) > 40:
            raise ValueError(raw)
        return parsed
    if isinstance(like, str) and (not isinstance(raw, str) or "\x00" in raw):
        raise ValueError(raw)  # PostgreSQL text holds no NUL
    if isinstance(like, dt.datetime):
        parsed = parse_datetime(raw) if isinstance(raw, str) else None
        if parsed is None or parsed.tzinfo is None:
            raise ValueError(raw)
        return parsed
    if isinstance(like, int) and not isinstance(like, bool):
        if not isinstance(raw, int) or isinstance(raw, bool) or not BIGINT_MIN <= raw <= BIGINT_MAX:
            raise ValueError(raw)
        return raw
    return raw


def cursor_encode(ordering: tuple[str, ...], row) -> str:
    """The cursor of `row` in a list ordered by `ordering` (URL-safe, no padding)."""
    values = [_encode_value(getattr(row, _field_name(term))) for term in ordering]
    text = json.dumps(values, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def cursor_decode(
    cursor: str,
    ordering: tuple[str, ...],
    kinds: tuple,
    name: str,
    nullable: frozenset = frozenset(),
) -> list:
    """The sort values a cursor holds; ApplicationError naming the parameter when it is not
    a cursor of this list."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        values = json.loads(base64.urlsafe_b64decode(padded.encode()))
        if not isinstance(values, list) or len(values) != len(ordering):
            raise ValueError(values)
        return [
            _decode_value(raw, like, _field_name(term) in nullable)
            for raw, like, term in zip(values, kinds, ordering, strict=True)
        ]
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise ApplicationError(
            f"{name}: not a position this list gave; start again from its first page.",
            field=name,
        ) from None


def _beyond(queryset, ordering: tuple[str, ...], values: list, reverse: bool) -> list:
    """Rows strictly after `values` in `ordering` (before them when `reverse`), as querysets
    to read one after another, nearest first: the rows that tie on every term but the last
    and follow on it, then those that tie on one term fewer, down to those that follow on the
    first. Each is one index range (equal columns, then a bound), so a page deep in a long run
    of ties starts at its cursor, where (a > x) OR (a = x AND b > y) walked the whole run."""
    segments = []
    for index in reversed(range(len(ordering))):
        term = ordering[index]
        lookup = "lt" if term.startswith("-") != reverse else "gt"
        equal = {_field_name(t): values[i] for i, t in enumerate(ordering[:index])}
        segments.append(
            queryset.filter(**equal, **{f"{_field_name(term)}__{lookup}": values[index]})
        )
    return segments


def _reversed(ordering: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(term[1:] if term.startswith("-") else "-" + term for term in ordering)


# Python types of the sort fields, read from the model so a cursor's values are checked, and
# which of them may be null (only the first: its nulls are a segment of their own).
def _field_kinds(queryset, ordering: tuple[str, ...]) -> tuple[tuple, frozenset]:
    kinds, nullable = [], set()
    for index, term in enumerate(ordering):
        model_field = queryset.model._meta.get_field(_field_name(term))
        internal = model_field.get_internal_type()
        if internal == "DateTimeField":
            kinds.append(dt.datetime.now(dt.UTC))
        elif internal == "DecimalField":
            kinds.append(Decimal(0))
        elif "Integer" in internal or internal in ("AutoField", "BigAutoField"):
            kinds.append(0)
        else:
            kinds.append("")
        if model_field.null:
            if index:
                raise ValueError(
                    f"keyset pagination takes nulls in the first sort field only: {term}"
                )
            nullable.add(_field_name(term))
    return tuple(kinds), frozenset(nullable)


def _order(ordering: tuple[str, ...], nullable: frozenset, reverse: bool = False) -> list:
    """order_by terms of the list (walked back when `reverse`): a nullable field's nulls come
    last in the list, so first when walking back."""
    terms = []
    for term in _reversed(ordering) if reverse else ordering:
        name = _field_name(term)
        if name not in nullable:
            terms.append(term)
            continue
        column = F(name).desc if term.startswith("-") else F(name).asc
        terms.append(column(nulls_first=True) if reverse else column(nulls_last=True))
    return terms


def _rows_beyond(queryset, ordering, values: list, nullable: frozenset, reverse: bool, limit: int):
    """Up to `limit` rows past the cursor `values`, walking the list's order (back when
    `reverse`), nearest first. A nullable first field's nulls are no comparison's match, so
    they are walked as a segment of their own after (or, walking back, before) the valued
    rows; each segment is one index range, read only when the one before ran short."""
    order = _order(ordering, nullable, reverse)
    first = _field_name(ordering[0])
    if first not in nullable:
        segments = _beyond(queryset, ordering, values, reverse)
    else:
        nulls = queryset.filter(**{f"{first}__isnull": True})
        if values[0] is None:
            segments = _beyond(nulls, ordering[1:], values[1:], reverse)
            if reverse:
                segments.append(queryset.filter(**{f"{first}__isnull": False}))
        else:
            segments = _beyond(queryset, ordering, values, reverse)
            if not reverse:
                segments.append(nulls)
    rows: list = []
    for segment in segments:
        rows += segment.order_by(*order)[: limit - len(rows)]
        if len(rows) >= limit:
            break
    return rows


def keyset_page(queryset, ordering: tuple[str, ...], params, per_page: int) -> KeysetPage:
    """The page `params` asks for (`after`, `before`, or the legacy `page`) of `queryset` in
    `ordering`, whose last term must be the primary key so every row has one place."""
    if _field_name(ordering[-1]) not in ("pk", "id"):
        raise ValueError("keyset ordering must end with the primary key")
    kinds, nullable = _field_kinds(queryset, ordering)
    after, before = params.get("after") or "", params.get("before") or ""
    ordered = queryset.order_by(*_order(ordering, nullable))
    page = KeysetPage(rows=[], sort_fields=ordering)
    if before:
        values = cursor_decode(before, ordering, kinds, "before", nullable)
        backwards = _rows_beyond(queryset, ordering, values, nullable, True, per_page + 1)
        if len(backwards) > per_page:
            page.rows = list(reversed(backwards[:per_page]))
            page.is_first = False
            page.newer_cursor = cursor_encode(ordering, page.rows[0])
            page.older_cursor = cursor_encode(ordering, page.rows[-1])
            return page
        # Back at the top: the first page, full, rather than the few rows left above.
        rows = list(ordered[: per_page + 1])
    elif after:
        values = cursor_decode(after, ordering, kinds, "after", nullable)
        rows = _rows_beyond(queryset, ordering, values, nullable, False, per_page + 1)
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
