"""Measurement paired in time, for benches on a shared machine: the contenders (a ceiling, the
trees compared) each do the same slice of the work in a round, one after the other, the order
rotated round by round, over many short rounds. A change in the machine's load then hits every
contender of a round alike, and what is reported is a ratio within each round, summed up over
the rounds by its median with an interval for that median.

CPU time comes from /proc's schedstat, in nanoseconds: /proc/<pid>/stat counts clock ticks of
10 ms, which is a tenth of a short round's CPU.
"""

import statistics
from dataclasses import dataclass
from pathlib import Path

from scipy.stats import binom


def cpu_seconds(pid: int) -> float | None:
    """CPU seconds (user and system) that the live threads of `pid` have run so far; None once
    the process has exited. A gunicorn worker has threads of its own (its connection pool's)."""
    total = 0
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return None
    for task in tasks:
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except OSError:
            continue  # a thread that ended meanwhile
    return total / 1e9


def round_slices(items: list, rounds: int) -> list[list]:
    """`items` cut into `rounds` consecutive slices whose sizes differ by one at most."""
    if len(items) < rounds:
        raise ValueError(f"{len(items)} items cannot fill {rounds} rounds")
    return [items[r * len(items) // rounds : (r + 1) * len(items) // rounds] for r in range(rounds)]


def round_order(contenders: list, round_index: int) -> list:
    """The order of a round: rotated by one each round, and reversed every other full turn, so
    that each contender takes each place and follows each other one equally often."""
    turn, shift = divmod(round_index, len(contenders))
    order = contenders if turn % 2 == 0 else contenders[::-1]
    return order[shift:] + order[:shift]


@dataclass
class RoundsSummary:
    """A per-round figure summed up: its median, a 95% interval for that median, and the
    interquartile range of the rounds themselves."""

    median: float
    low: float
    high: float
    first_quartile: float
    third_quartile: float
    rounds: int


def median_interval_ranks(count: int, confidence: float = 0.95) -> tuple[int, int]:
    """Ranks (1-based) of the sorted values that bound a `confidence` interval for the median,
    without assuming a distribution: each value is below the median with probability one half,
    so the number below it is binomial."""
    rank = int(binom.ppf((1 - confidence) / 2, count, 0.5))
    return max(rank, 1), min(count - rank + 1, count)


def rounds_summary(values: list[float]) -> RoundsSummary:
    ordered = sorted(values)
    low_rank, high_rank = median_interval_ranks(len(ordered))
    quartiles = statistics.quantiles(ordered, n=4) if len(ordered) > 1 else ordered * 3
    return RoundsSummary(
        median=statistics.median(ordered),
        low=ordered[low_rank - 1],
        high=ordered[high_rank - 1],
        first_quartile=quartiles[0],
        third_quartile=quartiles[2],
        rounds=len(ordered),
    )


def summary_text(summary: RoundsSummary, form: str) -> str:
    """'median (95% interval low-high; rounds' IQR q1-q3)', each figure in `form` ('.1%')."""
    return (
        f"{summary.median:{form}} (95% interval of the median {summary.low:{form}}-"
        f"{summary.high:{form}}, width {summary.high - summary.low:{form}}; rounds' "
        f"interquartile range {summary.first_quartile:{form}}-{summary.third_quartile:{form}}; "
        f"{summary.rounds} rounds)"
    )
