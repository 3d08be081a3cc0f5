"""Eval-time LLM checks (parameter equivalence, path, expected behaviour) pass twice, like
verdicts: each question is asked two independent times at temperature 0. When the two answers
differ the check flipped: the trial goes to people, and the flip counts in the per-check
flip-rate chart. Scoring goes on with the lower answer, so a flip never makes a trial pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

PARAMETER, PATH, BEHAVIOR = "parameter_equivalence", "path", "expected_behavior"
CHECKS = (PARAMETER, PATH, BEHAVIOR)


def _lower(first, second):
    if first is None or second is None:
        return None  # an unreadable pass leaves the check undecided, as one pass would
    return min(first, second)


@dataclass
class CheckPasses:
    """The two answers of every LLM check asked while one trial was scored."""

    asked: list[dict] = field(default_factory=list)

    def _record(self, check: str, first, second) -> None:
        flipped = first is not None and second is not None and first != second
        self.asked.append({"check": check, "scores": [first, second], "flipped": flipped})

    @property
    def flipped(self) -> list[str]:
        return sorted({entry["check"] for entry in self.asked if entry["flipped"]})

    def parameter(self, judge: Callable | None) -> Callable | None:
        """A parameter judge `(name, expected, actual, task) -> score` asked twice."""
        if judge is None:
            return None

        def twice(name, expected, actual, task):
            first, second = judge(name, expected, actual, task), judge(name, expected, actual, task)
            self._record(PARAMETER, first, second)
            return _lower(first, second)

        return twice

    def path(self, judge: Callable | None) -> Callable | None:
        """A path judge `(reference, actual, task) -> (score, reason)` asked twice."""
        if judge is None:
            return None

        def twice(reference, actual, task):
            first, second = judge(reference, actual, task), judge(reference, actual, task)
            self._record(PATH, first[0], second[0])
            return min((first, second), key=_score_order)

        return twice

    def behavior(self, judge: Callable | None) -> Callable | None:
        """An expected-behaviour judge `(trace, expected) -> (score, reason)` asked twice."""
        if judge is None:
            return None

        def twice(trace, expected):
            first, second = judge(trace, expected), judge(trace, expected)
            self._record(BEHAVIOR, first[0], second[0])
            return min((first, second), key=_score_order)

        return twice


def _score_order(answer: tuple) -> float:
    # An unreadable answer (None) counts lowest, so the check stays undecided.
    return -1.0 if answer[0] is None else answer[0]
