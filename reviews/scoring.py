"""What a reviewer's answer may contain: a score the rubric allows, criteria, failure tags."""

import math

from core.errors import ApplicationError
from judges.models import ScoreType
from judges.parsing import criteria_weighted_score
from reviews.models import QueueKind, ReviewItem

MAX_TAGS = 10
MAX_TAG_CHARS = 60
MAX_EXPLANATION_CHARS = 20_000


def score_validate(item: ReviewItem, score) -> float:
    """The score as a float if the item's rubric version allows it, else ApplicationError."""
    try:
        value = float(score)
    except (TypeError, ValueError):
        raise ApplicationError("Give a score as a number.", field="score") from None
    if not math.isfinite(value):
        raise ApplicationError("Give a score as a number.", field="score")
    version = item.rubric_version
    low, high = (version.score_min, version.score_max) if version else (0.0, 1.0)
    score_type = version.score_type if version else ScoreType.BINARY
    if not low <= value <= high:
        raise ApplicationError(
            f"The score must be between {low:g} and {high:g} for this rubric.", field="score"
        )
    if score_type in (ScoreType.BINARY, ScoreType.RANGE) and value != int(value):
        raise ApplicationError("This rubric takes whole-number scores.", field="score")
    if score_type == ScoreType.CONTINUOUS and value not in (0.0, 0.5, 1.0):
        raise ApplicationError("This rubric takes 0, 0.5 or 1.", field="score")
    return value


def criteria_score(item: ReviewItem, answers) -> tuple[float, list[dict]]:
    """Yes/no answers to the rubric's criteria, and the score as the judge counts it (share met)."""
    version = item.rubric_version
    questions = [str(c.get("question", "")) for c in (version.criteria if version else [])]
    if not version or version.score_type != ScoreType.CRITERIA or not questions:
        raise ApplicationError(
            "This rubric has no criteria to answer; give a score.", field="criteria_results"
        )
    answers = list(answers)
    if len(answers) != len(questions) or not all(isinstance(a, bool) for a in answers):
        raise ApplicationError(
            f"Answer each of the {len(questions)} criteria with yes or no.",
            field="criteria_results",
        )
    results = [{"question": q, "met": met} for q, met in zip(questions, answers, strict=True)]
    # Weighted as the judge weighs them, so people and judge scores compare.
    return criteria_weighted_score(results, version.criteria), results


def score_with_criteria(item, score, criteria_results) -> tuple[float, list[dict]]:
    if item.queue.kind == QueueKind.PAIRWISE:
        # A number would skip the A / B sides, whose meaning only the recorded layout gives.
        raise ApplicationError(
            "This is a pairwise item: answer A, B or equal (reviews/items/<id>/prefer/).",
            field="answers",
        )
    if criteria_results is None:
        return score_validate(item, score), []
    value, results = criteria_score(item, criteria_results)
    return score_validate(item, value), results


def failure_tags_clean(tags) -> list[str]:
    """Known failure modes by value, plus short custom tags; duplicates dropped."""
    cleaned: list[str] = []
    for raw in tags or ():
        tag = " ".join(str(raw).split()).lower()
        if not tag:
            continue
        if len(tag) > MAX_TAG_CHARS:
            raise ApplicationError(
                f"A failure tag is at most {MAX_TAG_CHARS} characters.", field="failure_tags"
            )
        if tag not in cleaned:
            cleaned.append(tag)
    if len(cleaned) > MAX_TAGS:
        raise ApplicationError(f"At most {MAX_TAGS} failure tags.", field="failure_tags")
    return cleaned


def explanation_clean(explanation) -> str:
    text = (explanation or "").strip()
    if len(text) > MAX_EXPLANATION_CHARS:
        raise ApplicationError(
            f"The explanation is at most {MAX_EXPLANATION_CHARS} characters.", field="explanation"
        )
    return text
