"""Passes asking the provider the identical request at the same moment (one rubric version,
one trace content, one pass index) share one call: the first asks, the others wait for its
answer and reuse it, paying nothing; a leader that dies lets another take over."""

import pytest

import judges.execution
from judges.execution import judgment_execute
from judges.models import Judgment, JudgmentStatus
from judges.request_leases import request_lease_release, request_lease_take
from judges.services import judge_run_start
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


def _passes(version, config, trace, capture):
    with capture(execute=False):
        run = judge_run_start(rubric_version=version, config=config, traces=[trace])
    return list(run.judgments.order_by("pass_index"))


def test_a_pass_asked_while_its_twin_is_in_flight_waits_and_reuses_the_answer(
    simulator, tool_rubric, default_config, capture, monkeypatch
):
    trace = sample_traces.travel_book_ok()
    first_run = _passes(tool_rubric, default_config, trace, capture)
    second_run = _passes(tool_rubric, default_config, trace, capture)
    real_call = judges.execution.provider_call
    meanwhile = []

    def call_while_the_twin_arrives(config, params):
        if not meanwhile:
            # The twin pass of the other run is delivered while this call is in flight.
            meanwhile.append(judgment_execute(second_run[0].pk))
        return real_call(config, params)

    monkeypatch.setattr(judges.execution, "provider_call", call_while_the_twin_arrives)

    assert judgment_execute(first_run[0].pk).state == "done"
    assert meanwhile[0].state == "retry"
    assert 0 < meanwhile[0].retry_in <= 5
    waiting = Judgment.objects.get(pk=second_run[0].pk)
    assert (waiting.status, waiting.attempts) == (JudgmentStatus.PENDING, 0)

    assert judgment_execute(second_run[0].pk).state == "done"
    assert simulator.request_count == 1
    reused = Judgment.objects.get(pk=second_run[0].pk)
    assert reused.served_from_cache and reused.cost_usd == 0


def test_a_lease_is_taken_once_and_freed_by_its_holder_only(settings):
    digest = "d" * 64
    assert request_lease_take(digest, 1)
    assert not request_lease_take(digest, 2)
    request_lease_release(digest, 2)  # not the holder: nothing happens
    assert not request_lease_take(digest, 2)
    request_lease_release(digest, 1)
    assert request_lease_take(digest, 2)
    request_lease_release(digest, 2)


def test_a_lease_whose_holder_died_runs_out(settings):
    settings.JUDGE_CLAIM_LEASE_SECONDS = 1
    digest = "e" * 64
    assert request_lease_take(digest, 1)
    import time

    time.sleep(1.3)
    assert request_lease_take(digest, 2)
    request_lease_release(digest, 2)


def test_different_passes_of_one_trace_do_not_wait_for_each_other(
    simulator, tool_rubric, default_config, capture
):
    trace = sample_traces.travel_book_ok()
    first, second = _passes(tool_rubric, default_config, trace, capture)

    assert [judgment_execute(first.pk).state, judgment_execute(second.pk).state] == [
        "done",
        "done",
    ]
    assert simulator.request_count == 2


def test_every_thread_takes_leases_through_one_cache_client(settings):
    from concurrent.futures import ThreadPoolExecutor

    from judges.request_leases import lease_cache

    # A client per thread (or green thread) would open a Redis connection per pass in flight.
    with ThreadPoolExecutor(max_workers=8) as pool:
        clients = set(pool.map(lambda _: id(lease_cache()), range(8)))
    assert clients == {id(lease_cache())}

    settings.CACHES = {**settings.CACHES, settings.SHARED_CACHE: {**settings.CACHES["shared"]}}
    assert id(lease_cache()) not in clients
