"""Hand-offs from ingestion to the stages on its right. Sent inside the writing transaction."""

from django.dispatch import Signal

# Sent with trace_ids=[Trace.pk, ...] after a request's spans are stored; ingest also names
# which of them were stored before it (stored_before) and the sessions made before it that
# those traces are in (session_ids): a trace or session new to the request has no verdicts.
spans_ingested = Signal()

# Sent with trace=<Trace> once its root span has ended and no span arrived for
# settings.TRACE_SETTLE_SECONDS (traces.tasks.trace_settle_sweep_task).
trace_completed = Signal()

# Sent with feedback=<Feedback> when an outside score (an end user's thumbs, a rating) is
# stored for the first time; a retried post with the same key sends nothing.
feedback_received = Signal()
