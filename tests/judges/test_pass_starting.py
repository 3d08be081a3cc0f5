"""Passes starting at once in a process are bounded by half its database pool, so that passes
whose answer has come find a connection to store it instead of queuing behind every claim."""

import threading
import time

from django.db import connection

from judges import concurrency
from judges.concurrency import pass_starting, passes_starting_at_once


def test_half_the_database_pool_goes_to_passes_starting(monkeypatch):
    pool = {"min_size": 1, "max_size": 24, "timeout": 120}
    monkeypatch.setitem(connection.settings_dict, "OPTIONS", {"pool": pool})
    assert passes_starting_at_once() == 12
    pool["max_size"] = 1
    assert passes_starting_at_once() == 1
    monkeypatch.setitem(connection.settings_dict, "OPTIONS", {})
    assert passes_starting_at_once() == 4


def test_no_more_passes_start_at_once_than_their_share(monkeypatch):
    monkeypatch.setattr(concurrency, "_starting", [])
    monkeypatch.setattr(concurrency, "passes_starting_at_once", lambda: 3)
    inside, most, lock = [0], [0], threading.Lock()

    def start():
        with pass_starting():
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.05)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=start) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 3
    assert inside[0] == 0
