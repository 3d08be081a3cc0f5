"""gunicorn settings read from the working directory (`gunicorn evalsite.wsgi`)."""

import gc


def post_fork(server, worker):
    # Ingestion allocates many short-lived span dicts; the default gen-0 threshold (700) makes
    # the collector run every few spans. Objects from start-up are frozen out of collection.
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
