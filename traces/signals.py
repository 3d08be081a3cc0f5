"""Hand-offs from ingestion to the stages on its right. Sent inside the writing transaction."""

from django.dispatch import Signal

# Sent with trace_ids=[Trace.pk, ...] after a request's spans are stored. Ingest also names
# the traces stored before it that it added spans to (late_trace_ids) and the sessions made
# before it whose traces gained spans (session_ids): a re-sent span is not news, and a trace or
# session new to the request has no verdicts yet; and the traces held out as it found them
# (held_out_trace_ids), so the held-out flag is read again only when it can move.
# Its receivers are looked up once per sender, not among all on every request.
spans_ingested = Signal(use_caching=True)

# Sent with trace=<Trace> once its root span has ended and no span arrived for
# settings.TRACE_SETTLE_SECONDS (traces.tasks.trace_settle_sweep_task).
trace_completed = Signal()

# Sent with feedback=<Feedback> when an outside score (an end user's thumbs, a rating) is
# stored for the first time; a retried post with the same key sends nothing.
feedback_received = Signal()

# Sent with user=<User> and rows=[{"pk", "external_id", "project__slug", "span_count",
# "created_at"}, ...] once a person's deletion of those traces is written (traces.deletion);
# retention's deletions send nothing.
traces_deleted = Signal()
