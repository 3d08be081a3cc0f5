"""The outcome score of a trial, normalised to 0..1.

A judge verdict under the example's outcome rubric wins; without one, what the agent said in
the whole conversation is checked against the expected outcome's key facts (ids, amounts,
dates, counts of any length), deterministically, numbers compared as numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from judges.models import Verdict, VerdictStatus
from metrics.conversation import said_texts
from traces.models import Span, Trace

# Tokens that carry the facts of an outcome: anything with a digit, e.g. 4, A1042, 49.90,
# 2026-03-14, $1,200.
FACT = re.compile(r"[A-Za-z0-9$€£][A-Za-z0-9.,\-/:$€£]*")
CURRENCY = "$€£"


@dataclass(frozen=True)
class Outcome:
    score: float | None
    source: str  # "verdict", "expected_facts", or "none"


def _fact_tokens(text: str) -> list[str]:
    tokens = (t.strip(".,:").lower() for t in FACT.findall(text or ""))
    return [t for t in tokens if any(ch.isdigit() for ch in t)]


def _as_number(token: str) -> Decimal | None:
    text = token.strip(CURRENCY).replace(",", "")
    if not re.fullmatch(r"-?\d+(\.\d+)?", text):
        return None
    try:
        return Decimal(text).normalize()
    except InvalidOperation:
        return None


def expected_facts(expected_outcome: str) -> list[str]:
    return _fact_tokens(expected_outcome)


def facts_found(facts: list[str], texts: list[str]) -> int:
    """How many facts the texts state: ids as written (case-blind), numbers by value."""
    said = [token for text in texts for token in _fact_tokens(text)]
    numbers = {n for n in map(_as_number, said) if n is not None}
    words = set(said)
    found = 0
    for fact in facts:
        number = _as_number(fact)
        found += (number in numbers) if number is not None else (fact in words)
    return found


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


def outcome_score(
    trace: Trace, content: dict, spans: list[Span] | None = None, masker=None
) -> Outcome:
    """Verdict first; else the share of the expected outcome's facts the agent stated. With the
    masker the example was written with, what the agent said is masked alike before it is
    read (an expected `<email:7f3a91c2>` is the address the agent wrote out)."""
    from_verdict = outcome_from_verdict(trace, content.get("outcome_rubric"))
    if from_verdict is not None:
        return from_verdict
    facts = expected_facts(content.get("expected_outcome", ""))
    if not facts:
        return Outcome(None, "none")
    spans = list(trace.spans.all()) if spans is None else spans
    said = said_texts(trace, spans)
    if masker is not None:
        said = [masker.text(text) for text in said]
    return Outcome(facts_found(facts, said) / len(facts), "expected_facts")
