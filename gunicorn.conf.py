"""gunicorn settings read from the working directory (`gunicorn evalsite.wsgi`)."""

import gc


def post_fork(server, worker):
    # Ingestion allocates many short-lived span dicts; the default gen-0 threshold (700) makes
    # the collector run every few spans.
    gc.set_threshold(50_000, 20, 20)


def post_worker_init(worker):
    from traces.masking.rules import masking_preload

    masking_preload()
    # The application is loaded by now: its modules and objects are frozen out of collection,
    # so a full collection walks what requests made, not all of Django (tens of ms each).
    gc.freeze()
