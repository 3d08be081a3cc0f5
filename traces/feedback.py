"""Scores sent from outside: end users' thumbs, ratings and categories, with a comment.

Every field of a post is stored or refused by name. A post is keyed: the sender's `key`, or a
digest of what it says, so a retried post returns the stored row instead of a second one.
"""

import hashlib
import json
import math

from django.db import IntegrityError, transaction

from core.errors import ApplicationError
from traces.masking.records import feedback_fields_mask
from traces.masking.rules import masker_for
from traces.models import Feedback, FeedbackKind, Trace
from traces.signals import feedback_received

# What a feedback is sent with, and answered with (between its id and its time).
FIELDS = (
    "trace_id",
    "project",
    "span_id",
    "name",
    "kind",
    "value",
    "category",
    "comment",
    "end_user",
    "metadata",
    "key",
)
# True == 1 and False == 0 as keys, so booleans and 1/0 share entries.
THUMBS = {True: 1.0, False: 0.0, "up": 1.0, "down": 0.0}
COMPARED = ("span_id", "name", "kind", "value", "category", "comment", "end_user", "metadata")


def _text(data: dict, field: str, limit: int) -> str:
    value = data.get(field, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ApplicationError(f"{field} is text.", field=field)
    if len(value) > limit:
        raise ApplicationError(f"{field} is at most {limit} characters.", field=field)
    if "\x00" in value:
        raise ApplicationError(f"{field} must not contain NUL (\\x00) characters.", field=field)
    return value


def _has_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    return False


def _trace(data: dict, user) -> Trace:
    from traces.selectors import traces_visible

    ref = data.get("trace_id")
    if ref in (None, ""):
        raise ApplicationError(
            "Name the trace: its hex trace id (or evalsite id).", field="trace_id"
        )
    is_id = isinstance(ref, int) and not isinstance(ref, bool)
    if not (is_id or isinstance(ref, str)):
        raise ApplicationError("trace_id is a hex trace id or an evalsite id.", field="trace_id")
    if is_id and not 0 < ref < 2**63:
        raise ApplicationError(f"No trace {ref!r}.", field="trace_id", status_code=404)
    if not is_id:
        ref = _text(data, "trace_id", 64).lower()
    traces = traces_visible(user, Trace.objects.select_related("project"))
    if data.get("project"):
        traces = traces.filter(project__slug=_text(data, "project", 100))
    matches = list(traces.filter(**{"pk" if is_id else "external_id": ref})[:2])
    if not matches:
        raise ApplicationError(f"No trace {ref!r}.", field="trace_id", status_code=404)
    if len(matches) > 1:
        raise ApplicationError(
            f"Trace {ref!r} exists in several projects; name the project.", field="project"
        )
    return matches[0]


def _value(kind: str, data: dict) -> tuple[float | None, str]:
    raw = data.get("value")
    if kind == FeedbackKind.THUMBS:
        key = raw.lower() if isinstance(raw, str) else raw
        if isinstance(key, float) and key in (0.0, 1.0):
            key = int(key)
        if key not in THUMBS:
            raise ApplicationError('Thumbs take true/false, 1/0 or "up"/"down".', field="value")
        return THUMBS[key], ""
    if kind == FeedbackKind.NUMBER:
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
            raise ApplicationError("A number feedback needs a finite number.", field="value")
        return float(raw), ""
    if raw not in (None, ""):
        raise ApplicationError("A category feedback carries its label in category.", field="value")
    category = _text(data, "category", 100).strip()
    if not category:
        raise ApplicationError("Give the category.", field="category")
    return None, category


def _digest(trace: Trace, fields: dict) -> str:
    body = json.dumps({"trace": trace.pk, **fields}, sort_keys=True, default=str)
    return "auto:" + hashlib.sha256(body.encode()).hexdigest()


def feedback_record(data, user=None) -> tuple[Feedback, bool]:
    """Store one piece of feedback; returns (row, created). A retry returns the first row."""
    if not isinstance(data, dict):
        raise ApplicationError("Send a JSON object.", field="body")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ApplicationError(
            f"Unknown field {unknown[0]!r}; put extra values in metadata.", field=unknown[0]
        )
    trace = _trace(data, user)
    kind = data.get("kind")
    if kind not in FeedbackKind.values:
        raise ApplicationError(f"kind is one of {', '.join(FeedbackKind.values)}.", field="kind")
    value, category = _value(kind, data)
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ApplicationError("metadata is a JSON object.", field="metadata")
    if _has_nul(metadata):
        raise ApplicationError(
            "metadata must not contain NUL (\\x00) characters.", field="metadata"
        )
    span_ref = _text(data, "span_id", 32).lower()
    if span_ref and not trace.spans.filter(span_id=span_ref).exists():
        raise ApplicationError(f"Trace has no span {span_ref!r}.", field="span_id")
    fields = {
        "span_id": span_ref,
        "name": _text(data, "name", 100).strip() or "user_feedback",
        "kind": kind,
        "value": value,
        "category": category,
        "comment": _text(data, "comment", 20_000),
        "end_user": _text(data, "end_user", 200),
        "metadata": metadata,
    }
    masker = masker_for(trace.project_id)
    if masker is not None:
        fields = feedback_fields_mask(masker, fields)
    key = _text(data, "key", 200).strip() or _digest(trace, fields)
    existing = Feedback.objects.filter(trace=trace, key=key).first()
    if existing is not None:
        return _same_or_conflict(existing, fields), False
    try:
        with transaction.atomic():
            feedback = Feedback.objects.create(
                trace=trace,
                key=key,
                created_by=user if user is not None and user.is_authenticated else None,
                **fields,
            )
            feedback_received.send(sender=Feedback, feedback=feedback)
    except IntegrityError:
        # The same key raced in from a parallel retry: that one is the row.
        existing = Feedback.objects.get(trace=trace, key=key)
        return _same_or_conflict(existing, fields), False
    return feedback, True


def _same_or_conflict(existing: Feedback, fields: dict) -> Feedback:
    stored = {name: getattr(existing, name) for name in COMPARED}
    if stored != fields:
        raise ApplicationError(
            "This key was used for different feedback on this trace; use a new key.",
            field="key",
            code="conflict",
            status_code=409,
        )
    return existing
