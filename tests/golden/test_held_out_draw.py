import pytest

from core.errors import ApplicationError
from golden.models import GoldenExample
from golden.services import held_out_draw
from tests.golden.builders import example


def _dataset():
    for n in range(10):
        example(task=f"Cancel order A{n}", task_type="order_cancellation")
    for n in range(5):
        example(task=f"Book flight {n}", task_type="flight_booking", held_out=True)


def test_the_share_is_drawn_within_each_task_type(curator):
    # given 10 cancellation and 5 booking examples (all bookings held out before)
    _dataset()
    # when 20% is drawn
    counts = held_out_draw(share=0.2, user=curator, seed=7)
    # then each task type gets its own share, and the rest is open again
    assert counts == {"flight_booking": 1, "order_cancellation": 2}
    held = GoldenExample.objects.filter(held_out=True)
    assert held.filter(task_type="order_cancellation").count() == 2
    assert held.filter(task_type="flight_booking").count() == 1


def test_the_draw_is_random(curator):
    _dataset()
    draws = set()
    for seed in range(6):
        held_out_draw(share=0.2, user=curator, seed=seed)
        draws.add(
            frozenset(GoldenExample.objects.filter(held_out=True).values_list("pk", flat=True))
        )
    assert len(draws) > 1


def test_a_share_above_half_is_refused(curator):
    with pytest.raises(ApplicationError) as caught:
        held_out_draw(share=0.8, user=curator)
    assert caught.value.field == "share"


def test_one_task_type_can_be_redrawn_alone(curator):
    # given bookings all held out and cancellations all open
    _dataset()
    # when only cancellations are drawn
    counts = held_out_draw(share=0.3, user=curator, seed=3, task_type="order_cancellation")
    # then bookings keep their flags
    assert counts == {"order_cancellation": 3}
    assert GoldenExample.objects.filter(task_type="flight_booking", held_out=True).count() == 5


def test_drafts_are_neither_drawn_nor_counted(curator):
    # given 10 confirmed cancellations and 10 drafts of the same type
    _dataset()
    drafts = [
        example(task=f"Cancel order D{n}", task_type="order_cancellation", draft=True)
        for n in range(10)
    ]
    # when half is drawn
    counts = held_out_draw(share=0.5, user=curator, seed=1)
    # then the share is of the confirmed examples only, and no draft is held out
    assert counts["order_cancellation"] == 5
    assert not GoldenExample.objects.filter(pk__in=[d.pk for d in drafts], held_out=True).exists()
