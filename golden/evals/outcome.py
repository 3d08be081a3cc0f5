"""The outcome score of a trial, normalised to 0..1.

A judge verdict under the example's outcome rubric wins; without one, the final answer is
checked against the expected outcome's key facts (ids, amounts, dates), deterministically.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judges.models import Verdict, VerdictStatus
from traces.models import Trace

# Tokens that carry the facts of an outcome: anything with a digit, e.g. A1042, 49.90, 2026-03-14.
FACT = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-/:]*\d[A-Za-z0-9.\-/:]*")


@dataclass(frozen=True)
class Outcome:
    score: float | None
    source: str  # "verdict", "expected_facts", or "none"


def expected_facts(expected_outcome: str) -> list[str]:
    return [token.rstrip(".").lower() for token in FACT.findall(expected_outcome or "")]


def outcome_from_verdict(trace: Trace, rubric_name: str | None) -> Outcome | None:
    """The latest agreed verdict under the named outcome rubric, scaled to 0..1."""
    if not rubric_name:
        return None
    verdict = (
        Verdict.objects.filter(
            trace=trace, rubric_version__rubric__name=rubric_name, status=VerdictStatus.AGREED
        )
        .select_related("rubric_version")
        .order_by("-created_at", "-pk")
        .first()
    )
    if verdict is None or verdict.score is None:
        return None
    low, high = verdict.rubric_version.score_range
    scaled = (verdict.score - low) / (high - low) if high > low else float(verdict.score >= high)
    return Outcome(max(0.0, min(1.0, scaled)), "verdict")


def outcome_score(trace: Trace, content: dict) -> Outcome:
    """Verdict first; else the share of the expected outcome's facts found in the final answer."""
    from_verdict = outcome_from_verdict(trace, content.get("outcome_rubric"))
    if from_verdict is not None:
        return from_verdict
    facts = expected_facts(content.get("expected_outcome", ""))
    if not facts:
        return Outcome(None, "none")
    answer = (trace.final_answer or "").lower()
    found = sum(1 for fact in facts if fact in answer)
    return Outcome(found / len(facts), "expected_facts")
