"""bench/topology.py's load and accounting: each client sends its own run of the batches in
order (or all share one queue), and a phase's cores are each role's CPU over its seconds."""

import pytest

from bench.otlp_burst import Burst
from bench.topology import cores_by_role, cores_text


def _bodies(count: int) -> list[tuple[bytes, list[str]]]:
    return [(f"body {i}".encode(), [f"{i:016x}"]) for i in range(count)]


def test_each_client_sends_its_own_contiguous_run_in_order():
    # given 10 bodies for 4 clients
    burst = Burst(0, "token", _bodies(10), 4)
    # when each client takes its bodies until it has none
    runs = []
    for sender in range(4):
        run = []
        while (item := burst.next_body(sender)) is not None:
            run.append(int(item[1][0], 16))
        runs.append(run)
    # then every body goes once, each client's in sending order, next to each other
    assert runs == [[0, 1], [2, 3, 4], [5, 6], [7, 8, 9]]


def test_with_a_shared_queue_the_clients_take_the_next_body_whoever_asks():
    burst = Burst(0, "token", _bodies(5), 3, shared=True)
    taken = [burst.next_body(sender) for sender in (2, 0, 1, 0, 2, 1)]
    assert [int(item[1][0], 16) for item in taken[:5]] == [0, 1, 2, 3, 4]
    assert taken[5] is None


def test_a_phases_cores_count_what_each_process_ran_meanwhile():
    # given CPU seconds before and after a 2-second phase; backend 30 opened meanwhile
    before = {"web": {1: 10.0, 2: 4.0}, "postgresql": {20: 7.0}}
    after = {"web": {1: 11.0, 2: 4.5}, "postgresql": {20: 7.4, 30: 0.2}}
    # then
    cores = cores_by_role(before, after, 2.0)
    assert cores == {"web": pytest.approx(0.75), "postgresql": pytest.approx(0.3)}
    assert cores_text(cores) == "1.05 in all (web 0.75, postgresql 0.30)"
