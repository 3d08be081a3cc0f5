"""Remembered: a value is read once per interval per key, and read again once it expires or
the copy is cleared."""

from core import remembered
from core.remembered import Remembered


def test_a_value_is_read_once_per_interval_then_again(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(remembered.time, "monotonic", lambda: now[0])
    reads = []
    copy = Remembered(seconds=5)

    def read():
        reads.append(now[0])
        return len(reads)

    assert [copy.get("a", read), copy.get("a", read)] == [1, 1]
    now[0] += 5.5
    assert copy.get("a", read) == 2
    assert copy.get("b", read) == 3
    copy.clear()
    assert copy.get("a", read) == 4
    assert reads == [100.0, 105.5, 105.5, 105.5]


def test_a_none_is_remembered_too_and_the_copy_stays_small():
    reads = []
    copy = Remembered(seconds=60, kept=3)

    def missing():
        reads.append(1)

    assert copy.get("gone", missing) is None and copy.get("gone", missing) is None
    assert len(reads) == 1
    for key in range(10):
        copy.get(key, lambda key=key: key)
    assert len(copy.entries) <= 3
