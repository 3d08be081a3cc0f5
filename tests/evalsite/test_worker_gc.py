"""A Celery worker, once ready, collects garbage as the web workers do."""

import gc

from evalsite.celery import worker_collects_less


def test_a_ready_worker_freezes_what_it_loaded_and_collects_young_objects_less_often():
    threshold = gc.get_threshold()
    try:
        worker_collects_less()
        assert gc.get_threshold() == (50_000, 20, 20)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
